package sharetest

import (
	"bytes"
	"image/png"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"schedplay/engine"
)

// Shares of a scenario that carries its own sched_ext policy (sched.policy=scx,
// sched.scx.source in Starlark): every home of the handler links the policy
// compiler (`schedplay serve` and the Cloudflare Worker alike), so every one
// previews such a share, within its budget, and a policy that fails gets a
// card that says so rather than none.

// PolicyScenario is a small scenario that runs src as its sched_ext policy,
// in canonical form.
func PolicyScenario(t testing.TB, name, src string) []byte {
	t.Helper()
	sc, err := engine.DecodeScenario([]byte(`{"version":1,"seed":3,"duration_ms":300,"warmup_ms":50,"series_interval_ms":20,` +
		`"machine":{"vcpus":4},"workload":{"kind":"request_server","clients":8},"sched":{"policy":"scx"}}`))
	if err != nil {
		t.Fatal(err)
	}
	sc.Name, sc.Sched.Scx.Source = name, src
	doc, err := sc.Canonical()
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// policyContract shares a policy that runs, one that does not compile and
// one that runs away (its callback over the step budget, so the engine ejects
// it), and checks what a reader of each link gets: the page, link text naming
// the policy and saying what became of it, and the card.
func policyContract(t *testing.T, h Host) {
	for _, tc := range []struct {
		desc, src string
		title     string   // in og:title
		says      []string // in og:description
		chart     string   // in the SVG chart
	}{
		{"a policy that runs", "\n# A FIFO of my own\n# (second line)\ndef enqueue(p, f):\n    scx.dsq_insert(p, scx.DSQ_GLOBAL, scx.SLICE_DFL, f)\n",
			"custom policy: A FIFO of my own", []string{"In the model, ", "throughput"}, "throughput"},
		{"a policy that does not compile", "# Typo\ndef enqueue(p, f):\n    scx.dsq_insert(p, DSQ_GLOBAL, scx.SLICE_DFL, f)\n",
			"custom policy: Typo (does not compile)", []string{"does not compile", "line 3: undefined: DSQ_GLOBAL"}, "does not compile"},
		{"a policy that runs away", "# Forever\ndef enqueue(p, f):\n    while True:\n        pass\n",
			"custom policy: Forever", []string{"throughput", "Policy ejected at ", "enqueue is over its step budget"}, "throughput"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			doc := PolicyScenario(t, "policy share", tc.src)
			r := Share(t, h.Client, h.Base, doc)
			resp, got := Do(t, h.Client, http.MethodGet, h.Base+"/api/share/"+r.ID, nil)
			if resp.StatusCode != http.StatusOK || !bytes.Equal(got, doc) {
				t.Fatalf("GET /api/share/%s: %s %.300s; want the scenario with its policy", r.ID, resp.Status, got)
			}
			pageURL := h.Base + "/s/" + r.ID
			resp, page := Do(t, h.Client, http.MethodGet, pageURL, nil)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("GET /s/%s: %s", r.ID, resp.Status)
			}
			CheckPage(t, page, h.Page)
			m := ReadMeta(t, page)
			if title := m.Meta["og:title"]; !strings.Contains(title, "policy share · "+tc.title) {
				t.Errorf("og:title = %q, want it to name the policy: %q", title, tc.title)
			}
			for _, s := range tc.says {
				if d := m.Meta["og:description"]; !strings.Contains(d, s) {
					t.Errorf("og:description = %q, want %q in it", d, s)
				}
			}
			resp, img := Do(t, h.Client, http.MethodGet, h.local(resolve(t, pageURL, m.Meta["og:image"])), nil)
			if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "image/png" {
				t.Fatalf("GET og:image: %s %q %.300s; want the card", resp.Status, resp.Header.Get("Content-Type"), img)
			}
			if cfg, err := png.DecodeConfig(bytes.NewReader(img)); err != nil || cfg.Width != 1200 || cfg.Height != 630 {
				t.Errorf("og:image is %dx%d (%v), want a 1200x630 PNG", cfg.Width, cfg.Height, err)
			}
			// SCHEDPLAY_CARDS=dir keeps the cards, to be looked at.
			if dir := os.Getenv("SCHEDPLAY_CARDS"); dir != "" {
				name := strings.NewReplacer("/", "-", " ", "-").Replace(t.Name()) + ".png"
				if err := os.WriteFile(filepath.Join(dir, name), img, 0o644); err != nil {
					t.Error(err)
				}
			}
			resp, svg := Do(t, h.Client, http.MethodGet, pageURL+".svg", nil)
			if resp.StatusCode != http.StatusOK || !strings.Contains(string(svg), tc.chart) {
				t.Errorf("GET /s/%s.svg: %s, want a chart with %q: %.300s", r.ID, resp.Status, tc.chart, svg)
			}
		})
	}
}

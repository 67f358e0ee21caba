package web

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"schedplay/engine"
	"schedplay/web/internal/sharetest"
)

// TestPolicyShare: a scenario that carries its own sched_ext policy is shared
// on any server. One with a compiler (`schedplay serve` and the Cloudflare
// Worker link the Starlark binding; the contract, sharetest, runs it on both)
// previews it, and its link text names the policy by its first comment line;
// a policy the compiler refuses still gets a card, and link text that says it
// does not compile; a server without one stores the share, serves its page,
// and answers its card 422 naming the field.
func TestPolicyShare(t *testing.T) {
	sc, err := engine.DecodeScenario([]byte(`{"version":1}`), "duration_ms=200", "warmup_ms=50", "machine.vcpus=2",
		"workload.clients=4", "sched.policy=scx")
	if err != nil {
		t.Fatal(err)
	}
	sc.Sched.Scx.Source = "\n# A FIFO of my own\n# (second line)\ndef enqueue(p, f):\n    scx.dsq_insert(p, scx.DSQ_GLOBAL, scx.SLICE_DFL, f)\n"
	doc, err := json.Marshal(sc)
	if err != nil {
		t.Fatal(err)
	}
	compiled := 0
	fake := func(name, src string, sliceDflNs int64) (engine.ScxOps, error) {
		compiled++
		return engine.ScxNoOps{}, nil // the kernel's defaults: a global FIFO, as the source says
	}
	refuse := func(name, src string, sliceDflNs int64) (engine.ScxOps, error) {
		compiled++
		return nil, errors.New(name + ":4:5: undefined: scx.dsq_insert_typo")
	}
	for _, tc := range []struct {
		desc  string
		opts  []Option
		card  int
		title string // in og:title
	}{
		{"without a compiler", nil, http.StatusUnprocessableEntity, ""},
		{"with a compiler", []Option{WithCompiler(fake)}, http.StatusOK, "custom policy: A FIFO of my own"},
		{"with a compiler that refuses it", []Option{WithCompiler(refuse)}, http.StatusOK, "custom policy: A FIFO of my own (does not compile)"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			ts := httptest.NewServer(newTestServer(t, NewMemStore(), tc.opts...))
			defer ts.Close()
			resp, body := sharetest.Do(t, ts.Client(), "POST", ts.URL+"/api/share", doc)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("POST /api/share: %s %s", resp.Status, body)
			}
			var made struct {
				ID string `json:"id"`
			}
			if err := json.Unmarshal(body, &made); err != nil || made.ID == "" {
				t.Fatalf("POST /api/share answered %s (%v)", body, err)
			}
			resp, page := sharetest.Do(t, ts.Client(), "GET", ts.URL+"/s/"+made.ID, nil)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("GET /s/%s: %s", made.ID, resp.Status)
			}
			resp, card := sharetest.Do(t, ts.Client(), "GET", ts.URL+"/s/"+made.ID+".png", nil)
			if resp.StatusCode != tc.card {
				t.Fatalf("GET /s/%s.png: %s %.200s; want %d", made.ID, resp.Status, card, tc.card)
			}
			if tc.card != http.StatusOK {
				if !strings.Contains(string(card), "sched.scx.source") {
					t.Errorf("the card's refusal %q does not name sched.scx.source", card)
				}
				return
			}
			_, page = sharetest.Do(t, ts.Client(), "GET", ts.URL+"/s/"+made.ID, nil)
			if title := sharetest.ReadMeta(t, page).Meta["og:title"]; !strings.HasSuffix(title, tc.title) {
				t.Errorf("og:title = %q, want the policy named by its first comment line: %q", title, tc.title)
			}
			if compiled == 0 {
				t.Error("the preview did not compile the policy")
			}
			compiled = 0
		})
	}
}

// TestStoredPreviewBeforePolicyErrors: a preview stored before previews said
// what became of a policy (no policy_error, no policy_steps) still reads,
// as one whose policy compiled.
func TestStoredPreviewBeforePolicyErrors(t *testing.T) {
	const old = `{"name":"old","policy":"mine","vcpus":2,"workload":"request_server","seed":1,"horizon_ms":200,"reached_ms":200,` +
		`"complete":true,"events":1000,"from_ms":50,"to_ms":200,"at_ms":100,"arms":[{"results":{"throughput_per_s":10},"series":[1],"series_ms":20,"tiles":[{"state":"running"}]}]}`
	st := NewMemStore()
	s := newTestServer(t, st)
	if err := st.Put(t.Context(), previewKey("AAAAAAAAAAA"), []byte(old)); err != nil {
		t.Fatal(err)
	}
	p, ok, err := s.storedPreview(t.Context(), "AAAAAAAAAAA")
	if err != nil || !ok || p.PolicyError != nil || p.PolicySteps != 0 || p.Policy != "mine" || len(p.Arms) != 1 {
		t.Fatalf("storedPreview = %+v, %v, %v; want the old record, with no policy error", p, ok, err)
	}
	if _, err := p.PNG(); err != nil {
		t.Errorf("the old preview's card: %v", err)
	}
}

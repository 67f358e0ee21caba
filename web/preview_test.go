package web

import (
	"bytes"
	"context"
	"flag"
	"image"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"schedplay/engine"
	"schedplay/examples"
	"schedplay/preview"
	"schedplay/web/internal/sharetest"
)

var update = flag.Bool("update", false, "rewrite the golden preview files in testdata (and, with -run Golden, the fixture from examples/)")

// TestOldShareWithoutPreview covers a share stored before previews existed: its
// page loads with tags from its scenario, and its card makes the preview.
func TestOldShareWithoutPreview(t *testing.T) {
	st := NewMemStore()
	canonical := sharetest.Canonical(t, sharetest.PreviewScenario(9))
	const id = "oldshare123"
	mustPut(t, st, id, canonical)
	ts := httptest.NewServer(newTestServer(t, st))
	defer ts.Close()

	resp, body := sharetest.Do(t, ts.Client(), "GET", ts.URL+"/s/"+id, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /s/%s: %s", id, resp.Status)
	}
	sharetest.CheckPage(t, body, readTestFile(t, "index.html"))
	m := sharetest.ReadMeta(t, body)
	if got, want := m.Meta["og:title"], "schedplay: preview-9: pull off vs pull on"; got != want {
		t.Errorf("og:title = %q, want %q (from the scenario)", got, want)
	}
	if _, err := st.Get(context.Background(), previewKey(id)); err == nil {
		t.Error("serving the page computed a preview; it should only read one")
	}

	resp, img := sharetest.Do(t, ts.Client(), "GET", ts.URL+"/s/"+id+".png", nil)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "image/png" {
		t.Fatalf("GET /s/%s.png: %s", id, resp.Status)
	}
	if _, err := png.Decode(bytes.NewReader(img)); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Get(context.Background(), previewKey(id)); err != nil {
		t.Errorf("the card did not store a preview: %v", err)
	}
	_, body = sharetest.Do(t, ts.Client(), "GET", ts.URL+"/s/"+id, nil)
	if d := sharetest.ReadMeta(t, body).Meta["og:description"]; !strings.HasPrefix(d, "In the model, pull on: ") {
		t.Errorf("after the card, og:description = %q, want the headline result", d)
	}
	// The scenario's own record is untouched.
	if got, _ := st.Get(context.Background(), id); !bytes.Equal(got, canonical) {
		t.Errorf("the share's record changed to %s", got)
	}
}

// TestUnrunnableArms: a share whose arm the engine refuses is refused when it is
// made, naming the field; one stored before that check (or by another version)
// still has a working page, and its card and chart say why there is none.
func TestUnrunnableArms(t *testing.T) {
	st := NewMemStore()
	ts := httptest.NewServer(newTestServer(t, st))
	defer ts.Close()
	doc := []byte(`{"version":1,"name":"too big","arms":[{"name":"a","set":{}},{"name":"b","set":{"machine.vcpus":"4096"}}]}`)
	resp, body := sharetest.Do(t, ts.Client(), "POST", ts.URL+"/api/share", doc)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "arms.1.set") || !strings.Contains(string(body), "machine.vcpus") {
		t.Errorf("POST /api/share: %s %s; want 400 naming the arm and the field", resp.Status, body)
	}
	id, err := putShare(context.Background(), st, doc)
	if err != nil {
		t.Fatal(err)
	}
	if resp, _ := sharetest.Do(t, ts.Client(), "GET", ts.URL+"/s/"+id, nil); resp.StatusCode != http.StatusOK {
		t.Errorf("GET /s/%s: %s", id, resp.Status)
	}
	for _, ext := range []string{".png", ".svg"} {
		resp, body := sharetest.Do(t, ts.Client(), "GET", ts.URL+"/s/"+id+ext, nil)
		if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(string(body), "machine.vcpus") {
			t.Errorf("GET /s/%s%s: %s %s; want 422 naming the field", id, ext, resp.Status, body)
		}
	}
}

func TestInjectHead(t *testing.T) {
	const tags = "<meta name=x>"
	for _, tc := range []struct{ desc, page, want string }{
		{"before the head's end", "<html><head><title>t</title></head><body>", "<html><head><title>t</title><meta name=x></head><body>"},
		{"upper case", "<HTML><HEAD></HEAD>", "<HTML><HEAD><meta name=x></HEAD>"},
		{"no head end: after the doctype", "<!DOCTYPE html><title>t</title>", "<!DOCTYPE html><meta name=x><title>t</title>"},
		{"neither: at the start", "<title>t</title>", "<meta name=x><title>t</title>"},
		{"lower-casing would move it", "<p>\u0130\u0130</p></head>", "<p>\u0130\u0130</p><meta name=x></head>"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			if got := string(injectHead([]byte(tc.page), []byte(tags))); got != tc.want {
				t.Errorf("injectHead(%q) = %q, want %q", tc.page, got, tc.want)
			}
		})
	}
}

// Golden previews: a real preview (of examples/tpcb-32vcpu.json with the default
// budget, stored as the fixture) drawn through the server, as the card and the
// chart. They are also the visual reference: open them after changing the
// drawing, and rewrite them with `go test ./web -run Golden -update`.
const (
	goldenFixture = "testdata/preview-tpcb.json"
	goldenCard    = "testdata/preview-tpcb.png"
	goldenChart   = "testdata/preview-tpcb.svg"
)

func TestPreviewGolden(t *testing.T) {
	data, err := examples.FS.ReadFile("tpcb-32vcpu.json")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := engine.DecodeScenario(data)
	if err != nil {
		t.Fatal(err)
	}
	canonical, _ := sc.Canonical()
	if *update {
		p, err := preview.Compute(sc, preview.DefaultEventBudget)
		if err != nil {
			t.Fatal(err)
		}
		fixture, _ := json.Marshal(p, json.Deterministic(true))
		writeGolden(t, goldenFixture, fixture)
	}
	fixture, err := os.ReadFile(goldenFixture)
	if err != nil {
		t.Fatal(err)
	}
	st := NewMemStore()
	const id = "goldentpcb1"
	mustPut(t, st, id, canonical)
	mustPut(t, st, previewKey(id), fixture)
	ts := httptest.NewServer(newTestServer(t, st))
	defer ts.Close()

	_, chart := sharetest.Do(t, ts.Client(), "GET", ts.URL+"/s/"+id+".svg", nil)
	_, card := sharetest.Do(t, ts.Client(), "GET", ts.URL+"/s/"+id+".png", nil)
	if *update {
		writeGolden(t, goldenChart, chart)
		writeGolden(t, goldenCard, card)
	}
	if want, _ := os.ReadFile(goldenChart); !bytes.Equal(chart, want) {
		t.Errorf("the chart differs from %s (rewrite it with -update after looking at both)", goldenChart)
	}
	want, err := os.ReadFile(goldenCard)
	if err != nil {
		t.Fatal(err)
	}
	if n := differentPixels(t, card, want); n > preview.CardW*preview.CardH/1000 {
		t.Errorf("%d pixels of the card differ from %s (rewrite it with -update after looking at both)", n, goldenCard)
	}
}

func writeGolden(t *testing.T, name string, data []byte) {
	t.Helper()
	if err := os.WriteFile(filepath.FromSlash(name), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// differentPixels counts the pixels that differ visibly between two PNGs of
// the same size. Exact bytes would be too strict: float rounding in the
// rasterizer may differ by a level on another architecture (FMA on arm64).
func differentPixels(t *testing.T, a, b []byte) int {
	t.Helper()
	ia, err1 := png.Decode(bytes.NewReader(a))
	ib, err2 := png.Decode(bytes.NewReader(b))
	if err1 != nil || err2 != nil || ia.Bounds() != ib.Bounds() {
		t.Fatalf("cannot compare the cards: %v, %v, %v vs %v", err1, err2, boundsOf(ia), boundsOf(ib))
	}
	n := 0
	r := ia.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			r1, g1, b1, _ := ia.At(x, y).RGBA()
			r2, g2, b2, _ := ib.At(x, y).RGBA()
			if far(r1, r2) || far(g1, g2) || far(b1, b2) {
				n++
			}
		}
	}
	return n
}

func boundsOf(img image.Image) image.Rectangle {
	if img == nil {
		return image.Rectangle{}
	}
	return img.Bounds()
}

func far(a, b uint32) bool { return max(a, b)-min(a, b) > 16<<8 }

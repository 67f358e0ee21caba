package web

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"schedplay/docs"
	"schedplay/engine"
	"schedplay/examples"
	"schedplay/web/internal/sharetest"
)

// A share of a preset as the calibration ran it carries the calibration's
// verdict in its link description (OpenGraph, Twitter and oEmbed alike),
// after the model's numbers, each said to be the model's or the published;
// the same preset with a setting changed gets the published figures for its
// settings and no verdict.
func TestLinkPreviewVerdict(t *testing.T) {
	data, err := examples.FS.ReadFile("tpcb-32vcpu.json")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		desc, id, set string
		want, not     []string
	}{
		{"the preset as calibrated", "calibrated1", "",
			[]string{"In the model, pull on: ", "Published: throughput 7.82k → 22.7k; " + calibratedTPCB64(t) + "."}, nil},
		{"another seed", "otherseed12", "seed=9",
			[]string{"In the model, pull on: ", "Published for these settings: throughput 7.82k → 22.7k."}, []string{"reproduce"}},
		{"another client count", "otherclient", "workload.clients=40",
			[]string{"In the model, pull on: "}, []string{"reproduce", "Published"}},
	}
	st := NewMemStore()
	ts := httptest.NewServer(newTestServer(t, st))
	defer ts.Close()
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			var sets []string
			if tc.set != "" {
				sets = append(sets, tc.set)
			}
			sc, err := engine.DecodeScenario(data, sets...)
			if err != nil {
				t.Fatal(err)
			}
			canonical, err := sc.Canonical()
			if err != nil {
				t.Fatal(err)
			}
			mustPut(t, st, tc.id, canonical)
			// The card computes and stores the preview; the page reads it.
			if resp, _ := sharetest.Do(t, ts.Client(), "GET", ts.URL+"/s/"+tc.id+".png", nil); resp.StatusCode != http.StatusOK {
				t.Fatalf("card: %s", resp.Status)
			}
			_, body := sharetest.Do(t, ts.Client(), "GET", ts.URL+"/s/"+tc.id, nil)
			meta := sharetest.ReadMeta(t, body).Meta
			_, oe := sharetest.Do(t, ts.Client(), "GET", ts.URL+"/oembed?url="+url.QueryEscape("/s/"+tc.id), nil)
			var reply oembedReply
			if err := json.Unmarshal(oe, &reply); err != nil {
				t.Fatalf("oEmbed: %v: %s", err, oe)
			}
			for name, d := range map[string]string{"og:description": meta["og:description"], "twitter:description": meta["twitter:description"], "oEmbed description": reply.Description} {
				for _, w := range tc.want {
					if !strings.Contains(d, w) {
						t.Errorf("%s %q lacks %q", name, d, w)
					}
				}
				for _, n := range tc.not {
					if strings.Contains(d, n) {
						t.Errorf("%s %q says %q", name, d, n)
					}
				}
			}
		})
	}
}

// The verdicts' links work from schedplay serve: the model notes are served
// from the playground bundle at docs.NotesPath, with the page's headers, and
// every section a verdict links to is an anchor in them.
func TestNotesServed(t *testing.T) {
	ts := httptest.NewServer(newTestServer(t, NewMemStore(), WithStaticDir("../static")))
	defer ts.Close()
	resp, page := sharetest.Do(t, ts.Client(), "GET", ts.URL+docs.NotesPath, nil)
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") ||
		resp.Header.Get("Content-Security-Policy") == "" {
		t.Fatalf("GET %s: %s, %s, CSP %q", docs.NotesPath, resp.Status, resp.Header.Get("Content-Type"), resp.Header.Get("Content-Security-Policy"))
	}
	if resp, _ := sharetest.Do(t, ts.Client(), "GET", ts.URL+"/notes/notes.css", nil); resp.StatusCode != http.StatusOK {
		t.Errorf("the notes' stylesheet: %s", resp.Status)
	}
	table, err := docs.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range table.Points {
		for _, v := range append(figureVerdicts(p.Figures), changeVerdicts(p.Changes)...) {
			if v.Section != "" && !strings.Contains(string(page), `id="`+v.Section+`"`) {
				t.Errorf("%s %s links to #%s, which the served notes lack", p.Case, p.Label, v.Section)
			}
		}
	}
}

func figureVerdicts(fs []docs.Figure) []docs.Verdict {
	var out []docs.Verdict
	for _, f := range fs {
		out = append(out, f.Verdict)
	}
	return out
}

func changeVerdicts(cs []docs.Change) []docs.Verdict {
	var out []docs.Verdict
	for _, c := range cs {
		out = append(out, c.Verdict)
	}
	return out
}

// calibratedTPCB64 is the calibration record's sentence on the default
// preset's throughput change (64 clients, pull off to on), so the test
// follows a re-run; its wording is preview's and docs' to test.
func calibratedTPCB64(t *testing.T) string {
	table, _ := docs.Load()
	c, _ := table.ChangeOf("tpcb-32vcpu.json#7", "tpcb-32vcpu.json#6", "throughput_per_s")
	return docs.ChangeTrust(c).Sentence
}

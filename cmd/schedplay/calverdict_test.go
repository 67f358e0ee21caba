package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"schedplay/docs"
	"schedplay/engine"
)

// testNotes are model notes for testdata/examples: a section for the ab case,
// and a more specific one for its changes at 8 clients.
const testNotes = `# Notes

## The ab case

<!-- verdicts: ab -->

Why ab does what it does.

## At 8 clients

<!-- verdicts: ab workload.clients=8 changes -->

Pull doubles throughput; see [the calibration](calibration.md#figures).
`

// TestVerdictTable: calibrate writes the verdict table beside the document,
// judged by the document's own rows, each row linked to the section of the
// notes its most specific marker names; and the notes as pages, whose anchors
// are those sections.
func TestVerdictTable(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "docs")
	notesDir := filepath.Join(t.TempDir(), "notes")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "model-notes.md"), []byte(testNotes), 0o644); err != nil {
		t.Fatal(err)
	}
	a := newTestApp(t, robustSim)
	if code := a.main([]string{"calibrate", "--out", filepath.Join(dir, "calibration.md"), "--notes", notesDir, "--jobs", "2"}); code != 0 {
		t.Fatalf("calibrate: exit %d, %s", code, a.errOut.String())
	}
	data, err := os.ReadFile(filepath.Join(dir, "verdicts.json"))
	if err != nil {
		t.Fatal(err)
	}
	var table docs.Table
	if err := json.Unmarshal(data, &table, json.RejectUnknownMembers(true)); err != nil {
		t.Fatal(err)
	}
	if len(table.Points) != 4 {
		t.Fatalf("%d points, want the 4 published ones of ab", len(table.Points))
	}
	byLabel := map[string]*docs.Point{}
	for i := range table.Points {
		byLabel[table.Points[i].Label] = &table.Points[i]
	}
	off8, on8, on4 := byLabel["off, workload.clients=8"], byLabel["on, workload.clients=8"], byLabel["on, workload.clients=4"]
	if off8 == nil || on8 == nil || on4 == nil {
		t.Fatalf("points %v", byLabel)
	}
	// A point is the configuration calibration ran: the example with the
	// point's arm and settings.
	if off8.ID != "ab.json#2" || off8.File != "ab.json" || !slices.Equal(off8.Sets, []string{"sched.wake_pull=false", "workload.clients=8"}) {
		t.Errorf("the off arm at 8 clients is %s: examples/%s with %v", off8.ID, off8.File, off8.Sets)
	}
	for _, tc := range []struct {
		desc         string
		b, a         *docs.Point
		metric       string
		class        docs.Class
		why, section string
	}{
		{"a hit at 8 clients, in the specific section", on8, off8, "throughput_per_s", docs.Hit, "", "at-8-clients"},
		{"a miss at 4 clients, in the case's section", on4, byLabel["off, workload.clients=4"], "throughput_per_s", docs.Miss, "not wash in 2 of 50 runs", "the-ab-case"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			c, ok := tc.b.Change(tc.a, tc.metric)
			if !ok {
				t.Fatalf("no change of %s", tc.metric)
			}
			if c.Class != tc.class || c.Why != tc.why || c.Section != tc.section {
				t.Errorf("class %s why %q section %q, want %s %q %q", c.Class, c.Why, c.Section, tc.class, tc.why, tc.section)
			}
			if c.Model == nil {
				t.Error("no model median")
			}
		})
	}
	if f, ok := off8.Figure("latency_us.p99"); !ok || f.Class != docs.Hit || f.Published != 900 || f.Model == nil || *f.Model != 1000 || f.Section != "the-ab-case" {
		t.Errorf("figure %+v: want a hit, 900 published, 1000 modelled, in the case's section", f)
	}
	page, err := os.ReadFile(filepath.Join(notesDir, "model-notes.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<h2 id="the-ab-case">`, `<h2 id="at-8-clients">`, `href="calibration.html#figures"`, `<link rel="stylesheet" href="notes.css">`} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the notes page lacks %s", want)
		}
	}
	if _, err := os.Stat(filepath.Join(notesDir, "calibration.html")); err != nil {
		t.Errorf("the calibration document linked from the notes is not a page: %v", err)
	}
}

// TestCalibrateCheckNotes: --check fails when the verdict table or a notes page
// is not what the record and the notes render to, and --render (which runs
// nothing) puts them right.
func TestCalibrateCheckNotes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "docs")
	notesDir := filepath.Join(t.TempDir(), "notes")
	os.MkdirAll(dir, 0o755)
	notes := filepath.Join(dir, "model-notes.md")
	os.WriteFile(notes, []byte(testNotes), 0o644)
	ran := 0
	run := func(args ...string) (int, string) {
		a := newTestApp(t, func(sc engine.Scenario) (engine.Results, error) {
			ran++
			return fakeSim(sc)
		})
		code := a.main(append([]string{"calibrate", "--out", filepath.Join(dir, "calibration.md"), "--notes", notesDir, "--jobs", "2"}, args...))
		return code, a.errOut.String()
	}
	if code, errS := run(); code != 0 {
		t.Fatalf("generate: exit %d, %s", code, errS)
	}
	verdicts := filepath.Join(dir, "verdicts.json")
	good, _ := os.ReadFile(verdicts)
	for _, tc := range []struct {
		desc, want string
		change     func()
	}{
		{"the verdict table was edited", "verdicts.json is not what its recorded runs render to", func() {
			os.WriteFile(verdicts, []byte(strings.Replace(string(good), `"hit"`, `"miss"`, 1)), 0o644)
		}},
		{"the verdict table is missing", "verdicts.json is missing", func() { os.Remove(verdicts) }},
		{"the notes changed a section", "verdicts.json is not what", func() {
			os.WriteFile(notes, []byte(strings.Replace(testNotes, "## At 8 clients", "## With 8 clients", 1)), 0o644)
		}},
		{"the notes changed their text", "model-notes.html is not what", func() {
			os.WriteFile(notes, []byte(testNotes+"\nOne more line.\n"), 0o644)
		}},
		{"a marker names no case", "names no case", func() {
			os.WriteFile(notes, []byte(testNotes+"\n<!-- verdicts: nosuch -->\n"), 0o644)
		}},
		{"a marker names no metric", `"thruput" is neither`, func() {
			os.WriteFile(notes, []byte(testNotes+"\n<!-- verdicts: ab thruput -->\n"), 0o644)
		}},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			tc.change()
			if code, errS := run("--check"); code != 1 || !strings.Contains(errS, tc.want) {
				t.Errorf("check: exit %d, %q; want exit 1 saying %q", code, errS, tc.want)
			}
			if strings.Contains(tc.desc, "marker") {
				os.WriteFile(notes, []byte(testNotes), 0o644)
			}
			ran = 0
			if code, errS := run("--render"); code != 0 {
				t.Fatalf("render: exit %d, %s", code, errS)
			}
			if code, errS := run("--check"); code != 0 {
				t.Errorf("check after --render: exit %d, %s", code, errS)
			}
			// The probe runs each point briefly; --render runs nothing else.
			if ran > 2*4 {
				t.Errorf("render and check ran %d simulations, want only the probes", ran)
			}
			os.WriteFile(notes, []byte(testNotes), 0o644)
			run("--render")
		})
	}
	if code, _ := run("--check", "--render"); code == 0 {
		t.Error("--check with --render succeeded")
	}
}

// TestChangeClass: a change is a hit, right in direction only (every run goes
// the published way but the size is out of band), or a miss.
func TestChangeClass(t *testing.T) {
	for _, tc := range []struct {
		desc     string
		pub      float64
		ex, late []float64
		want     docs.Class
	}{
		{"washes everywhere", 1.02, []float64{0.98, 1.05}, []float64{1.1, 0.9}, docs.Hit},
		{"up within the band", 3.15, []float64{2.5, 3}, []float64{2.3, 4}, docs.Hit},
		{"up in every run, too little", 2.91, []float64{1.2, 1.3}, []float64{1.25, 1.2}, docs.Direction},
		{"down in every run, too much", 0.26, []float64{0.1, 0.1}, []float64{0.08, 0.1}, docs.Direction},
		{"a wash where it went up", 2.91, []float64{1.1, 1.09}, []float64{1.1, 1.05}, docs.Miss},
		{"one run the other way", 0.57, []float64{0.8, 0.9}, []float64{0.7, 0.7}, docs.Miss},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			c, pr := judgeFixture(t, tc.pub, tc.ex, tc.late)
			if got := changeClass(judgeChange(c, pr, "throughput_per_s")); got != tc.want {
				t.Errorf("class %s, want %s", got, tc.want)
			}
		})
	}
}

// GitHub's heading anchors, so links within a document land on the same
// heading on GitHub and on the notes pages.
func TestGitHubIDs(t *testing.T) {
	g := &ghIDs{seen: map[string]int{}}
	for _, tc := range []struct{ desc, heading, want string }{
		{"underscores stay", "WAKE_SYNC", "wake_sync"},
		{"punctuation goes", "Where the model misses: the collapse does not last", "where-the-model-misses-the-collapse-does-not-last"},
		{"a repeat is numbered", "wake_sync", "wake_sync-1"},
		{"hyphens stay", "TPC-B at 96 clients", "tpc-b-at-96-clients"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			if got := string(g.Generate([]byte(tc.heading), 0)); got != tc.want {
				t.Errorf("%q -> %q, want %q", tc.heading, got, tc.want)
			}
		})
	}
}

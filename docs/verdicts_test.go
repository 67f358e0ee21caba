package docs_test

import (
	"os"
	"regexp"
	"testing"

	"github.com/go-json-experiment/json"

	"schedplay/docs"
	"schedplay/engine"
	"schedplay/examples"
)

// The embedded table is the calibration's (its record's fingerprint), every
// point in it is a configuration of an example that Lookup finds as that
// point, every change is against a point of the table, and every verdict that
// is not a hit links to a section of the model notes that exists: a miss stays
// visible with its reason.
func TestEmbeddedTable(t *testing.T) {
	table, err := docs.Load()
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Fingerprint string `json:"fingerprint"`
	}
	data, err := os.ReadFile("calibration.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	if table.Fingerprint != rec.Fingerprint || len(table.Points) == 0 {
		t.Fatalf("verdicts.json (%d points) is of calibration %s, calibration.json of %s: render it with calibrate --render",
			len(table.Points), table.Fingerprint, rec.Fingerprint)
	}
	notes, err := os.ReadFile("../static/notes/model-notes.html")
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]bool{}
	for _, m := range regexp.MustCompile(`<h[1-6] id="([^"]+)"`).FindAllStringSubmatch(string(notes), -1) {
		anchors[m[1]] = true
	}
	explained := func(what string, v docs.Verdict) {
		t.Helper()
		switch {
		case v.Section != "" && !anchors[v.Section]:
			t.Errorf("%s links to section %q, which the notes page lacks", what, v.Section)
		case v.Class != docs.Hit && v.Section == "":
			t.Errorf("%s is a %s that no section of the notes explains", what, v.Class)
		case v.Class == docs.Miss && v.Why == "":
			t.Errorf("%s is a miss without its reason", what)
		}
	}
	ids := map[string]bool{}
	for _, p := range table.Points {
		ids[p.ID] = true
	}
	for i, p := range table.Points {
		data, err := examples.FS.ReadFile(p.File)
		if err != nil {
			t.Fatalf("point %s: %v", p.ID, err)
		}
		sc, err := engine.DecodeScenario(data, p.Sets...)
		if err != nil {
			t.Fatalf("point %s: %v", p.ID, err)
		}
		if got := table.Lookup(sc); got != &table.Points[i] {
			t.Errorf("point %s (%s %s): Lookup of its configuration finds %v", p.ID, p.Case, p.Label, got)
		}
		for _, f := range p.Figures {
			explained(p.Case+" "+p.Label+" "+f.Metric, f.Verdict)
		}
		for _, c := range p.Changes {
			explained(p.Case+" "+p.Label+" change of "+c.Metric, c.Verdict)
			if !ids[c.Against] {
				t.Errorf("a change of %s is against %s, no point of the table", p.ID, c.Against)
			}
		}
	}
}

// A run is a calibrated point only when it simulates exactly the point's
// configuration: what only labels a scenario does not matter, anything a run
// simulates does.
func TestLookup(t *testing.T) {
	table, err := docs.Load()
	if err != nil {
		t.Fatal(err)
	}
	data, err := examples.FS.ReadFile("tpcb-32vcpu.json")
	if err != nil {
		t.Fatal(err)
	}
	off, err := engine.DecodeScenario(data, "sched.wake_pull=false")
	if err != nil {
		t.Fatal(err)
	}
	p := table.Lookup(off)
	if p == nil || p.Case != "tpcb-32vcpu" || p.Label != "pull off, workload.clients=64" {
		t.Fatalf("the preset's off arm is point %+v", p)
	}
	relabelled := off
	relabelled.Name, relabelled.Description, relabelled.Arms, relabelled.Published = "x", "y", nil, nil
	if table.Lookup(relabelled) != p || !docs.SameRun(off, relabelled) {
		t.Error("renaming the scenario or dropping its arms made it another run")
	}
	for _, set := range []string{"seed=2", "workload.clients=32", "duration_ms=30000", "warmup_ms=1000", "machine.costs.context_switch_ns=1501"} {
		sc, err := engine.DecodeScenario(data, "sched.wake_pull=false", set)
		if err != nil {
			t.Fatal(err)
		}
		if got := table.Lookup(sc); got != nil && got.Label == p.Label {
			t.Errorf("%s is still the calibrated point %s", set, p.Label)
		}
	}
	at32, _ := engine.DecodeScenario(data, "sched.wake_pull=false", "workload.clients=32")
	if got := table.Lookup(at32); got == nil || got.Label != "pull off, workload.clients=32" {
		t.Errorf("32 clients, as calibrated, is point %+v", got)
	}
}

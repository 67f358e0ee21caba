package docs_test

import (
	"maps"
	"os"
	"regexp"
	"slices"
	"testing"

	"github.com/go-json-experiment/json"

	"schedplay/docs"
	"schedplay/engine"
	"schedplay/examples"
)

// The embedded table is the calibration's (its record's fingerprint), every
// point in it is a configuration of an example (the example with the point's
// arm and settings), and every verdict that is not a hit links to a section
// of the model notes that exists: a miss stays visible with its reason.
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
	keys := map[string]string{}
	names, _ := examples.FS.ReadDir(".")
	for _, n := range names {
		data, _ := examples.FS.ReadFile(n.Name())
		sc, err := engine.DecodeScenario(data)
		if err != nil || len(sc.Published) == 0 {
			continue
		}
		for _, p := range sc.Published {
			set := maps.Clone(p.Set)
			if set == nil {
				set = map[string]string{}
			}
			for _, a := range sc.Arms {
				if a.Name == p.Arm {
					maps.Copy(set, a.Set)
					maps.Copy(set, p.Set)
				}
			}
			var sets []string
			for _, k := range slices.Sorted(maps.Keys(set)) {
				sets = append(sets, k+"="+set[k])
			}
			psc, err := engine.DecodeScenario(data, sets...)
			if err != nil {
				t.Fatal(err)
			}
			keys[docs.ConfigKey(psc)] = sc.Name + " " + p.Arm
		}
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
	for _, p := range table.Points {
		if _, ok := keys[p.Key]; !ok {
			t.Errorf("point %s %s (key %s) is no configuration of the examples", p.Case, p.Label, p.Key)
		}
		for _, f := range p.Figures {
			explained(p.Case+" "+p.Label+" "+f.Metric, f.Verdict)
		}
		for _, c := range p.Changes {
			explained(p.Case+" "+p.Label+" change of "+c.Metric, c.Verdict)
			if _, ok := keys[c.Against]; !ok {
				t.Errorf("a change of %s %s is against %s, no configuration of the examples", p.Case, p.Label, c.Against)
			}
		}
	}
}

// A configuration's key ignores what only labels a scenario and changes with
// anything a run simulates.
func TestConfigKey(t *testing.T) {
	data, err := examples.FS.ReadFile("tpcb-32vcpu.json")
	if err != nil {
		t.Fatal(err)
	}
	base, err := engine.DecodeScenario(data)
	if err != nil {
		t.Fatal(err)
	}
	key := docs.ConfigKey(base)
	relabelled := base
	relabelled.Name, relabelled.Description, relabelled.Arms, relabelled.Published = "x", "y", nil, nil
	if docs.ConfigKey(relabelled) != key {
		t.Error("renaming the scenario or dropping its arms changed its key")
	}
	for _, set := range []string{"seed=2", "workload.clients=32", "duration_ms=30000", "sched.wake_pull=true", "machine.costs.context_switch_ns=1501"} {
		sc, err := engine.DecodeScenario(data, set)
		if err != nil {
			t.Fatal(err)
		}
		if docs.ConfigKey(sc) == key {
			t.Errorf("%s left the key as it was", set)
		}
	}
	if !regexp.MustCompile(`^[0-9a-f]{24}$`).MatchString(key) {
		t.Errorf("key %q: want 24 hex digits", key)
	}
}

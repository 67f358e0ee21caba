package engine

import (
	"io/fs"
	"os"
	"strings"
	"testing"
)

// examplesFS reads ../examples directly: the engine cannot import the examples
// package's embed without a cycle in spirit (examples are data about the engine).
var examplesFS = exampleDir{os.DirFS("../examples")}

type exampleDir struct{ fs.FS }

func (d exampleDir) ReadFile(name string) ([]byte, error) { return fs.ReadFile(d.FS, name) }

func exampleNames(t *testing.T) []string {
	t.Helper()
	ents, err := fs.ReadDir(examplesFS, ".")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		if n, ok := strings.CutSuffix(e.Name(), ".json"); ok {
			names = append(names, n)
		}
	}
	return names
}

func loadExample(t testing.TB, name string, sets ...string) Scenario {
	t.Helper()
	data, err := examplesFS.ReadFile(name + ".json")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := DecodeScenario(data, sets...)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return sc
}

// armSets returns the knob overrides of the scenario's arm called name.
func armSets(t testing.TB, sc Scenario, name string) []string {
	t.Helper()
	for _, a := range sc.Arms {
		if a.Name == name {
			var sets []string
			for _, k := range sortedKeys(a.Set) {
				sets = append(sets, k+"="+a.Set[k])
			}
			return sets
		}
	}
	t.Fatalf("%s has no arm %q", sc.Name, name)
	return nil
}

func runExample(t testing.TB, name, arm string, sets ...string) Results {
	t.Helper()
	base := loadExample(t, name)
	sc := loadExample(t, name, append(armSets(t, base, arm), sets...)...)
	r, err := Run(sc)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

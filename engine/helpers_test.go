package engine

import (
	"io/fs"
	"os"
	"strings"
	"testing"
)

// examples reads ../examples directly: the examples package embeds the same files,
// but the engine's tests should not depend on a package that exists for front ends.
func examples() exampleDir { return exampleDir{os.DirFS("../examples")} }

type exampleDir struct{ fs.FS }

func (d exampleDir) ReadFile(name string) ([]byte, error) { return fs.ReadFile(d.FS, name) }

func exampleNames(t *testing.T) []string {
	t.Helper()
	ents, err := fs.ReadDir(examples(), ".")
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
	data, err := examples().ReadFile(name + ".json")
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
			return a.sets()
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

package playground

import (
	"slices"
	"strings"
	"testing"

	"schedplay/engine"
	"schedplay/playground/runner"
)

func TestEmbedCode(t *testing.T) {
	tests := []struct {
		desc, src, label string
		want             []string
	}{
		{"one run", "https://example.com/#v=1&embed=1", "",
			[]string{`src="https://example.com/#v=1&amp;embed=1"`, `title="schedplay"`}},
		{"a comparison titles it", "https://example.com/#v=1", "pull off ↔ pull on",
			[]string{`title="schedplay: pull off ↔ pull on"`}},
		{"quotes cannot leave the attribute", `https://example.com/"><script>`, `a"b`,
			[]string{`src="https://example.com/&#34;&gt;&lt;script&gt;"`, `title="schedplay: a&#34;b"`}},
	}
	for _, tc := range tests {
		got := embedCode(tc.src, tc.label)
		if !strings.HasPrefix(got, "<iframe ") || !strings.HasSuffix(got, "></iframe>") {
			t.Errorf("%s: %s is not one iframe", tc.desc, got)
		}
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %s lacks %s", tc.desc, got, w)
			}
		}
	}
}

// The shared scenario compares what the page compares: its arms, a knob
// comparison written as arms, or no arms for one run (so the link preview,
// computed from it, shows what the page showed).
func TestSharedScenarioComparesAsThePage(t *testing.T) {
	ps, _ := BuiltinPresets()
	for _, tc := range []struct {
		desc, frag string
		want       []string // the shared scenario's arm names
	}{
		{"the preset's arms", "#v=1&preset=tpcb-32vcpu", []string{"pull off", "pull on"}},
		{"one run", "#v=1&preset=tpcb-32vcpu&compare=off", nil},
		{"a knob comparison", "#v=1&preset=tpcb-32vcpu&compare=machine.vcpus:16,32", []string{"vCPUs 16", "vCPUs 32"}},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			m := New(Options{Presets: ps, Fragment: tc.frag, Runner: runner.NewLocal(func() float64 { return 0 })})
			data, err := m.ScenarioJSON()
			if err != nil {
				t.Fatal(err)
			}
			sc, err := engine.DecodeScenario(data)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, a := range sc.Arms {
				names = append(names, a.Name)
			}
			if !slices.Equal(names, tc.want) {
				t.Errorf("shared arms %q, want %q", names, tc.want)
			}
		})
	}
}

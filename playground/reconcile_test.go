package playground

import (
	"slices"
	"strings"
	"testing"

	"schedplay/engine"
	"schedplay/playground/urlstate"
)

// builtinPresets returns the embedded presets plus one that does not decode.
func builtinPresets(t *testing.T) []Preset {
	t.Helper()
	ps, probs := BuiltinPresets()
	if len(probs) > 0 {
		t.Fatalf("BuiltinPresets: %v", probs)
	}
	return append(ps, Preset{Name: "broken", Data: []byte(`{"version":1,"machine":{"vcpus":0}}`)})
}

func knobs(kv ...string) []urlstate.Knob {
	var out []urlstate.Knob
	for _, s := range kv {
		p, v, _ := strings.Cut(s, "=")
		out = append(out, urlstate.Knob{Path: p, Value: v})
	}
	return out
}

func TestReconcile(t *testing.T) {
	all := []Preset{}
	tests := []struct {
		desc    string
		presets []Preset // nil: builtinPresets
		preset  string
		knobs   []urlstate.Knob
		shared  string
		// wantPreset is the source's name, wantKnobs the fragment's knobs, and
		// wantProbs one substring per expected problem.
		wantPreset string
		wantKnobs  []urlstate.Knob
		wantVCPUs  int
		wantShared bool
		wantProbs  []string
	}{
		{desc: "bare URL: the default preset", wantPreset: "tpcb-32vcpu", wantVCPUs: 32},
		{desc: "named preset", preset: "hackbench", wantPreset: "hackbench", wantVCPUs: 8},
		{desc: "unknown preset: the default, named", preset: "nope", wantPreset: "tpcb-32vcpu", wantVCPUs: 32,
			wantProbs: []string{`there is no preset "nope"`}},
		{desc: "broken preset: the default, with the field", preset: "broken", wantPreset: "tpcb-32vcpu", wantVCPUs: 32,
			wantProbs: []string{"preset broken: machine.vcpus"}},
		{desc: "no presets at all: the engine's default", presets: all, wantPreset: "", wantVCPUs: engine.DefaultScenario().Machine.VCPUs},
		{desc: "a knob equal to the preset's value stays out", knobs: knobs("machine.vcpus=32"), wantPreset: "tpcb-32vcpu", wantVCPUs: 32},
		{desc: "knobs in KnobPaths order, booleans as 1/0",
			knobs: knobs("workload.clients=8", "sched.wake_pull=true", "machine.vcpus=4"), wantPreset: "tpcb-32vcpu", wantVCPUs: 4,
			wantKnobs: knobs("machine.vcpus=4", "sched.wake_pull=1", "workload.clients=8")},
		{desc: "a rejected knob is dropped by name", knobs: knobs("machine.vcpus=1000", "workload.clients=8"), wantPreset: "tpcb-32vcpu",
			wantVCPUs: 32, wantKnobs: knobs("workload.clients=8"), wantProbs: []string{"machine.vcpus: "}},
		{desc: "one vCPU moves the pinned commit thread", knobs: knobs("machine.vcpus=1"), wantPreset: "tpcb-32vcpu", wantVCPUs: 1,
			wantKnobs: knobs("machine.vcpus=1", "workload.commit_cpu=0")},
		{desc: "a pin the link gives explicitly is not moved", knobs: knobs("machine.vcpus=2", "workload.waker_cpu=5"),
			wantPreset: "tpcb-32vcpu", wantVCPUs: 2, wantKnobs: knobs("machine.vcpus=2"),
			wantProbs: []string{"workload.waker_cpu: "}},
		{desc: "a shared scenario poses as a nameless preset", preset: "hackbench", shared: `{"version":1,"machine":{"vcpus":3}}`,
			wantVCPUs: 3, wantShared: true},
		{desc: "a shared scenario that does not decode: the named preset", preset: "hackbench",
			shared: `{"version":1,"machine":{"vcpus":-3}}`, wantPreset: "hackbench", wantVCPUs: 8,
			wantProbs: []string{"shared scenario: machine.vcpus"}},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			ps := tc.presets
			if ps == nil {
				ps = builtinPresets(t)
			}
			var shared []byte
			if tc.shared != "" {
				shared = []byte(tc.shared)
			}
			s, probs := reconcile(ps, tc.preset, tc.knobs, shared)
			if s.src.preset.Name != tc.wantPreset || s.src.shared != tc.wantShared {
				t.Errorf("source %q (shared %v), want %q (shared %v)", s.src.preset.Name, s.src.shared, tc.wantPreset, tc.wantShared)
			}
			if !slices.Equal(s.knobs, tc.wantKnobs) {
				t.Errorf("knobs %v, want %v", s.knobs, tc.wantKnobs)
			}
			if s.base.Machine.VCPUs != tc.wantVCPUs {
				t.Errorf("%d vCPUs, want %d", s.base.Machine.VCPUs, tc.wantVCPUs)
			}
			if len(probs) != len(tc.wantProbs) {
				t.Fatalf("problems %q, want %d matching %q", probs, len(tc.wantProbs), tc.wantProbs)
			}
			for i, want := range tc.wantProbs {
				if !strings.Contains(probs[i], want) {
					t.Errorf("problem %q lacks %q", probs[i], want)
				}
			}
			// What the fragment would say reconciles to the same knobs.
			if again, _ := reconcile(ps, s.src.preset.Name, s.knobs, shared); !slices.Equal(again.knobs, s.knobs) {
				t.Errorf("reconciling the result gives knobs %v", again.knobs)
			}
		})
	}
}

func TestWithKnob(t *testing.T) {
	ps := builtinPresets(t)
	tests := []struct {
		desc        string
		from        []urlstate.Knob // the setup's knobs before (default machine.vcpus=4)
		path, value string
		wantErr     string
		wantKnobs   []urlstate.Knob
	}{
		{desc: "another knob joins in order", path: "sched.idle_spin.cap", value: "5000",
			wantKnobs: knobs("machine.vcpus=4", "sched.idle_spin.cap=5000")},
		{desc: "the same knob is replaced", path: "machine.vcpus", value: "8", wantKnobs: knobs("machine.vcpus=8")},
		{desc: "the preset's value leaves the fragment", path: "machine.vcpus", value: "32"},
		{desc: "the slider at one vCPU moves the pinned commit thread", path: "machine.vcpus", value: "1",
			wantKnobs: knobs("machine.vcpus=1", "workload.commit_cpu=0")},
		{desc: "the slider also moves a pin among the knobs", from: knobs("machine.vcpus=8", "workload.commit_cpu=7"),
			path: "machine.vcpus", value: "4", wantKnobs: knobs("machine.vcpus=4", "workload.commit_cpu=3")},
		{desc: "an out-of-range value is refused", path: "machine.vcpus", value: "1000", wantErr: "machine.vcpus"},
		{desc: "an unknown knob is refused", path: "nope.knob", value: "1", wantErr: "unknown knob"},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			from := tc.from
			if from == nil {
				from = knobs("machine.vcpus=4")
			}
			s, probs := reconcile(ps, "tpcb-32vcpu", from, nil)
			if len(probs) > 0 {
				t.Fatal(probs)
			}
			got, err := s.withKnob(tc.path, tc.value)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("error %v, want one naming %q", err, tc.wantErr)
				}
				if !slices.Equal(got.knobs, s.knobs) {
					t.Errorf("a refused knob changed the knobs to %v", got.knobs)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.knobs, tc.wantKnobs) {
				t.Errorf("knobs %v, want %v", got.knobs, tc.wantKnobs)
			}
			if got.vals.get(tc.path) != canonicalKnob(tc.path, tc.value) {
				t.Errorf("%s reads %q after setting %q", tc.path, got.vals.get(tc.path), tc.value)
			}
		})
	}
}

// TestSharedRunsPolicy: only a shared scenario that decodes and carries a
// policy's source asks for the policy worker.
func TestSharedRunsPolicy(t *testing.T) {
	for _, tc := range []struct {
		desc, doc string
		want      bool
	}{
		{"no share", "", false},
		{"a preset's scenario", `{"version":1}`, false},
		{"the core's defaults, no source", `{"version":1,"sched":{"policy":"scx"}}`, false},
		{"a policy", `{"version":1,"sched":{"policy":"scx","scx":{"source":"def enqueue(p, f):\n    pass\n"}}}`, true},
		{"a broken scenario", `{"version":1,"sched":{"policy":"scx","scx":{"source":"x"}},"nope":1}`, false},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			var shared []byte
			if tc.doc != "" {
				shared = []byte(tc.doc)
			}
			if got := SharedRunsPolicy(shared); got != tc.want {
				t.Errorf("SharedRunsPolicy = %v, want %v", got, tc.want)
			}
		})
	}
}

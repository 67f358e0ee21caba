package playground

import (
	"slices"
	"strings"
	"testing"

	"schedplay/engine"
	"schedplay/playground/runner"
	"schedplay/playground/urlstate"
)

func TestLadder125(t *testing.T) {
	tests := []struct {
		desc    string
		lo, hi  float64
		integer bool
		want    []float64
	}{
		{"from 0: 0 then the scale from 1", 0, 10_000, true, []float64{0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000}},
		{"a floor on the scale", 100, 10_000_000, true, []float64{100, 200, 500, 1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5, 2e5, 5e5, 1e6, 2e6, 5e6, 1e7}},
		{"ends off the scale are kept", 4, 1 << 20, true,
			[]float64{4, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5, 2e5, 5e5, 1e6, 1 << 20}},
		{"fractions for a float knob", 1e-6, 1e-4, false, []float64{1e-6, 2e-6, 5e-6, 1e-5, 2e-5, 5e-5, 1e-4}},
		{"exact decimals", 0.1, 1, false, []float64{0.1, 0.2, 0.5, 1}},
		{"no fractions for an integer knob", 0, 3, true, []float64{0, 1, 2, 3}},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			if got := ladder125(tc.lo, tc.hi, tc.integer); !slices.Equal(got, tc.want) {
				t.Errorf("ladder125(%v, %v) = %v, want %v", tc.lo, tc.hi, got, tc.want)
			}
		})
	}
}

func knob(t *testing.T, path string) engine.Knob {
	t.Helper()
	k, ok := engine.LookupKnob(path)
	if !ok {
		t.Fatalf("the schema has no %s", path)
	}
	return k
}

func TestSchemaLadder(t *testing.T) {
	if l := schemaLadder(knob(t, "machine.vcpus")); len(l) != engine.MaxVCPUs || l[0] != 1 || l[len(l)-1] != engine.MaxVCPUs {
		t.Errorf("vCPUs: %d positions from %v, want every count 1 to %d", len(l), l[:1], engine.MaxVCPUs)
	}
	if l := schemaLadder(knob(t, "seed")); l != nil {
		t.Errorf("the seed has a slider of %d positions; want it typed in", len(l))
	}
	if l := schemaLadder(knob(t, "sched.balance_interval_ms")); !slices.Equal(l, ladder125(0, 10_000, true)) {
		t.Errorf("balancer period: %v, want the 1-2-5 ladder over its range", l)
	}
}

func TestFormatKnob(t *testing.T) {
	names := map[string]string{"kvm": "KVM guest"}
	tests := []struct{ path, value, want string }{
		{"machine.host_halt_poll_ns", "200000", "200 µs"},
		{"machine.host_halt_poll_ns", "0", "off"},
		{"sched.idle_spin.cap", "10000", "10\u2009000 iterations"},
		{"sched.balance_interval_ms", "100", "100 ms"},
		{"sched.hysteresis_us", "5000", "5.00 ms"},
		{"machine.costs.spin_iter_ps", "3000", "3 ns"},
		{"duration_ms", "24000", "24.0 s"},
		{"machine.vcpus", "32", "32"},
		{"machine.host_contention_per_s", "1000", "1000/s"},
		{"workload.hackbench.message_bytes", "100", "100 bytes"},
		{"sched.wake_pull", "true", "on"},
		{"sched.wake_pull", "false", "off"},
		{"machine.platform", "kvm", "KVM guest"},
		{"machine.platform", "native", "native"},
	}
	for _, tc := range tests {
		if got := formatKnob(knob(t, tc.path), names, tc.value); got != tc.want {
			t.Errorf("%s=%s shows %q, want %q", tc.path, tc.value, got, tc.want)
		}
	}
}

func TestCapitalize(t *testing.T) {
	for in, want := range map[string]string{"spin cap": "Spin cap", "vCPUs": "vCPUs", "WAKE_SYNC rule": "WAKE_SYNC rule", "": ""} {
		if got := capitalize(in); got != want {
			t.Errorf("capitalize(%q) = %q, want %q", in, got, want)
		}
	}
}

// Every control says what the schema says, and its slider stays in the schema's
// range.
func TestControlsFromSchema(t *testing.T) {
	ids := map[string]string{}
	for _, c := range Controls() {
		k := knob(t, c.Path)
		if ids[c.ID] != "" {
			t.Errorf("duplicate id %s", c.ID)
		}
		ids[c.ID] = c.Kind
		if !strings.EqualFold(c.Label, k.Label) || c.Tip != k.Doc || c.Unit != k.Unit {
			t.Errorf("%s: label %q, tip %q, unit %q; the schema says %q, %q, %q", c.ID, c.Label, c.Tip, c.Unit, k.Label, k.Doc, k.Unit)
		}
		var values []string
		for _, o := range c.Options {
			values = append(values, o.Value)
		}
		if c.ID == "topology" {
			// The machine select offers the schema's shapes among its own
			// (flat first, BigLittle between): each one the engine takes.
			for _, v := range k.Choices {
				if !slices.Contains(values, v) {
					t.Errorf("topology: options %v lack the schema's %q", values, v)
				}
			}
			for _, v := range values {
				if _, err := engine.KnobValue(c.Path, v); err != nil && v != BigLittle {
					t.Errorf("topology: offers %q, which the engine refuses: %v", v, err)
				}
			}
			continue
		}
		// The schema's choices, in order, then values it accepts that the
		// panel offers too (the policy select's "scx": your own policy).
		if len(values) < len(k.Choices) || !slices.Equal(values[:len(k.Choices)], k.Choices) {
			t.Errorf("%s: options %v, the schema's choices %v", c.ID, values, k.Choices)
		}
		for _, v := range values[min(len(k.Choices), len(values)):] {
			if _, err := engine.KnobValue(c.Path, v); err != nil {
				t.Errorf("%s: offers %q, which the engine refuses: %v", c.ID, v, err)
			}
		}
		if c.Kind == "range" && (len(c.ladder) < 2 || !slices.IsSorted(c.ladder) || c.ladder[0] < k.Min || c.ladder[len(c.ladder)-1] > k.Max) {
			t.Errorf("%s: ladder %v outside [%v, %v] or unsorted", c.ID, c.ladder, k.Min, k.Max)
		}
	}
	want := map[string]string{"vcpus": "range", "platform": "select", "host-halt-poll": "range", "clients": "range",
		"policy": "select", "wake-sync": "select", "wake-pull": "toggle", "balance": "range", "spin-cap": "range",
		"adaptive-spin": "toggle", "spin-floor": "range", "seed": "number", "duration": "range",
		"balancer": "select", "rx-queues": "range", "rss": "toggle", "requests-per-conn": "range"}
	for id, kind := range want {
		if ids[id] != kind {
			t.Errorf("control %s is %q, want a %s", id, ids[id], kind)
		}
	}
}

// The panel shows only the controls that apply to the scenarios on the stage:
// in either arm of a comparison, and always the knob compared.
func TestControlsShownApply(t *testing.T) {
	ps, _ := BuiltinPresets()
	tests := []struct {
		desc, frag    string
		shown, hidden []string
	}{
		{desc: "hackbench on bare metal", frag: "#v=1&preset=hackbench",
			shown:  []string{"vcpus", "platform", "policy", "wake-sync", "spin-cap", "seed", "duration"},
			hidden: []string{"clients", "host-halt-poll", "wake-pull", "balance", "adaptive-spin", "spin-floor"}},
		{desc: "TPC-B: OSv on KVM with a fixed spin", frag: "#v=1&preset=tpcb-32vcpu",
			shown:  []string{"clients", "host-halt-poll", "wake-pull", "balance", "spin-cap", "adaptive-spin"},
			hidden: []string{"wake-sync", "spin-floor"}},
		{desc: "idle guest: the floor applies in the adaptive arm", frag: "#v=1&preset=idle-guest",
			shown:  []string{"host-halt-poll", "adaptive-spin", "spin-floor", "wake-pull"},
			hidden: []string{"clients", "wake-sync"}},
		{desc: "a spin window makes adaptive spin apply", frag: "#v=1&preset=hackbench&compare=off&sched.idle_spin.cap=1000",
			shown: []string{"adaptive-spin"}, hidden: []string{"spin-floor"}},
		{desc: "policies compared: each one's knobs", frag: "#v=1&preset=tpcb-32vcpu&compare=sched.policy:osv,scx_simple",
			shown: []string{"wake-sync", "wake-pull", "balance", "policy"}},
		{desc: "a compared knob stays even where it changes nothing", frag: "#v=1&preset=hackbench&compare=sched.wake_pull",
			shown: []string{"wake-pull"}},
		{desc: "TPC-B: RX queues, not RSS with one queue, nor requests per connection", frag: "#v=1&preset=tpcb-32vcpu",
			shown: []string{"rx-queues", "balancer"}, hidden: []string{"rss", "requests-per-conn"}},
		{desc: "thread per connection: multiqueue in one arm makes RSS apply", frag: "#v=1&preset=thread-per-conn&compare=workload.rx_queues:1,16",
			shown: []string{"rx-queues", "rss", "requests-per-conn", "clients", "balancer"}},
		{desc: "hackbench: no network, no OSv balancer", frag: "#v=1&preset=hackbench",
			hidden: []string{"rx-queues", "rss", "requests-per-conn", "balancer"}},
		{desc: "balancer off: no pass to choose", frag: "#v=1&preset=tpcb-32vcpu&sched.balance_interval_ms=0",
			hidden: []string{"balancer"}},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			m := New(Options{Presets: ps, Fragment: tc.frag, Runner: runner.NewLocal(func() float64 { return 0 })})
			if len(m.problems) > 0 {
				t.Fatal(m.problems)
			}
			hidden := map[string]bool{}
			for _, cv := range m.controlsUI().Values {
				hidden[cv.ID] = cv.Hidden
			}
			for _, id := range tc.shown {
				if v, ok := hidden[id]; !ok || v {
					t.Errorf("%s is hidden or missing", id)
				}
			}
			for _, id := range tc.hidden {
				if !hidden[id] {
					t.Errorf("%s is shown but changes nothing here", id)
				}
			}
		})
	}
}

// Comparisons are offered only for knobs that change something in the scenario.
func TestCompareOptionsApply(t *testing.T) {
	ps, _ := BuiltinPresets()
	p, _ := findPreset(ps, "hackbench")
	sc, err := p.Decode()
	if err != nil {
		t.Fatal(err)
	}
	var values []string
	for _, o := range compareOptions(sc, Controls(), urlstate.CompareArms) {
		values = append(values, o.Value)
	}
	if slices.Contains(values, "sched.wake_pull") || !slices.Contains(values, "sched.wake_sync:old,new") {
		t.Errorf("hackbench (scx_simple) is offered %v: want the WAKE_SYNC rule and not OSv's idle pull", values)
	}
}

package playground

import (
	"slices"
	"strings"
	"testing"

	"schedplay/engine"
	"schedplay/playground/runner"
	"schedplay/view"
)

// The cards and the latency chart show the engine's own numbers: over the
// warm-up until the measured window begins, then over that window, as a native
// run of the same scenario measures them.
func TestCardsAndLatencyFromEngine(t *testing.T) {
	ps, _ := BuiltinPresets()
	const frag = "#v=1&preset=tpcb-32vcpu&compare=off&duration_ms=400&warmup_ms=200&workload.clients=16&speed=max"
	tests := []struct {
		desc     string
		atNs     int64
		measured bool
	}{
		{"warming up", 150_000_000, false},
		{"measuring", 300_000_000, true},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			m := New(Options{Presets: ps, Fragment: frag, Runner: runner.NewLocal(func() float64 { return 0 })})
			m.RunTo(tc.atNs)
			for i := 0; m.Playing() && i < 100000; i++ {
				m.Update(float64(i) * 16)
			}
			if m.pipe.shownNs != tc.atNs {
				t.Fatalf("the model shows %d ns, want %d", m.pipe.shownNs, tc.atNs)
			}

			sim, err := engine.NewSim(m.arms[0].Sc)
			if err != nil {
				t.Fatal(err)
			}
			warm := sim.AddWindow(0, m.arms[0].Sc.WarmupMs)
			sim.RunUntil(tc.atNs)
			window := warm
			if tc.measured {
				window = 0
			}
			want := sim.ResultsWindow(window)

			u := m.cardsUI()
			cards := map[string]string{}
			for _, c := range u.Cards {
				cards[c.ID] = c.A
			}
			for id, w := range map[string]string{
				"throughput": view.Compact(want.ThroughputPerS),
				"busy":       view.VCPUs(want.BusyVCPUsMean),
				"busy-host":  view.VCPUs(want.BusyVCPUsHostMean),
				"p99":        view.Duration(want.LatencyUs.P99 * 1e3),
				"ipis":       view.Compact(want.IPIsPerS.Total),
				"halts":      view.Compact(want.HaltExitsPerS),
			} {
				if cards[id] != w {
					t.Errorf("card %s shows %q, the engine's window gives %q", id, cards[id], w)
				}
			}
			if (u.Warmup == "") != tc.measured {
				t.Errorf("warm-up note %q while measuring is %v", u.Warmup, tc.measured)
			}
			wantHist := view.LatencyHistogram(sim.LatencyHistogram(nil, window))
			if got := m.arms[0].latency; got != wantHist || got.N != want.Completed || got.N == 0 {
				t.Errorf("latency chart counts %d requests (%+v), the engine's window %d (%+v)", got.N, got.Counts, want.Completed, wantHist.Counts)
			}
			if len(m.histChart().Bars) == 0 {
				t.Error("the latency chart draws no bars")
			}
		})
	}
}

// The host's view of busy vCPUs is shown on KVM, with the published figure
// beside the model's where the example has one (TPC-B at 64 clients: about 8
// vCPUs busy without idle pull, 27 with it). Neither it nor the halt VM exits
// card appears on bare metal, where there is no host and a halt exits nothing.
func TestBusyVCPUsHostCard(t *testing.T) {
	ps, _ := BuiltinPresets()
	tests := []struct {
		desc, frag string
		shown      bool
		published  string
	}{
		{"TPC-B at 64 clients", "#v=1&preset=tpcb-32vcpu", true, "8.0 → 27.0"},
		{"TPC-B at 32 clients: nothing published", "#v=1&preset=tpcb-32vcpu&workload.clients=32", true, ""},
		{"one arm at 64 clients", "#v=1&preset=tpcb-32vcpu&compare=off&sched.wake_pull=1", true, "27.0"},
		{"bare metal has no host", "#v=1&preset=hackbench", false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			m := New(Options{Presets: ps, Fragment: tc.frag, Runner: runner.NewLocal(func() float64 { return 0 })})
			var card *Card
			u := m.cardsUI()
			for i, c := range u.Cards {
				if c.ID == "busy-host" {
					card = &u.Cards[i]
					if i == 0 || u.Cards[i-1].ID != "busy" {
						t.Errorf("the host's busy vCPUs are not beside the guest's: cards %v", u.Cards)
					}
				}
			}
			if (card != nil) != tc.shown {
				t.Fatalf("busy-host card shown %v, want %v", card != nil, tc.shown)
			}
			halts := slices.ContainsFunc(u.Cards, func(c Card) bool { return c.ID == "halts" })
			if halts != tc.shown {
				t.Errorf("halt VM exits card shown %v, want %v", halts, tc.shown)
			}
			if card != nil && card.Published != tc.published {
				t.Errorf("published %q, want %q", card.Published, tc.published)
			}
		})
	}
}

// On an idle guest the cards' values are tiny: they show what they can (a
// decimal of a percent, two decimals of a vCPU) and no change between values
// they show alike.
func TestCardsOnAnIdleGuest(t *testing.T) {
	ps, _ := BuiltinPresets()
	m := New(Options{Presets: ps, Fragment: "#v=1&preset=idle-guest&speed=max", Runner: runner.NewLocal(func() float64 { return 0 })})
	m.RunTo(3_000_000_000)
	for i := 0; m.Playing() && i < 100000; i++ {
		m.Update(float64(i) * 16)
	}
	cards := map[string]Card{}
	for _, c := range m.cardsUI().Cards {
		cards[c.ID] = c
		if c.A == c.B && c.Change != "" {
			t.Errorf("card %s shows %s -> %s with a change of %s", c.ID, c.A, c.B, c.Change)
		}
	}
	if c := cards["busy"]; !strings.HasPrefix(c.A, "0.0") || len(c.A) != 4 {
		t.Errorf("the guest's busy vCPUs on an idle guest show %q: want two decimals of a vCPU", c.A)
	}
	if c := cards["spin-cpu"]; !strings.HasSuffix(c.B, "%") || !strings.Contains(c.B, ".") {
		t.Errorf("adaptive spin's CPU on an idle guest shows %q: want a percentage with a decimal", c.B)
	}
	if c := cards["busy-host"]; !strings.HasPrefix(c.A, "0.") || len(c.A) != 4 || c.A == c.B {
		t.Errorf("the host's busy vCPUs show %q -> %q: want two decimals, the fixed spin's larger", c.A, c.B)
	}
}

// The row-lock cards follow the scenario, so they are there from the first
// frame (before any results) and only where the runs take row locks.
func TestRowLockCardsFollowTheScenario(t *testing.T) {
	ps, _ := BuiltinPresets()
	for _, tc := range []struct {
		desc, frag string
		want       bool
	}{
		{"the TPC-B preset takes them", "#v=1&preset=tpcb-32vcpu", true},
		{"without row locks", "#v=1&preset=tpcb-32vcpu&workload.tpcb_scale=0", false},
		{"another workload", "#v=1&preset=durable-write", false},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			m := New(Options{Presets: ps, Fragment: tc.frag, Runner: runner.NewLocal(func() float64 { return 0 })})
			got := slices.ContainsFunc(m.Snapshot(0).Cards.Cards, func(c Card) bool { return c.ID == "lock-waited" })
			if got != tc.want {
				t.Errorf("a row-lock card: %v, want %v", got, tc.want)
			}
		})
	}
}

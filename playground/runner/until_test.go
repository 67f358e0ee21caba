package runner_test

import (
	"testing"

	"schedplay/engine"
	"schedplay/playground/runner"
)

// firstEventNs runs sc natively and returns when the first visual event that
// match accepts happens at or after fromNs (-1 if none before untilNs).
func firstEventNs(t *testing.T, sc engine.Scenario, fromNs, untilNs int64, match func(*engine.Sim, engine.VisEvent) bool) int64 {
	t.Helper()
	sim, err := engine.NewSim(sc)
	if err != nil {
		t.Fatal(err)
	}
	first := int64(-1)
	sim.Observe(func(e engine.VisEvent) {
		if first < 0 && e.AtNs >= fromNs && match(sim, e) {
			first = e.AtNs
		}
	})
	sim.RunUntil(untilNs)
	return first
}

// An Until checkpoint stops the arm at the first event of its kind, at the
// nanosecond the engine itself reports it, in process and over the wire; one
// that does not happen stops at ToNs; EventDone stops where the workload ends.
func TestUntilEvent(t *testing.T) {
	pullOn := scenario(t, "tpcb-32vcpu", "sched.wake_pull=true")
	pullOff := scenario(t, "tpcb-32vcpu", "sched.wake_pull=false")
	hb := scenario(t, "hackbench", "workload.hackbench.loops=20")
	// A sync wakeup across LLCs: ping on CPU 7 (LLC 0) wakes pong, last on
	// CPU 8 (LLC 1), which moves to CPU 7 (the cores-and-caches lesson).
	crossLLC := scenario(t, "saturated-sync", "sched.policy=linux", "machine.topology=1n2l4c2t",
		"workload.sync_pairs.spinners=7", "workload.sync_pairs.pairs=1")
	isPull := func(_ *engine.Sim, e engine.VisEvent) bool {
		return e.Kind == engine.VisIPISend && e.IPI == engine.IPIPull
	}
	isMigrate := func(_ *engine.Sim, e engine.VisEvent) bool { return e.Kind == engine.VisMigrate }
	hbDone, err := engine.Run(hb)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		desc         string
		sc           engine.Scenario
		fromNs, toNs int64
		until        runner.Event
		wantNs       int64
		// wantCPU is the CPU the answer selects, where the event happened, and
		// wantDecision the kind of the decision it reports there.
		wantCPU      int32
		wantDecision engine.DecisionKind
	}{
		{"first pull IPI", pullOn, 100_000_000, 1_000_000_000, runner.EventPullIPI, firstEventNs(t, pullOn, 100_000_000, 1e9, isPull), 1, engine.DecPullRequest},
		{"first migration after 300 ms", pullOff, 300_000_000, 1_000_000_000, runner.EventMigration, firstEventNs(t, pullOff, 300_000_000, 1e9, isMigrate), 0, engine.DecBalancePush},
		{"a wake that moves its thread", crossLLC, 0, 1_000_000, runner.EventMigration, firstEventNs(t, crossLLC, 0, 1e6, isMigrate), 8, engine.DecWakePlace},
		{"no pull IPI without pull", pullOff, 100_000_000, 400_000_000, runner.EventPullIPI, 400_000_000, -1, 0},
		{"done", hb, 1_000_000, hb.DurationMs * 1e6, runner.EventDone, int64(hbDone.ElapsedS*1e9 + 0.5), -1, 0},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			if tc.wantNs < tc.fromNs {
				t.Fatalf("the scenario has no such event to look for (want %d)", tc.wantNs)
			}
			p := newPipe(1)
			clock := &fakeClock{step: 0.01}
			for _, r := range []struct {
				name string
				r    runner.Runner
				work func()
			}{{"local", runner.NewLocal(clock.read), func() {}}, {"wire", p.remote, func() { p.work(2) }}} {
				r.r.Start(1, tc.sc, false)
				r.r.Advance(1, runner.Advance{Seq: 1, ToNs: tc.fromNs, Select: runner.NoSelection()})
				r.r.Advance(1, runner.Advance{Seq: 2, ToNs: tc.toNs, Until: tc.until, Select: runner.NoSelection()})
				var got []runner.Frame
				for tries := 0; len(got) < 2; tries++ {
					if tries > 100000 {
						t.Fatalf("%s: %d answers", r.name, len(got))
					}
					r.r.Pump(clock.now + 5)
					r.work()
					got = r.r.Receive(got)
				}
				if f := got[1]; f.NowNs != tc.wantNs {
					t.Errorf("%s: stopped at %d ns, want %d", r.name, f.NowNs, tc.wantNs)
				}
				if tc.until == runner.EventPullIPI && tc.wantNs < tc.toNs && got[1].Snap.Live.IPIs[engine.IPIPull] != 1 {
					t.Errorf("%s: %d pull IPIs sent when it stopped, want the first only", r.name, got[1].Snap.Live.IPIs[engine.IPIPull])
				}
				if f := got[1]; tc.wantCPU != f.Selected.CPU || tc.wantCPU >= 0 && (!f.HasDecision || f.Decision.Kind != tc.wantDecision) {
					t.Errorf("%s: the answer selects CPU %d (decision %v: %v), want CPU %d and a %v", r.name, f.Selected.CPU, f.HasDecision, f.Decision.Kind, tc.wantCPU, tc.wantDecision)
				}
			}
		})
	}
}

func TestEventNames(t *testing.T) {
	for _, name := range []string{"pull_ipi", "donation", "migration", "halt", "spin_grow", "spin_shrink", "done"} {
		e, ok := runner.EventNamed(name)
		if !ok || e.String() != name {
			t.Errorf("EventNamed(%q) = %v, %v", name, e, ok)
		}
	}
	for _, name := range []string{"", "Pull_IPI", "event?"} {
		if _, ok := runner.EventNamed(name); ok {
			t.Errorf("EventNamed(%q) accepted", name)
		}
	}
}

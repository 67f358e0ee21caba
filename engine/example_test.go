package engine_test

import (
	"fmt"

	"schedplay/engine"
)

// Two vCPUs and four clients whose backends were all forked on vCPU 0, where the
// RX thread runs. The first decision of each kind, as it happens, tells the story:
// backends are woken on their home CPU, through its incoming list even there, and
// preempt one another; vCPU 1, halted since boot, hears nothing until the first
// load_balance pass (100 ms) pushes it a backend, woken by IPI; from then on vCPU
// 1 passes through its idle loop often and each time asks vCPU 0, by pull IPI, to
// donate a queued backend, which vCPU 0 refuses when it is down to its last.
func Example_decisions() {
	sc, err := engine.DecodeScenario([]byte(`{"version":1}`),
		"machine.vcpus=2", "workload.clients=4", "duration_ms=300", "warmup_ms=0",
		"sched.wake_pull=true", "workload.service.dist=fixed", "workload.service.mean_us=50")
	if err != nil {
		panic(err)
	}
	s, err := engine.NewSim(sc)
	if err != nil {
		panic(err)
	}
	seen := map[engine.DecisionKind]bool{}
	s.Observe(func(e engine.VisEvent) {
		if e.Kind != engine.VisDecision {
			return
		}
		d := s.DecisionAt(int(e.Arg))
		if !seen[d.Kind] {
			seen[d.Kind] = true
			fmt.Printf("%s: %s\n", d.Kind, d.Reason)
		}
	})
	s.Run()
	// Output:
	// wake_place: woken on its home CPU, the waker's own: queued on its incoming list, need_reschedule set
	// preempt: a queued thread's decayed runtime is below the running thread's minus the hysteresis
	// balance_push: load_balance: least loaded CPU is below this load minus one
	// ipi_sent: target CPU is not spinning, load <= 1 and no wake pending
	// pull_request: idle with an empty runqueue; asked the busiest CPU to donate
	// donate: donated the runqueue's migratable tail to the idle CPU
	// donate_none: its runqueue holds fewer than 2 (no queued work beyond the running thread)
	// ipi_suppressed: target CPU is spinning in its idle loop and will see the wake
}

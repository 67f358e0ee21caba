package engine_test

import (
	"fmt"

	"schedplay/engine"
)

// Two CPUs, three clients whose backends were all forked on CPU 0, where the RX
// thread is pinned: the idle CPU 1 asks CPU 0 to donate, but a backend woken there
// preempts the RX thread, so CPU 0's queue holds only the pinned waker: nothing
// is migratable. The decision records say so.
func Example_decisions() {
	sc, err := engine.DecodeScenario([]byte(`{"version":1}`),
		"machine.vcpus=2", "workload.clients=3", "duration_ms=20", "warmup_ms=0",
		"sched.wake_pull=true", "workload.service.dist=fixed", "workload.service.mean_us=50")
	if err != nil {
		panic(err)
	}
	s, err := engine.NewSim(sc)
	if err != nil {
		panic(err)
	}
	s.Run()
	seen := map[engine.DecisionKind]bool{}
	for _, d := range s.Decisions(nil) {
		if !seen[d.Kind] {
			seen[d.Kind] = true
			fmt.Printf("%s: %s\n", d.Kind, d.Reason)
		}
	}
	// Output:
	// wake_place: woken on its home CPU, the waker's own
	// pull_request: idle with an empty runqueue; asked the busiest CPU to donate
	// donate_none: nothing migratable queued (only pinned threads or none)
}

package scxstar

import (
	"bytes"
	"strings"
	"testing"

	"schedplay/engine"
)

// TestStarlarkSimpleEqualsGo: examples/policies/scx_simple.star makes the
// decisions the Go scx_simple makes, so the results and the decision records
// are byte-identical, on hackbench and saturated-sync under each WAKE_SYNC
// rule.
func TestStarlarkSimpleEqualsGo(t *testing.T) {
	src := policySource(t, "scx_simple")
	for _, tc := range []struct {
		desc, example string
		sets          []string
	}{
		{"hackbench old", "hackbench", []string{"sched.wake_sync=old"}},
		{"hackbench proposed", "hackbench", []string{"sched.wake_sync=proposed"}},
		{"hackbench new", "hackbench", []string{"sched.wake_sync=new"}},
		{"saturated-sync old", "saturated-sync", []string{"sched.wake_sync=old"}},
		{"saturated-sync proposed", "saturated-sync", []string{"sched.wake_sync=proposed"}},
		{"saturated-sync new", "saturated-sync", []string{"sched.wake_sync=new"}},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			if testing.Short() && tc.example == "hackbench" && !strings.HasSuffix(tc.desc, "new") {
				t.Skip("short: hackbench under the new rule only")
			}
			sc := readExample(t, tc.example, append([]string{"sched.policy=scx_simple"}, tc.sets...)...)
			goOut, goSim := runJSON(t, sc)
			if w := goSim.Results().ScxWaiting; w.Count != 0 {
				t.Errorf("the Go scx_simple lists waiting tasks %+v: only sched.policy=scx does", w)
			}
			s, err := engine.NewSimScx(withPolicy(sc, src), CompilerNamed("policy.star"))
			if err != nil {
				t.Fatal(err)
			}
			s.SetVisual(false)
			r := s.Run()
			if r.ScxExit.Ejected() {
				t.Fatalf("the Starlark policy was ejected: %+v", r.ScxExit)
			}
			// sched.policy=scx lists the tasks its policy leaves waiting,
			// which the Go scx_simple's results do not (scx_waiting.go); the
			// decisions and every other number must be the same.
			r.ScxWaiting = engine.ScxWaiting{}
			starOut := resultsJSON(t, r, s)
			if !bytes.Equal(goOut, starOut) {
				t.Errorf("the Starlark scx_simple differs from the Go one:\ngo   %.600s\nstar %.600s", goOut, starOut)
			}
		})
	}
}

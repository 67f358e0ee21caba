package scxstar

import (
	"bytes"
	"strings"
	"testing"
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
			goOut, _ := runJSON(t, sc)
			starOut, s := runJSON(t, withPolicy(sc, src))
			if r := s.Results(); r.ScxExit.Ejected() {
				t.Fatalf("the Starlark policy was ejected: %+v", r.ScxExit)
			}
			if !bytes.Equal(goOut, starOut) {
				t.Errorf("the Starlark scx_simple differs from the Go one:\ngo   %.600s\nstar %.600s", goOut, starOut)
			}
		})
	}
}

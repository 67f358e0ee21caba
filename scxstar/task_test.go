package scxstar

import (
	"testing"

	"schedplay/engine"
)

// TestOneValuePerTask: a task is the same value in every callback and from
// every helper (Policy.task), so == between two looks at one task is True,
// and a value kept from an earlier callback reads the task as it is now.
func TestOneValuePerTask(t *testing.T) {
	src := policySource(t, "scx_simple") + `
seen = {}

def runnable(p, enq_flags):
    q = seen.get(p.pid)
    if q != None and (q != p or q.runtime != p.runtime or q.dsq_vtime != p.dsq_vtime):
        scx.error("pid %d: a kept value is another task or stale" % p.pid)
    seen[p.pid] = p

def stopping(p, runnable):
    head = scx.dsq_peek(SHARED_DSQ)
    if head != None and head.pid in seen and head != seen[head.pid]:
        scx.error("dsq_peek gave another value for pid %d" % head.pid)
`
	sc := withPolicy(readExample(t, "saturated-sync", "sched.policy=scx_simple", "duration_ms=200", "warmup_ms=20"), src)
	s, err := engine.NewSimScx(sc, CompilerNamed("policy.star"))
	if err != nil {
		t.Fatal(err)
	}
	s.SetVisual(false)
	if res := s.Run(); res.ScxExit.Ejected() {
		t.Fatalf("ejected: %s", res.ScxExit.Reason)
	}
}

package scxstar

import (
	"testing"

	"schedplay/engine"
)

// FuzzPolicy feeds random sources to Compile and runs what compiles on a short
// scenario: a source is refused with an error, or runs to the horizon, with or
// without being ejected; it never panics or hangs the run.
func FuzzPolicy(f *testing.F) {
	for _, name := range []string{"scx_simple"} {
		f.Add(policySource(f, name))
	}
	for _, src := range []string{
		"",
		"def enqueue(p, f):\n    scx.dsq_insert(p, scx.DSQ_GLOBAL, scx.SLICE_DFL)\n",
		"def select_cpu(p, c, w):\n    return -1\n",
		"def dispatch(cpu, prev):\n    scx.dsq_move_to_local(5)\n",
		"def init():\n    scx.timer_start(1000)\n\ndef timer():\n    scx.kick_cpu(0, scx.KICK_PREEMPT)\n    scx.timer_start(1000)\n",
		"s = {}\ndef running(p):\n    s[p.pid] = [p.runtime, p.dsq_vtime, (p.cpu, None)]\n",
		"def enqueue(p, f):\n    p.dsq_vtime = 1 << 62\n    scx.dsq_insert_vtime(p, 0, scx.SLICE_INF, p.dsq_vtime)\n",
	} {
		f.Add(src)
	}
	base := readExample(f, "saturated-sync", "sched.policy=scx_simple", "duration_ms=30", "warmup_ms=10")
	base.Sched.Scx.WatchdogMs = 10
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > engine.MaxScxSourceBytes {
			return
		}
		sc := withPolicy(base, src)
		s, err := engine.NewSimScx(sc, CompilerNamed("fuzz.star"))
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an empty error")
			}
			return
		}
		s.SetVisual(false)
		res := s.Run()
		if res.ScxExit.AtNs != 0 && !res.ScxExit.Ejected() {
			t.Fatal("ejected without a reason")
		}
	})
}

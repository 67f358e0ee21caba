package scxstar

import (
	"strings"
	"testing"

	"schedplay/engine"
)

// TestQmapReenqueuesWhenRTPreempts: scx_qmap's cpu_release sends the local
// DSQ of a CPU an RT task took back through enqueue (scx.reenqueue_local,
// scx.ENQ_REENQ), which puts them on the shared DSQ and kicks an idle CPU.
// The RT task runs 300 ms of each second on CPU 0, beside three sched_ext
// hogs on two CPUs: without cpu_release the hog it preempted waits the whole
// 300 ms at the head of CPU 0's local DSQ (put_prev_task_scx); with it, CPU
// 1 runs it within a few 20 ms slices.
func TestQmapReenqueuesWhenRTPreempts(t *testing.T) {
	src := policySource(t, "scx_qmap")
	cut := strings.Index(src, "\ndef cpu_release(")
	if cut < 0 {
		t.Fatal("scx_qmap.star has no cpu_release")
	}
	sc := engine.DefaultScenario()
	sc.Machine.VCPUs = 2
	sc.DurationMs, sc.WarmupMs = 3000, 0
	sc.Workload.Kind = engine.WorkloadRTApp
	sc.Workload.RTApp = `{"tasks": {"hog": {"instance": 3, "loop": -1, "run": 100000},
		"rt": {"cpus": [0], "delay": 50000, "policy": "SCHED_FIFO", "priority": 10, "loop": -1, "run": 300000, "timer": {"ref": "t", "period": 1000000}}}}`
	wait := func(policy string) float64 {
		t.Helper()
		s, err := engine.NewSimScx(withPolicy(sc, policy), CompilerNamed("scx_qmap.star"))
		if err != nil {
			t.Fatal(err)
		}
		s.SetVisual(false)
		r := s.Run()
		if r.ScxExit.Ejected() {
			t.Fatalf("ejected: %s", r.ScxExit.Reason)
		}
		return r.RunnableWaitUs.Max / 1e3
	}
	if got := wait(src[:cut]); got < 290 {
		t.Errorf("without cpu_release: longest runnable wait %.1f ms, want the RT run's 300 ms", got)
	}
	if got := wait(src); got > 100 {
		t.Errorf("scx_qmap with cpu_release: longest runnable wait %.1f ms, want a few 20 ms slices", got)
	}
}

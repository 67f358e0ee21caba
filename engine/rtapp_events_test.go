package engine

import (
	"slices"
	"testing"
)

// TestRTAppRunSleep: run is CPU time and runtime whole 32 µs chunks until its
// wall time is up (alone on a CPU, run 2000 takes 2000 µs and runtime 1000
// takes 32 chunks, 1024 µs), sleep blocks for its duration: a pass of run
// 2000, runtime 1000 and sleep 3000 lasts 6024 µs plus wake-up costs.
func TestRTAppRunSleep(t *testing.T) {
	r := runRTApp(t, `{"tasks": {"t": {"loop": 50, "run": 2000, "runtime": 1000, "sleep": 3000}}}`)
	k := rtTaskRes(t, r, "t")
	if k.Loops != 50 || k.CDurationMeanUs != 3000 {
		t.Fatalf("%d passes asking %.1f µs of run", k.Loops, k.CDurationMeanUs)
	}
	if k.RunMeanUs < 3024 || k.RunMeanUs > 3034 {
		t.Errorf("run and runtime took %.1f µs of wall time alone on a CPU, want 3024", k.RunMeanUs)
	}
	if k.PeriodMeanUs < 6024 || k.PeriodMeanUs > 6124 {
		t.Errorf("a pass lasts %.1f µs, want 6024 and the wake-up", k.PeriodMeanUs)
	}
	for _, row := range r.rows["t-0"] {
		if row.CPeriod != 0 || row.Slack != 0 || row.WuLat != 0 {
			t.Fatalf("a pass without a timer has c_period %d slack %d wu_lat %d", row.CPeriod, row.Slack, row.WuLat)
		}
	}
}

// TestRTAppAffinity: a task pinned to one CPU runs only there; one given every
// CPU is not pinned and spreads.
func TestRTAppAffinity(t *testing.T) {
	s, err := NewSim(rtappScenario(`{"tasks": {
		"pinned": {"instance": 3, "cpus": [2], "run": 700, "sleep": 300},
		"free": {"instance": 6, "cpus": [0, 1, 2, 3], "run": 900, "sleep": 100}}}`))
	if err != nil {
		t.Fatal(err)
	}
	s.SetVisual(false)
	w := s.wl.(*rtappWorkload)
	ranOn := make([]map[int]bool, len(w.thr))
	for i := range ranOn {
		ranOn[i] = map[int]bool{}
	}
	for s.Step() {
		for i := range w.thr {
			if th := w.thr[i].t; th.state == ThreadRunning {
				ranOn[i][th.cpu] = true
			}
		}
	}
	for i := range w.thr {
		th := &w.thr[i]
		pinned := w.tasks[th.task].name == "pinned"
		if th.t.pinned != pinned {
			t.Errorf("%s: pinned %v", th.t.name, th.t.pinned)
		}
		if pinned && (len(ranOn[i]) != 1 || !ranOn[i][2]) {
			t.Errorf("%s, pinned to CPU 2, ran on %v", th.t.name, ranOn[i])
		}
	}
	spread := map[int]bool{}
	for i := 3; i < len(w.thr); i++ {
		for c := range ranOn[i] {
			spread[c] = true
		}
	}
	if len(spread) < 3 {
		t.Errorf("the unpinned threads ran only on CPUs %v", spread)
	}
}

// TestRTAppRuntimeIsWallTime: sharing a CPU with a periodic thread that
// preempts it, run gets all the CPU
// time it asks for however long that takes, while runtime ends once its
// duration of wall time has passed, with less CPU time when it was
// preempted; neither ends before its duration.
func TestRTAppRuntimeIsWallTime(t *testing.T) {
	// passes returns the wall time of each pass's run event and the CPU time
	// the thread had in the pass.
	passes := func(kind string) (wall, cpu []int64) {
		s := newRTAppSim(t, `{"tasks": {"a": {"cpus": [0], "`+kind+`": 5000, "sleep": 5000},
			"tick": {"cpus": [0], "run": 300, "timer": {"ref": "unique", "period": 1000}}}}`, "sched.policy=osv")
		a := s.wl.(*rtappWorkload).thr[0].t
		last := 0.0
		if err := s.SetRTAppLog(func(r RTAppLogRow) {
			if r.Thread == "a-0" {
				ran := runNsAt(s, a, s.now)
				wall, cpu = append(wall, r.Run), append(cpu, int64(ran-last)/1000)
				last = ran
			}
		}); err != nil {
			t.Fatal(err)
		}
		s.Run()
		if len(wall) < 20 {
			t.Fatalf("%s: %d passes", kind, len(wall))
		}
		return wall, cpu
	}
	runWall, runCPU := passes("run")
	rtWall, rtCPU := passes("runtime")
	if m := slices.Min(runCPU); m < 5000 {
		t.Errorf("a pass's run got %d µs of CPU, asked 5000", m)
	}
	if slices.Max(runWall) <= 5100 {
		t.Error("run was never slowed: the test shows nothing")
	}
	if m := slices.Min(rtCPU); m >= 4900 {
		t.Errorf("runtime always got %d µs of CPU or more: nothing cut into its wall time", m)
	}
	if m := slices.Min(append(runWall, rtWall...)); m < 5000 {
		t.Errorf("a pass's run event took %d µs, below the 5000 asked", m)
	}
}

// TestRTAppIgnoredKeys: keys accepted as no-ops are listed in the results,
// with where they are, so none is dropped silently.
func TestRTAppIgnoredKeys(t *testing.T) {
	r := runRTApp(t, `{"global": {"lock_pages": false}, "tasks": {"t": {"util_min": 100, "run": 1000, "sleep": 1000}}}`)
	want := []string{
		"global.lock_pages: line 1 col 13: no-op: mlockall: the simulator has no paging",
		"tasks.t.util_min: line 1 col 51: no-op: uclamp (checked <= 1024): steers frequency and capacity-aware placement; the simulated CPUs have one fixed speed",
	}
	if !slices.Equal(r.res.RTApp.Ignored, want) {
		t.Errorf("ignored %q\nwant %q", r.res.RTApp.Ignored, want)
	}
}

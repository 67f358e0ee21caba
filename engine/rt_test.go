package engine

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// passes is task name's loop passes in r.
func passes(t *testing.T, r rtappRun, name string) float64 {
	t.Helper()
	return float64(rtTaskRes(t, r, name).Loops)
}

// TestRTClassRules: the real-time class's rules on one CPU, each against
// the split of loop passes (100 µs of work each) it predicts over 5 s.
func TestRTClassRules(t *testing.T) {
	for _, tc := range []struct {
		name, tasks string
		a, b        string
		want        float64 // a's passes over b's
		tol         float64
	}{
		// RT throttling: the FIFO hog runs 950 ms of every 1 s, the fair
		// task the other 50 ms.
		{"FIFO over fair, throttled", `"a": {"cpus": [0], "policy": "SCHED_FIFO", "priority": 50, "loop": -1, "run": 100},
			"b": {"cpus": [0], "loop": -1, "run": 100}`, "a", "b", 950.0 / 50, 0.05},
		// Equal RR tasks take turns of a timeslice each.
		{"RR equals split evenly", `"a": {"cpus": [0], "policy": "SCHED_RR", "priority": 10, "loop": -1, "run": 100},
			"b": {"cpus": [0], "policy": "SCHED_RR", "priority": 10, "loop": -1, "run": 100}`, "a", "b", 1, 0.05},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runRTApp(t, `{"tasks": {`+tc.tasks+`}}`, "sched.policy=linux", "duration_ms=5000")
			if got := passes(t, r, tc.a) / passes(t, r, tc.b); math.Abs(got/tc.want-1) > tc.tol {
				t.Errorf("%s:%s = %.2f, want %.2f", tc.a, tc.b, got, tc.want)
			}
		})
	}
}

// TestRTStarvesLowerAndFIFOEquals: a higher FIFO priority keeps the CPU from
// a lower one, and a FIFO task keeps it from its equal (no timeslice): in both
// the second task runs only in the throttled 5%, not at all.
func TestRTStarvesLowerAndFIFOEquals(t *testing.T) {
	for _, prio := range []string{"10", "50"} {
		r := runRTApp(t, `{"tasks": {"a": {"cpus": [0], "policy": "SCHED_FIFO", "priority": 50, "loop": -1, "run": 100},
			"b": {"cpus": [0], "policy": "SCHED_FIFO", "priority": `+prio+`, "loop": -1, "run": 100}}}`, "sched.policy=linux", "duration_ms=2000")
		if b := passes(t, r, "b"); b != 0 {
			t.Errorf("priority %s against 50: the second FIFO task made %.0f passes, want none", prio, b)
		}
	}
}

// TestRTSpreadsAcrossCPUs: two FIFO hogs that start on one CPU end up on
// both (select_task_rq_rt / push), and a fair task finds only throttled time.
func TestRTSpreadsAcrossCPUs(t *testing.T) {
	r := runRTApp(t, `{"tasks": {"hog": {"instance": 2, "policy": "SCHED_FIFO", "priority": 20, "loop": -1, "run": 100},
		"fair": {"loop": -1, "run": 100}}}`, "sched.policy=linux", "machine.vcpus=2", "duration_ms=3000")
	hog, fair := passes(t, r, "hog"), passes(t, r, "fair")
	// 2 CPUs × 3 s × 95% of 100 µs passes for the hogs.
	if want := 2 * 3e6 * 0.95 / 100; math.Abs(hog/want-1) > 0.05 {
		t.Errorf("the hogs made %.0f passes, want about %.0f (both CPUs, throttled to 95%%)", hog, want)
	}
	// Both CPUs throttle in the same windows (one period timer): the one
	// fair thread runs in one CPU's 5%.
	if want := 3e6 * 0.05 / 100; math.Abs(fair/want-1) > 0.1 {
		t.Errorf("the fair task made %.0f passes, want about %.0f (the 5%% windows, one CPU at a time)", fair, want)
	}
}

// TestDLAdmission: five 50% SCHED_DEADLINE tasks on two CPUs are refused,
// at the fourth (1.5 CPUs fit in 1.8, 2.0 do not), as sched_setattr refuses.
func TestDLAdmission(t *testing.T) {
	sc := rtappScenario(`{"tasks": {"d": {"instance": 5, "policy": "SCHED_DEADLINE", "dl-runtime": 5000, "dl-period": 10000, "loop": -1, "run": 4000, "timer": {"ref": "t", "period": 10000}}}}`)
	sc.Machine.VCPUs = 2
	sc.Sched.Policy = "linux"
	err := sc.Validate()
	if err == nil || !strings.Contains(err.Error(), "its thread 4 of 5: SCHED_DEADLINE admission control (sched_dl_overflow) refuses it: the reservations would total 2.00 CPUs, over the 1.80") {
		t.Fatalf("error %v, want the fourth thread refused by admission control", err)
	}
	sc.Machine.VCPUs = 3 // 2.5 of 2.7
	if err := sc.Validate(); err != nil {
		t.Errorf("on 3 CPUs: %v", err)
	}
}

// TestDLMeetsDeadlinesAndThrottles: three 40% deadline tasks on two CPUs
// meet every deadline under global EDF, ahead of a fair hog; a task whose work
// outruns its runtime is throttled to its bandwidth.
func TestDLMeetsDeadlinesAndThrottles(t *testing.T) {
	r := runRTApp(t, `{"tasks": {
		"d": {"instance": 3, "policy": "SCHED_DEADLINE", "dl-runtime": 4500, "dl-period": 10000, "loop": -1, "run": 4000, "timer": {"ref": "unique", "period": 10000}},
		"hog": {"instance": 2, "loop": -1, "run": 1000}}}`, "sched.policy=linux", "machine.vcpus=2", "duration_ms=2000")
	d := rtTaskRes(t, r, "d")
	if d.DLMisses != 0 || d.Loops < 3*190 {
		t.Errorf("deadline tasks: %d misses, %d passes; want none missed and about %d passes", d.DLMisses, d.Loops, 3*200)
	}
	r = runRTApp(t, `{"tasks": {"greedy": {"cpus": [0], "policy": "SCHED_DEADLINE", "dl-runtime": 3000, "dl-period": 10000, "loop": -1, "run": 100},
		"fair": {"cpus": [0], "loop": -1, "run": 100}}}`, "sched.policy=linux", "duration_ms=2000")
	g := rtTaskRes(t, r, "greedy")
	if share := passes(t, r, "greedy") / (passes(t, r, "greedy") + passes(t, r, "fair")); math.Abs(share-0.3) > 0.02 || g.DLThrottles < 190 {
		t.Errorf("a greedy 30%% deadline task took %.3f of its CPU, throttled %d times; want 0.30 and about 200", share, g.DLThrottles)
	}
}

// TestRTAppPhaseAffinity: rt-app's tutorial example8 as a test: a thread
// whose phases pin it to CPU 0, then CPU 1, then (inherited from its task)
// CPU 2 runs each phase there, moving when a phase begins.
func TestRTAppPhaseAffinity(t *testing.T) {
	src := `{"tasks": {"t": {"cpus": [2], "loop": 3, "phases": {
		"p1": {"cpus": [0], "loop": 1, "run": 1500},
		"p2": {"cpus": [1], "loop": 1, "run": 1500},
		"p3": {"loop": 1, "run": 1500}}}}}`
	for _, policy := range []string{"linux", "osv", "scx_simple"} {
		sc := rtappScenario(src)
		sc.Sched.Policy = policy
		s, err := NewSim(sc)
		if err != nil {
			t.Fatal(err)
		}
		var ran []int
		for s.Step() {
			for _, cp := range s.cpus {
				if cp.cur != nil && (len(ran) == 0 || ran[len(ran)-1] != cp.id) {
					ran = append(ran, cp.id)
				}
			}
		}
		want := []int{0, 1, 2, 0, 1, 2, 0, 1, 2}
		if !slices.Equal(ran, want) {
			t.Errorf("%s: ran on CPUs %v, want %v", policy, ran, want)
		}
	}
}

// TestRTAppFork: rt-app's tutorial example9: thread3 forks a thread of
// thread1 in its first phase and one of thread2 (which has no instance of
// its own) in its second; thread1 runs twice in all, thread2 once, and each
// forked thread runs its script from the start. Under linux a fork goes to
// an idle CPU (find_idlest_cpu).
func TestRTAppFork(t *testing.T) {
	src := `{"tasks": {
		"thread1": {"loop": 1, "phases": {"phase1": {"run": 10000, "sleep": 10000}}},
		"thread2": {"instance": 0, "loop": 1, "phases": {"phase1": {"run": 20000, "sleep": 20000}}},
		"thread3": {"loop": 1, "phases": {"phase1": {"fork": "thread1", "run": 10000, "sleep": 10000},
			"phase2": {"fork": "thread2", "run": 20000, "sleep": 20000}}}}}`
	for _, policy := range []string{"linux", "osv", "scx_simple"} {
		r := runRTApp(t, src, "sched.policy="+policy)
		for name, want := range map[string]int{"thread1": 2, "thread2": 1, "thread3": 1} {
			k := rtTaskRes(t, r, name)
			if k.Threads != want || k.Finished != want || k.Loops != int64(2*want) && name == "thread3" || name != "thread3" && k.Loops != int64(want) {
				t.Errorf("%s: %s: %d threads, %d finished, %d passes; want %d threads, all finished", policy, name, k.Threads, k.Finished, k.Loops, want)
			}
		}
	}
}

// TestTimerSlackByClass: a SCHED_OTHER task's timer fires its timer slack
// late (rt-app's wu_lat counts from the expiry it asked for), a SCHED_FIFO
// task's does not, and OSv has none.
func TestTimerSlackByClass(t *testing.T) {
	for _, tc := range []struct {
		policy, class string
		slackUs       float64
	}{{"linux", `"policy": "SCHED_OTHER"`, 50}, {"linux", `"policy": "SCHED_FIFO", "priority": 10`, 0}, {"osv", `"policy": "SCHED_OTHER"`, 0}} {
		r := runRTApp(t, `{"tasks": {"t": {`+tc.class+`, "cpus": [1], "loop": -1, "run": 100, "timer": {"ref": "unique", "period": 1000}}}}`,
			"sched.policy="+tc.policy, "machine.platform=native", "duration_ms=200")
		lat := rtTaskRes(t, r, "t").WuLatMeanUs
		if lat < tc.slackUs || lat > tc.slackUs+20 {
			t.Errorf("%s %s: wake-up latency %.1f µs, want the slack's %.0f µs and a few more", tc.policy, tc.class, lat, tc.slackUs)
		}
	}
}

// TestRTAppPhaseChangesPolicy: a task that shares its CPU with a fair task
// for 500 passes, then becomes SCHED_FIFO in its next phase, takes the CPU
// from then on (the fair task keeps only RT throttling's windows); one that
// instead drops to nice 19 leaves the fair task 1024:15 of it.
func TestRTAppPhaseChangesPolicy(t *testing.T) {
	run := func(second string) (a, b float64) {
		r := runRTApp(t, `{"tasks": {
			"a": {"cpus": [0], "loop": -1, "phases": {"p1": {"loop": 500, "run": 1000}, "p2": {`+second+`, "loop": 100000, "run": 1000}}},
			"b": {"cpus": [0], "loop": -1, "run": 1000}}}`, "sched.policy=linux", "duration_ms=3000")
		return passes(t, r, "a"), passes(t, r, "b")
	}
	// The first second: 500 passes each. Then 2 s of FIFO, throttled 5%.
	a, b := run(`"policy": "SCHED_FIFO", "priority": 10`)
	if wantB := 500 + 2000*0.05; math.Abs(b/wantB-1) > 0.15 || a < 2300 {
		t.Errorf("FIFO after 500 passes: a %.0f, b %.0f passes; want a above 2300 and b about %.0f", a, b, wantB)
	}
	// Then 2 s at nice 19 against nice 0: b takes 1024/1039 of it.
	a, b = run(`"priority": 19`)
	if wantB := 500 + 2000*1024.0/1039; math.Abs(b/wantB-1) > 0.03 {
		t.Errorf("nice 19 after 500 passes: a %.0f, b %.0f passes; want b about %.0f", a, b, wantB)
	}
}

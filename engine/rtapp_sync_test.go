package engine

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestRTAppSuspendOnSharedName: suspend and resume name a shared condition
// variable, not a task (rt-app 1.0's rtapp_suspend and rtapp_resume): threads
// of two tasks suspend on one name and every resume wakes them all, and a
// resume that finds nobody suspended is lost.
func TestRTAppSuspendOnSharedName(t *testing.T) {
	r := runRTApp(t, `{"tasks": {
		"s": {"instance": 2, "delay": 2000, "loop": -1, "suspend": "go", "run": 100},
		"u": {"delay": 2000, "loop": -1, "suspend": "go", "run": 100},
		"r": {"loop": 5, "resume": "go", "sleep": 5000}}}`)
	// The resume at 0 comes before anyone suspends (they start at 2 ms); the
	// four at 5, 10, 15 and 20 ms each wake all three.
	if s, u := rtTaskRes(t, r, "s").Loops, rtTaskRes(t, r, "u").Loops; s != 8 || u != 4 {
		t.Errorf("s made %d passes and u %d, want 8 and 4: four resumes each waking three threads", s, u)
	}
}

// TestRTAppSuspendOwnName: a suspend with no value, or an empty one, waits
// on its own task's name, as workgen fills it in.
func TestRTAppSuspendOwnName(t *testing.T) {
	r := runRTApp(t, `{"tasks": {
		"bare": {"loop": -1,
			"suspend",
			"run": 100},
		"empty": {"loop": -1, "suspend": "", "run": 100},
		"r": {"loop": 3, "sleep": 1000, "resume": "bare", "resume1": "empty"}}}`)
	for _, name := range []string{"bare", "empty"} {
		if got := rtTaskRes(t, r, name).Loops; got != 3 {
			t.Errorf("%s made %d passes, want 3: one for each resume of its own name", name, got)
		}
	}
}

// TestRTAppMutexIsNotHandedOver: glibc's unlock wakes a sleeper but hands it
// nothing. a and b, each on its own CPU, lock, work 2 ms and unlock with
// nothing in between, so a, still on its CPU, takes the lock again before b,
// woken 20 µs away on a halted vCPU, runs: b finds it taken and sleeps again.
// With rt-app's logs kept in memory nothing ever slows a between unlock and
// lock, and b never gets the lock; written to their files as the run goes,
// each thread's 4 KB log buffer goes out in a write of 33 µs once in about 32
// passes, and b gets in then: the lock changes hands once a buffer (rt-app
// on this machine: 26 to 36 passes, docs/validation.md). A lock handed to the
// oldest waiter would alternate.
func TestRTAppMutexIsNotHandedOver(t *testing.T) {
	const src = `{"global": {"log_size": LOG}, "tasks": {
		"a": {"cpus": [0], "loop": -1, "lock": "m", "run": 2000, "unlock": "m"},
		"b": {"cpus": [1], "delay": 500, "loop": -1, "lock": "m", "run": 2000, "unlock": "m"}}}`
	// Passes of a pass's buffer: the header lines, then 124-byte rows.
	perBuffer := (rtappLogBufferBytes - int(rtappLogStart("SCHED_OTHER", 0))) / 124
	for _, tc := range []struct {
		log          string
		minRun       int
		maxRun       int
		bGetsTheLock bool
	}{
		{`"disable"`, 150, 1 << 30, false},
		{`16`, 150, 1 << 30, false},
		{`"file"`, perBuffer - 2, perBuffer + 2, true},
	} {
		s := newRTAppSim(t, strings.Replace(src, "LOG", tc.log, 1), "duration_ms=400", "machine.vcpus=2")
		w := s.wl.(*rtappWorkload)
		b := &w.thr[1]
		woken := 0
		prev := b.wait
		var order []string
		if err := s.SetRTAppLog(func(r RTAppLogRow) { order = append(order, r.Thread) }); err != nil {
			t.Fatal(err)
		}
		for s.Step() {
			if b.wait == rtGranted && prev != rtGranted {
				woken++
				if w.sync.owner[0] == 1 {
					t.Fatalf("log_size %s: at %d ns b was woken holding the lock: it was handed over", tc.log, s.NowNs())
				}
			}
			prev = b.wait
		}
		runs := passRuns(order)
		longest, bPasses := slices.Max(runs), int(rtTaskResOf(t, s.Results(), "b").Loops)
		if len(order) < 150 || (bPasses > 0) != tc.bGetsTheLock {
			t.Errorf("log_size %s: %d passes, b's %d", tc.log, len(order), bPasses)
		}
		// Every run but the one the end cuts short.
		if inner := runs[:len(runs)-1]; len(inner) > 0 && (slices.Min(inner) < tc.minRun || slices.Max(inner) > tc.maxRun) || longest < tc.minRun {
			t.Errorf("log_size %s: the lock stayed %v passes in a row with one thread, want %d to %d", tc.log, runs, tc.minRun, tc.maxRun)
		}
		if woken < len(order)/2 {
			t.Errorf("log_size %s: b was woken %d times in %d passes: an unlock with a sleeper must wake it", tc.log, woken, len(order))
		}
	}
}

// passRuns is the lengths of the runs of consecutive passes by one thread in
// order, the passes' threads in the order they ended.
func passRuns(order []string) []int {
	var runs []int
	for i := range order {
		if i > 0 && order[i] == order[i-1] {
			runs[len(runs)-1]++
		} else {
			runs = append(runs, 1)
		}
	}
	return runs
}

// rtTaskResOf returns task name's figures in r.
func rtTaskResOf(t *testing.T, r Results, name string) RTAppTaskResults {
	t.Helper()
	return rtTaskRes(t, rtappRun{res: r}, name)
}

// TestRTAppBarrierPassesAlone: rt-app's barrier restores its count only when
// each woken waiter has taken the barrier's mutex back, so a thread that comes
// back before the woken one has run finds the count at 0 again and passes
// alone. With no host halt polling and no idle spin a woken vCPU takes over
// 20 µs to run, longer than a 10 µs phase: passes come in runs of one thread.
func TestRTAppBarrierPassesAlone(t *testing.T) {
	r := runRTApp(t, `{"tasks": {
		"a": {"loop": -1, "run": 10, "barrier": "b"},
		"b": {"loop": -1, "run": 10, "barrier": "b"}}}`,
		"machine.vcpus=2", "machine.platform=kvm", "machine.host_halt_poll_ns=0", "sched.idle_spin.cap=0", "sched.idle_spin.floor=0", "duration_ms=20")
	type pass struct {
		end    int64
		thread string
	}
	var all []pass
	for name, rows := range r.rows {
		for _, row := range rows {
			all = append(all, pass{row.End, name})
		}
	}
	slices.SortFunc(all, func(x, y pass) int {
		if x.end != y.end {
			return int(x.end - y.end)
		}
		return strings.Compare(x.thread, y.thread)
	})
	order := make([]string, len(all))
	for i, p := range all {
		order[i] = p.thread
	}
	longest := slices.Max(passRuns(order))
	if len(all) < 200 {
		t.Fatalf("%d passes of 10 µs in 20 ms", len(all))
	}
	if longest < 2 {
		t.Errorf("no thread ever passed the barrier twice in a row (%d passes): the count is restored before the woken thread runs", len(all))
	}
}

// TestRTAppRuntimeChunks: runtime works in 32 µs chunks until its wall time
// is up, at least one (rtapp_runtime in run_event): alone on a CPU it takes
// its duration rounded up to whole chunks.
func TestRTAppRuntimeChunks(t *testing.T) {
	for _, tc := range []struct{ asked, want int64 }{{0, 32}, {10, 32}, {32, 32}, {33, 64}, {1000, 1024}} {
		r := runRTApp(t, `{"tasks": {"t": {"loop": 5, "runtime": `+strconv.FormatInt(tc.asked, 10)+`, "sleep": 100}}}`)
		// The first pass begins with the switch into the thread, before
		// its clock starts: the passes after a sleep begin at once.
		for _, row := range r.rows["t-0"][1:] {
			if row.Run < tc.want || row.Run > tc.want+2 {
				t.Errorf("runtime %d took %d µs, want %d", tc.asked, row.Run, tc.want)
			}
			if row.Perf != tc.want {
				t.Errorf("runtime %d logged perf %d, want %d (a chunk is 32 of work at 1 ns per loop)", tc.asked, row.Perf, tc.want)
			}
		}
	}
}

// TestRTAppPreemptedRuntimeWholeChunks: a runtime cut short by preemption
// still does whole chunks: the CPU time it got is a multiple of 32 µs.
func TestRTAppPreemptedRuntimeWholeChunks(t *testing.T) {
	s := newRTAppSim(t, `{"tasks": {"a": {"cpus": [0], "runtime": 5000, "sleep": 5000},
		"tick": {"cpus": [0], "run": 300, "timer": {"ref": "unique", "period": 1000}}}}`, "sched.policy=osv")
	w := s.wl.(*rtappWorkload)
	a := &w.thr[0]
	cut := 0
	if err := s.SetRTAppLog(func(r RTAppLogRow) {
		if r.Thread != "a-0" {
			return
		}
		if a.runtimeNs%rtappChunkNs != 0 {
			t.Errorf("a pass's runtime ran %d ns, not whole chunks", a.runtimeNs)
		}
		if a.runtimeNs < 5000_000 {
			cut++
		}
		if r.Perf*1000 != a.runtimeNs {
			t.Errorf("perf %d for %d ns of chunks", r.Perf, a.runtimeNs)
		}
	}); err != nil {
		t.Fatal(err)
	}
	s.Run()
	if cut == 0 {
		t.Error("no runtime was cut short: the test shows nothing")
	}
}

// TestRTAppGlobalDuration: with a global.duration rt-app lives that long
// even when its threads finish before (its main sleeps it), so the run and
// its rates cover it; 0, like -1, means no limit.
func TestRTAppGlobalDuration(t *testing.T) {
	for _, tc := range []struct {
		global  string
		simS    float64
		perS    float64
		elapsed bool
	}{
		{`"duration": 1`, 1, 10, false},
		{`"duration": 0`, 0.010, 1000, true},
		{`"duration": -1`, 0.010, 1000, true},
	} {
		r := runRTApp(t, `{"global": {`+tc.global+`}, "tasks": {"t": {"loop": 10, "run": 1000}}}`)
		res := r.res
		if math.Abs(res.SimSeconds-tc.simS) > tc.simS/50 || math.Abs(res.ThroughputPerS-tc.perS) > tc.perS/50 || (res.ElapsedS > 0) != tc.elapsed {
			t.Errorf("%s: ran %.4f s at %.1f passes/s (elapsed %v), want %.3f s at %.0f/s", tc.global, res.SimSeconds, res.ThroughputPerS, res.ElapsedS, tc.simS, tc.perS)
		}
	}
}

// TestRTAppDurationCut: a run shorter than the description's global.duration
// says so in its notes.
func TestRTAppDurationCut(t *testing.T) {
	s := newRTAppSim(t, `{"global": {"duration": 600}, "tasks": {"t": {"loop": -1, "run": 1000, "sleep": 1000}}}`)
	notes := s.Run().RTApp.Notes
	if len(notes) != 1 || !strings.Contains(notes[0], "runs 600 s; this run covers its first 1 s") {
		t.Errorf("notes %q", notes)
	}
}

// TestRTAppNotes: how a description was read, where readers differ, is in
// the results: repeated keys kept as workgen keeps them (one line for all),
// and a resume that no thread can be suspended on.
func TestRTAppNotes(t *testing.T) {
	r := runRTApp(t, `{"tasks": {"t": {"loop": 3, "run": 10, "sleep": 10, "run": 20, "run": 30, "resume": "nobody"}}}`)
	want := []string{
		`tasks.t.resume: line 1 col 75: resume "nobody": no thread suspends or waits on "nobody", so it wakes nobody`,
		`repeated key kept as workgen keeps it: 2 repeated keys (the first: tasks.t.run, line 1 col 53); rt-app alone keeps only each key's last value: number the keys so that both run the same`,
	}
	if got := r.res.RTApp.Notes; !slices.Equal(got, want) {
		t.Errorf("notes\n%q, want\n%q", got, want)
	}
	if k := rtTaskRes(t, r, "t"); k.CDurationMeanUs != 60 {
		t.Errorf("a pass asks %.0f µs of run, want the three runs' 60", k.CDurationMeanUs)
	}
}

// newRTAppSim makes the simulation of src (rtappScenario) with knobs
// applied, without its visual record.
func newRTAppSim(t *testing.T, src string, knobs ...string) *Sim {
	t.Helper()
	sc, err := rtappScenario(src).WithKnobs(knobs...)
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewSim(sc)
	if err != nil {
		t.Fatal(err)
	}
	s.SetVisual(false)
	return s
}

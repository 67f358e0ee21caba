package engine

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
)

// rtappRun is one simulated rt-app run: its results and every log row, by
// thread name.
type rtappRun struct {
	res  Results
	rows map[string][]RTAppLogRow
}

// runRTApp runs src (rtappScenario: 4 vCPUs, 1 s) with the knobs applied,
// collecting the rt-app log rows.
func runRTApp(t *testing.T, src string, knobs ...string) rtappRun {
	t.Helper()
	sc := rtappScenario(src)
	if len(knobs) > 0 {
		var err error
		if sc, err = sc.WithKnobs(knobs...); err != nil {
			t.Fatal(err)
		}
	}
	s, err := NewSim(sc)
	if err != nil {
		t.Fatal(err)
	}
	s.SetVisual(false)
	r := rtappRun{rows: map[string][]RTAppLogRow{}}
	if err := s.SetRTAppLog(func(row RTAppLogRow) { r.rows[row.Thread] = append(r.rows[row.Thread], row) }); err != nil {
		t.Fatal(err)
	}
	r.res = s.Run()
	return r
}

// rtTaskRes returns the results of task name.
func rtTaskRes(t *testing.T, r rtappRun, name string) RTAppTaskResults {
	t.Helper()
	for _, k := range r.res.RTApp.Tasks {
		if k.Name == name {
			return k
		}
	}
	t.Fatalf("no task %q in %+v", name, r.res.RTApp.Tasks)
	return RTAppTaskResults{}
}

// readRTAppTestdata reads testdata/rtapp/name.
func readRTAppTestdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "rtapp", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestRTAppTimerKeepsItsGrid: an absolute timer's expiries stay on the grid
// k*period from the thread's start whatever preempts it (a hog shares its
// CPU), so every wake target (end of pass minus wu_lat) is a multiple of the
// period; a relative one restarts its grid after an overrun.
func TestRTAppTimerKeepsItsGrid(t *testing.T) {
	for _, tc := range []struct {
		mode   string
		onGrid bool
	}{{"absolute", true}, {"relative", false}} {
		t.Run(tc.mode, func(t *testing.T) {
			src := strings.ReplaceAll(readRTAppTestdata(t, "timer_grid.json"), "MODE", tc.mode)
			r := runRTApp(t, src, "sched.policy=linux")
			rows := r.rows["tick-0"]
			if len(rows) < 50 {
				t.Fatalf("%d passes of a 10 ms timer in 1 s", len(rows))
			}
			const period = 10000
			overruns, off := 0, 0
			for _, row := range rows {
				if row.Slack < 0 {
					overruns++
					continue
				}
				if target := row.End - row.WuLat; target%period != 0 {
					off++
				}
			}
			if overruns == 0 {
				t.Fatal("the hog never made the timer overrun: the test shows nothing")
			}
			if tc.onGrid && off > 0 {
				t.Errorf("%d of %d wake targets are off the %d µs grid", off, len(rows), period)
			}
			if !tc.onGrid && off == 0 {
				t.Errorf("a relative timer kept its grid through %d overruns", overruns)
			}
			if got := rtTaskRes(t, r, "tick"); got.Overruns != int64(overruns) || got.TimedLoops != int64(len(rows)) || got.CPeriodMeanUs != period {
				t.Errorf("results %+v, rows: %d overruns of %d", got, overruns, len(rows))
			}
		})
	}
}

// TestRTAppTimerIdleMachine: alone on an idle machine a periodic thread runs
// once per period, wakes within microseconds of its expiry, and has the slack
// period minus run.
func TestRTAppTimerIdleMachine(t *testing.T) {
	r := runRTApp(t, `{"tasks": {"p": {"run": 2000, "timer": {"ref": "unique", "period": 10000}}}}`)
	k := rtTaskRes(t, r, "p")
	if k.Loops < 99 || k.Loops > 100 {
		t.Errorf("%d passes of a 10 ms period in 1 s", k.Loops)
	}
	if k.WuLatMeanUs > 50 || k.WuLatMaxUs > 100 {
		t.Errorf("wake-up latency mean %.1f max %.1f µs on an idle machine", k.WuLatMeanUs, k.WuLatMaxUs)
	}
	if k.SlackMinUs < 7850 || k.SlackMeanUs < 7900 || k.SlackMeanUs > 8000 || k.Overruns != 0 {
		t.Errorf("slack mean %.1f min %.1f overruns %d, want about 8000 µs", k.SlackMeanUs, k.SlackMinUs, k.Overruns)
	}
	if k.CDurationMeanUs != 2000 || k.RunMeanUs < 2000 || k.RunMeanUs > 2010 {
		t.Errorf("run %.1f µs for c_duration %.1f", k.RunMeanUs, k.CDurationMeanUs)
	}
}

// TestRTAppSharedTimer: two threads sharing one timer advance it in turn,
// so each runs every other period; unique timers give each its own.
func TestRTAppSharedTimer(t *testing.T) {
	loops := func(ref string) int64 {
		r := runRTApp(t, `{"tasks": {"p": {"instance": 2, "run": 100, "timer": {"ref": "`+ref+`", "period": 10000}}}}`)
		return rtTaskRes(t, r, "p").Loops
	}
	shared, unique := loops("tick"), loops("unique_tick")
	if unique < 198 || shared > unique/2+2 || shared < unique/2-2 {
		t.Errorf("passes: shared timer %d, unique timers %d; want half as many shared", shared, unique)
	}
}

// TestRTAppMutexSerializes: critical sections of threads on different CPUs
// never overlap (checked after every event: at most one thread is inside,
// and it holds the mutex), and each thread gets its turn (FIFO hand-off).
func TestRTAppMutexSerializes(t *testing.T) {
	s, err := NewSim(rtappScenario(readRTAppTestdata(t, "mutex.json")))
	if err != nil {
		t.Fatal(err)
	}
	s.SetVisual(false)
	w := s.wl.(*rtappWorkload)
	entered := make([]int, len(w.thr))
	inside := -1
	for s.Step() {
		n := 0
		for i := range w.thr {
			th := &w.thr[i]
			if th.ev != 1 || th.wait != rtRun { // the run between lock and unlock
				continue
			}
			n++
			if w.sync.owner[0] != i {
				t.Fatalf("at %d ns thread %d is in the critical section, the mutex is held by %d", s.NowNs(), i, w.sync.owner[0])
			}
			if inside != i {
				entered[i]++
			}
			inside = i
		}
		if n > 1 {
			t.Fatalf("at %d ns %d threads are in the critical section", s.NowNs(), n)
		}
	}
	total := 0
	for _, n := range entered {
		total += n
	}
	for i, n := range entered {
		if n < total/3-1 {
			t.Errorf("thread %d entered %d of %d critical sections", i, n, total)
		}
	}
	if total < 1000 {
		t.Errorf("%d critical sections of 700 µs in 1 s", total)
	}
}

// TestRTAppBarrier: threads with uneven work meet at a barrier; the last to
// arrive releases them all at once, so every pass ends after the slowest
// thread's work and within a wake-up of each other.
func TestRTAppBarrier(t *testing.T) {
	r := runRTApp(t, `{"tasks": {
		"quick": {"instance": 2, "loop": 20, "run": 1000, "barrier": "b"},
		"slow": {"loop": 20, "run": 5000, "barrier": "b"}}}`)
	slow := r.rows["slow-2"]
	if len(slow) != 20 {
		t.Fatalf("slow made %d passes, want 20", len(slow))
	}
	for _, name := range []string{"quick-0", "quick-1"} {
		rows := r.rows[name]
		if len(rows) != 20 {
			t.Fatalf("%s made %d passes, want 20", name, len(rows))
		}
		for k, row := range rows {
			release := slow[k].Start + 5000
			if row.End < release || row.End > release+200 {
				t.Errorf("%s pass %d ends at %d µs; the barrier released at %d", name, k, row.End, release)
			}
		}
	}
	if r.res.ElapsedS == 0 || len(r.res.RTApp.Deadlock.Threads) > 0 {
		t.Errorf("elapsed %v s, deadlock %+v: the run should end when all are done", r.res.ElapsedS, r.res.RTApp.Deadlock)
	}
}

// TestRTAppCondvar: signal wakes one waiter, broad every one.
func TestRTAppCondvar(t *testing.T) {
	for _, tc := range []struct {
		event   string
		perPost int64
	}{{"signal", 1}, {"broad", 3}} {
		t.Run(tc.event, func(t *testing.T) {
			src := strings.ReplaceAll(readRTAppTestdata(t, "condvar.json"), "EVENT", tc.event)
			r := runRTApp(t, src)
			posts := rtTaskRes(t, r, "poster").Loops
			woken := rtTaskRes(t, r, "waiter").Loops
			if posts != 10 || woken != tc.perPost*posts {
				t.Errorf("%d %ss woke %d waiters' passes, want %d", posts, tc.event, woken, tc.perPost*posts)
			}
		})
	}
}

// TestRTAppSuspendResume: each resume wakes every suspended thread of the
// task it names, once.
func TestRTAppSuspendResume(t *testing.T) {
	r := runRTApp(t, `{"tasks": {
		"s": {"instance": 2, "loop": -1, "suspend": "s", "run": 100},
		"r": {"loop": 10, "sleep": 5000, "resume": "s"}}}`)
	if got := rtTaskRes(t, r, "s").Loops; got != 20 {
		t.Errorf("10 resumes of 2 suspended threads made %d passes, want 20", got)
	}
}

// TestRTAppSemaphore: each sem_post lets one sem_wait through.
func TestRTAppSemaphore(t *testing.T) {
	r := runRTApp(t, `{"tasks": {
		"c": {"loop": -1, "sem_wait": "s", "run": 100},
		"p": {"loop": 7, "run": 50, "sem_post": "s", "sleep": 2000}}}`)
	if got := rtTaskRes(t, r, "c").Loops; got != 7 {
		t.Errorf("7 posts let %d waits through", got)
	}
}

// TestRTAppYield: two threads on one CPU that yield after each run take
// turns, where without the yield the linux policy lets each run its slice.
func TestRTAppYield(t *testing.T) {
	turns := func(yield string) (alternations, passes int) {
		src := `{"tasks": {"a": {"cpus": [0], "run": 500` + yield + `}, "b": {"cpus": [0], "run": 500` + yield + `}}}`
		r := runRTApp(t, src, "sched.policy=linux", "duration_ms=100")
		var all []RTAppLogRow
		for _, rows := range r.rows {
			all = append(all, rows...)
		}
		slices.SortFunc(all, func(x, y RTAppLogRow) int { return int(x.End - y.End) })
		for i := 1; i < len(all); i++ {
			if all[i].Thread != all[i-1].Thread {
				alternations++
			}
		}
		return alternations, len(all)
	}
	alt, n := turns(`, "yield": ""`)
	if alt < n-2 {
		t.Errorf("with yield: %d alternations in %d passes, want every pass", alt, n)
	}
	if altNo, nNo := turns(""); altNo > nNo/3 {
		t.Errorf("without yield: %d alternations in %d passes: the test shows nothing", altNo, nNo)
	}
}

// TestRTAppDelayAndLoops: a delay holds the first pass back; task and phase
// loops give the number of passes; threads that finish end the run.
func TestRTAppDelayAndLoops(t *testing.T) {
	r := runRTApp(t, `{"tasks": {"t": {"instance": 2, "delay": 3000, "loop": 3,
		"phases": {"a": {"loop": 2, "run": 100}, "b": {"run": 200, "sleep": 300}}}}}`)
	for _, name := range []string{"t-0", "t-1"} {
		rows := r.rows[name]
		if len(rows) != 9 {
			t.Fatalf("%s made %d passes, want 3 x (2 + 1)", name, len(rows))
		}
		if rows[0].Start < 3000 || rows[0].Start > 3100 {
			t.Errorf("%s's first pass starts at %d µs, after a delay of 3000", name, rows[0].Start)
		}
		for i, row := range rows {
			want := int64(100)
			if i%3 == 2 {
				want = 200
			}
			if row.CDuration != want {
				t.Errorf("%s pass %d asked for %d µs of run, want %d", name, i, row.CDuration, want)
			}
		}
	}
	k := rtTaskRes(t, r, "t")
	if k.Finished != 2 || r.res.ElapsedS == 0 || r.res.ElapsedS > 0.01 {
		t.Errorf("finished %d threads, run ended at %v s", k.Finished, r.res.ElapsedS)
	}
}

// TestRTAppDeadlock: a run where every thread left waits for another ends
// there and names each one and what it waits for.
func TestRTAppDeadlock(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"lock order", `{"tasks": {
			"ab": {"lock": "a", "run": 1000, "lock1": "b", "unlock1": "b", "unlock": "a"},
			"ba": {"lock": "b", "run": 1000, "lock1": "a", "unlock1": "a", "unlock": "b"}}}`,
			[]string{`ab-0 ab lock "b" (held by ba-1)`, `ba-1 ba lock "a" (held by ab-0)`}},
		{"barrier that cannot fill", `{"tasks": {
			"once": {"loop": 1, "run": 100, "barrier": "b"},
			"twice": {"loop": 2, "run": 100, "barrier": "b"}}}`,
			[]string{`twice-1 twice barrier "b" (1 of 2 arrived)`}},
		{"wait with no signal", `{"tasks": {"w": {"lock": "m", "wait": {"ref": "c", "mutex": "m"}, "unlock": "m"}}}`,
			[]string{`w-0 w wait "c" (mutex "m"): no signal can come`}},
		{"suspend with no resume", `{"tasks": {"s": {"instance": 2, "run": 10, "suspend": "s"}}}`,
			[]string{`s-0 s suspend on "s": no resume of "s" can come`, `s-1 s suspend on "s": no resume of "s" can come`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runRTApp(t, tc.src)
			d := r.res.RTApp.Deadlock
			var got []string
			for _, b := range d.Threads {
				got = append(got, b.Thread+" "+b.Task+" "+b.On)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("deadlock %v\nwant %v", got, tc.want)
			}
			if d.AtMs < 0 || d.AtMs > 10 || math.Abs(r.res.ElapsedS*1000-d.AtMs) > 1e-9 {
				t.Errorf("deadlock at %v ms, run ended at %v s", d.AtMs, r.res.ElapsedS)
			}
		})
	}
}

// TestRTAppDeterministicAndResumable: the same scenario and seed give the same
// results, and a run resumed from a checkpoint gives byte-identical results
// to one that was not interrupted, under every policy.
func TestRTAppDeterministicAndResumable(t *testing.T) {
	policies, _ := LookupKnob("sched.policy")
	for _, file := range []string{"mix.json", "fork.json"} {
		src := readRTAppTestdata(t, file)
		for _, p := range policies.Choices {
			testRTAppResumable(t, file+"/"+p, src, p)
		}
	}
}

// testRTAppResumable runs src under policy p twice and from checkpoints.
func testRTAppResumable(t *testing.T, name, src, p string) {
	t.Helper()
	t.Run(name, func(t *testing.T) {
		sc, err := rtappScenario(src).WithKnobs("sched.policy="+p, "duration_ms=300")
		if err != nil {
			t.Fatal(err)
		}
		enc := func(r Results) []byte {
			t.Helper()
			b, err := json.Marshal(r, json.Deterministic(true))
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
		a, err := Run(sc)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := Run(sc)
		if !bytes.Equal(enc(a), enc(b)) {
			t.Fatal("two runs of one scenario differ")
		}
		if a.RTApp.Tasks[0].Loops == 0 {
			t.Fatalf("nothing ran: %+v", a.RTApp)
		}
		for _, at := range []int64{1e6, 77_777_777, 150e6} {
			s, _ := NewSim(sc)
			s.SetVisual(false)
			s.RunUntil(at)
			ck, err := s.AppendCheckpoint(nil, CheckpointOptions{})
			if err != nil {
				t.Fatal(err)
			}
			r, err := Resume(sc, ck)
			if err != nil {
				t.Fatalf("resume at %d ns: %v", at, err)
			}
			r.SetVisual(false)
			if got := r.Run(); !bytes.Equal(enc(got), enc(a)) {
				t.Errorf("resumed at %d ns: results differ from the uninterrupted run", at)
			}
		}
	})
}

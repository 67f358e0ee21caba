package main

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"schedplay/engine"
)

// The Linux reference's class rules against the kernel it models
// (docs/validation.md, The scheduling classes against Linux 6.18): small
// rt-app descriptions run for real on this machine (rt-app 1.0, which .ci/run
// installs) and in schedplay under sched.policy=linux on the same CPU count.
// What is compared follows from the class rules alone: how tasks pinned to one
// CPU share it. Each share is a ratio of loop passes (every pass is the same
// work), so neither this machine's speed nor rt-app's calibration enters it,
// and other processes on the CPU take from both tasks alike.

// classCase is one description (its tasks, each running 1 ms passes
// forever) and the ratio of passes (num's tasks : den's) the rule predicts,
// within tol.
type classCase struct {
	name     string
	tasks    map[string]string // task name: its keys, without run and loop
	num, den []string
	rule     string // the rule, for the table
	want     float64
	tol      float64
	// lo and hi, when set, are the band instead of want±tol; durS is the
	// run's length (default 2 s).
	lo, hi float64
	durS   int
	// busy, when set, is the one task whose share of the wall time is
	// measured instead of a ratio of passes: its passes times the median
	// pass's length, over the time from its first pass to its last. Real-time
	// and deadline tasks take their time whatever fair work the machine has,
	// so this holds on a loaded machine (CI runs packages in parallel).
	busy string
	// gaps measures busy's longest stop (a gap of 10 ms or more between
	// or inside its passes), in seconds, instead of its share.
	gaps bool
	// measured, when set, says why the real side is measured and logged
	// but not held to the band (schedplay's side is).
	measured string
}

// band is the ratios the rule allows.
func (c classCase) band() (lo, hi float64) {
	if c.hi > 0 {
		return c.lo, c.hi
	}
	return c.want * (1 - c.tol), c.want * (1 + c.tol)
}

func classCases() []classCase {
	w := func(nice int) float64 { return float64(engine.NiceWeight(nice)) }
	pair := func(name, a, b, rule string, want float64) classCase {
		return classCase{name: name, tasks: map[string]string{"a": `"cpus": [0], ` + a, "b": `"cpus": [0], ` + b},
			num: []string{"a"}, den: []string{"b"}, rule: rule, want: want, tol: 0.10}
	}
	rr := pair("SCHED_RR : SCHED_RR, equal priority", `"policy": "SCHED_RR", "priority": 10`, `"policy": "SCHED_RR", "priority": 10`,
		"turns of one 100 ms timeslice each (sched_rr_timeslice)", 1)
	rr.tol = 0.12 // a 2 s run is 19 turns: one more for one task is 11%
	// The RT period timer runs from whenever RT tasks first ran on the
	// machine, so a 4 s run holds 3 or 4 of the fair task's 50 ms windows
	// (and parts of two more): 4000-50n : 50n for n in [3, 4], ±10%.
	// RT throttling stops a FIFO hog for what is left of the period once
	// its RT time passes sched_rt_runtime_us: 50 ms of every 1 s, less up to
	// a tick before the overrun is noticed and plus the hog's wakeup
	// (45-55 ms). Its longest stop in 3 s, in seconds, is compared; the real
	// kernel's is only measured (measured says why).
	fifo := classCase{name: "SCHED_FIFO hog alone: its longest stop, s", tasks: map[string]string{"a": `"cpus": [0], "policy": "SCHED_FIFO", "priority": 50`},
		busy: "a", gaps: true, rule: "RT throttling: the rest of the 1 s period after 950 ms", want: 0.050, lo: 0.045, hi: 0.055, durS: 3,
		measured: "run alone the hog stops 50-52 ms every 1000-1004 ms, as the rule says; run right after other RT work (here, the RR case) or back to back, the real kernel's stops come shorter (12-48 ms) and fewer (one in 3 s), for a cause not yet found (docs/validation.md)"}
	// Three hogs on two CPUs, not pinned: placed round robin, a and c
	// share CPU 0 while b has CPU 1. Left there, b would make twice a's
	// passes; the periodic balancer (sched_balance_rq's migrate_load, the
	// load it may move halved by each failed balance) moves a hog from the
	// CPU running two to the one running one, so they take turns. 4 s
	// holds dozens of turns; other processes on the machine (CI runs
	// packages in parallel) disturb unpinned hogs more than pinned ones,
	// hence ±20%, which still tells turns (1) from none (2).
	three := classCase{name: "three hogs on two CPUs: b : a", tasks: map[string]string{"a": `"priority": 0`, "b": `"priority": 0`, "c": `"priority": 0`},
		num: []string{"b"}, den: []string{"a"}, rule: "periodic load balancing rotates the third hog (sched_balance_rq, migrate_load)", want: 1, tol: 0.20, durS: 4}
	return []classCase{
		three,
		pair("nice 0 : nice 10", `"priority": 0`, `"priority": 10`, "sched_prio_to_weight 1024 : 110", w(0)/w(10)),
		pair("nice -5 : nice 0", `"priority": -5`, `"priority": 0`, "sched_prio_to_weight 3121 : 1024", w(-5)/w(0)),
		pair("nice 0 : nice 0", `"priority": 0`, `"priority": 0`, "equal weights", 1),
		rr, fifo,
		// CBS: a deadline task that always has work runs its runtime of
		// every period. rt-app 1.0 cannot pin one (the kernel refuses its
		// affinity); on its own it goes where EDF puts it.
		{name: "SCHED_DEADLINE 3/10 ms, greedy: its share of the time", tasks: map[string]string{
			"d": `"policy": "SCHED_DEADLINE", "dl-runtime": 3000, "dl-deadline": 10000, "dl-period": 10000`},
			busy: "d", rule: "CBS: runtime 3 ms of every 10 ms period", want: 0.3, tol: 0.05},
	}
}

// classRuns is how many times the real side runs each case, for its spread.
const classRuns = 3

// classDesc is c as an rt-app description of durS seconds logging to dir.
func classDesc(c classCase, dir string, durS int) string {
	var tasks []string
	for _, name := range slices.Sorted(maps.Keys(c.tasks)) {
		tasks = append(tasks, fmt.Sprintf(`%q: {%s, "loop": -1, "run": 1000}`, name, c.tasks[name]))
	}
	return fmt.Sprintf(`{"global": {"duration": %d, "logdir": %q, "log_basename": "x", "calibration": 100},
		"tasks": {%s}}`, durS, dir, strings.Join(tasks, ", "))
}

// passRatio is c.num's passes over c.den's in dir's logs, or c.busy's
// share of the time.
func passRatio(t *testing.T, c classCase, dir string) float64 {
	t.Helper()
	if c.busy != "" {
		return busyShare(t, filepath.Join(dir, "x-"+c.busy+"-0.log"), c.gaps)
	}
	byTask := byTask(countPasses(t, dir, "x-"))
	sum := func(names []string) float64 {
		n := 0
		for _, name := range names {
			n += byTask[name]
		}
		return float64(n)
	}
	num, den := sum(c.num), sum(c.den)
	if num == 0 || den == 0 {
		t.Fatalf("passes %v: a side made none", byTask)
	}
	return num / den
}

func TestClassesAgainstRealKernel(t *testing.T) {
	bin := realRTApp(t)
	if os.Geteuid() != 0 {
		t.Skip("needs root: a negative nice, real-time and deadline policies")
	}
	var table []string
	for _, c := range classCases() {
		durS := max(c.durS, 2)
		lo, hi := c.band()
		t.Run(c.name, func(t *testing.T) {
			var real []float64
			var stealMs []float64 // CPU 0's steal time in each real run
			for run := range classRuns {
				dir := filepath.Join(t.TempDir(), fmt.Sprint(run))
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				file := filepath.Join(dir, "case.json")
				if err := os.WriteFile(file, []byte(classDesc(c, dir, durS)), 0o644); err != nil {
					t.Fatal(err)
				}
				cmd := exec.Command(bin, file)
				cmd.Dir = dir
				cmd.WaitDelay = 10 * time.Second
				steal0 := cpu0StealMs(t)
				if c.busy != "" && !c.gaps {
					// A share of the time is what the kernel charged the
					// task (chargedShare says why not its log).
					real = append(real, chargedShare(t, cmd, 0.5, float64(durS)-0.5))
					stealMs = append(stealMs, cpu0StealMs(t)-steal0)
					continue
				}
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("rt-app: %v\n%s", err, out)
				}
				stealMs = append(stealMs, cpu0StealMs(t)-steal0)
				real = append(real, passRatio(t, c, dir))
			}
			dir := t.TempDir()
			file := filepath.Join(dir, "case.json")
			if err := os.WriteFile(file, []byte(classDesc(c, dir, durS)), 0o644); err != nil {
				t.Fatal(err)
			}
			simDir := filepath.Join(dir, "sim")
			a := newTestApp(t, engine.Run)
			if code := a.main([]string{"run", file, "--set", "sched.policy=linux", "--set", fmt.Sprintf("machine.vcpus=%d", runtime.NumCPU()), "--rtapp-log", simDir}); code != 0 {
				t.Fatalf("schedplay: exit %d: %s", code, a.errOut)
			}
			sim := passRatio(t, c, simDir)
			slices.Sort(real)
			med := real[len(real)/2]
			table = append(table, fmt.Sprintf("| %s | %s: %.2f (band %.2f-%.2f) | %.2f (%.2f-%.2f) | %.2f | %+.1f%% |", c.name, c.rule, c.want, lo, hi, med, real[0], real[len(real)-1], sim, 100*(sim/med-1)))
			// The band is the rule's (classCases): for the weights, 10%
			// (EEVDF's lag bound over 2 s is far smaller; the rest is the
			// real machine's timer noise), a turn for RR.
			if c.measured != "" {
				t.Logf("the real kernel: %v (not held to the band %.3f-%.3f: %s)", real, lo, hi, c.measured)
				real = nil
			}
			for i, r := range real {
				if r < lo || r > hi {
					t.Errorf("the real kernel shared %.3f : 1, the rule %.3f-%.3f (run %d of %v; CPU 0's steal time in each run %v ms): the rule as modelled is not the kernel's", r, lo, hi, i, real, stealMs)
				}
			}
			if sim < lo || sim > hi {
				t.Errorf("schedplay shared %.2f : 1, the rule %.2f-%.2f", sim, lo, hi)
			}
		})
	}
	t.Logf("docs/validation.md rows (real: median of %d runs, range):\n%s", classRuns, strings.Join(table, "\n"))
}

// realRTApp is rt-app's path, or skips (fails under CI, which installs it).
func realRTApp(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("rt-app")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("rt-app is not installed: .ci/run installs Debian's rt-app package")
		}
		t.Skip("rt-app is not installed (apt-get install rt-app)")
	}
	if testing.Short() {
		t.Skip("runs rt-app for seconds a case")
	}
	return bin
}

// busyShare is a task's passes times its median pass's length (end - start)
// over the span of its log, from rt-app's log columns; with gaps, its longest
// stop of 10 ms or more (between passes, or inside one, with the pass
// itself: a few hundred µs), in seconds.
func busyShare(t *testing.T, log string, gaps bool) float64 {
	t.Helper()
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var lens, gapLens, gapStarts []int64
	var first, last int64 = -1, 0
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 || strings.HasPrefix(f[0], "#") {
			continue
		}
		start, err1 := strconv.ParseInt(f[4], 10, 64)
		end, err2 := strconv.ParseInt(f[5], 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: a row without start and end: %q", log, line)
		}
		if first < 0 {
			first = start
		}
		if start-last >= 10_000 && len(lens) > 0 {
			gapLens, gapStarts = append(gapLens, start-last), append(gapStarts, last)
		}
		if end-start >= 10_000 {
			// Throttled in the middle of a pass: the pass holds the gap.
			gapLens, gapStarts = append(gapLens, end-start), append(gapStarts, start)
		}
		last = end
		lens = append(lens, end-start)
	}
	if len(lens) < 10 || last <= first {
		t.Fatalf("%s: %d passes: too few to measure", log, len(lens))
	}
	median := func(v []int64) float64 {
		v = slices.Clone(v)
		slices.Sort(v)
		return float64(v[len(v)/2])
	}
	if gaps {
		if len(gapLens) == 0 {
			t.Fatalf("%s: no gap of 10 ms or more: the hog was never stopped", log)
		}
		return float64(slices.Max(gapLens)) / 1e6
	}
	return float64(len(lens)) * median(lens) / float64(last-first)
}

// cpu0StealMs is CPU 0's steal time so far (/proc/stat, in USER_HZ ticks of
// 10 ms), 0 where the file cannot be read.
func cpu0StealMs(t *testing.T) float64 {
	t.Helper()
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) > 8 && f[0] == "cpu0" {
			ticks, err := strconv.ParseFloat(f[8], 64)
			if err != nil {
				t.Fatalf("/proc/stat: %q: %v", line, err)
			}
			return ticks * 10
		}
	}
	return 0
}

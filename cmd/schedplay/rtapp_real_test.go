package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"schedplay/engine"
)

// rt-app itself, where it is installed (.ci/run installs Debian's, rt-app
// 1.0), against schedplay on the same descriptions: what the rules alone
// decide, not this machine's speed. Each description paces its threads with
// sleeps of 100 ms, far above any wake-up latency here, so every thread's
// count of loop passes follows from who wakes whom: suspend and resume on a
// shared name, a broadcast, a signal. (rt-app 1.0 has no semaphores: their
// events came in 2026.) The calibration is given, not measured: the counts
// do not depend on how long a run's work takes, and rt-app's own
// calibration takes seconds on a busy machine.

// realRTAppCases are descriptions of one second (LOGDIR is replaced with the
// log directory) and what is compared: each thread's passes, or only each
// task's total (a signal wakes one waiter, whichever the kernel picks).
var realRTAppCases = []struct {
	name    string
	desc    string
	byTotal bool
}{
	{"suspend and resume on a shared name, one resume before anyone suspends", `{
		"tasks": {
			"s": {"instance": 2, "delay": 20000, "loop": -1, "suspend": "go", "run": 100},
			"u": {"delay": 20000, "loop": -1, "suspend": "go", "run": 100},
			"r": {"loop": -1, "resume": "go", "sleep": 100000}}}`, false},
	{"broadcast wakes every waiter", `{
		"tasks": {
			"w": {"instance": 3, "delay": 20000, "loop": -1, "lock": "m", "wait": {"ref": "c", "mutex": "m"}, "unlock": "m", "run": 100},
			"p": {"loop": -1, "lock": "m", "broad": "c", "unlock": "m", "sleep": 100000}}}`, false},
	{"signal wakes one waiter", `{
		"tasks": {
			"w": {"instance": 2, "delay": 20000, "loop": -1, "lock": "m", "wait": {"ref": "c", "mutex": "m"}, "unlock": "m", "run": 100},
			"p": {"loop": -1, "lock": "m", "signal": "c", "unlock": "m", "sleep": 100000}}}`, true},
}

func TestRTAppAgainstRealRTApp(t *testing.T) {
	bin := realRTApp(t)
	for _, tc := range realRTAppCases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			desc := strings.Replace(tc.desc, "{", `{"global": {"duration": 1, "logdir": "`+dir+`", "log_basename": "real", "calibration": 100},`, 1)
			file := filepath.Join(dir, "case.json")
			if err := os.WriteFile(file, []byte(desc), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(bin, file)
			cmd.Dir = dir
			cmd.WaitDelay = 10 * time.Second
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("rt-app: %v\n%s", err, out)
			}
			// rt-app lets a pass under way when its duration ends finish,
			// and logs it; schedplay's run ends at the duration. The real
			// passes counted are those that ended within the duration.
			real := countPassesWithin(t, dir, "real-", time.Second)
			simDir := filepath.Join(dir, "sim")
			a := newTestApp(t, engine.Run)
			if code := a.main([]string{"run", file, "--rtapp-log", simDir}); code != 0 {
				t.Fatalf("schedplay: exit %d: %s", code, a.errOut)
			}
			sim := countPasses(t, simDir, "real-")
			if tc.byTotal {
				real, sim = byTask(real), byTask(sim)
			}
			if len(real) == 0 || len(real) != len(sim) {
				t.Fatalf("rt-app's threads %v, schedplay's %v", real, sim)
			}
			for name, n := range real {
				if sim[name] != n {
					t.Errorf("%s: rt-app made %d passes, schedplay %d (all: rt-app %v, schedplay %v)", name, n, sim[name], real, sim)
				}
			}
		})
	}
}

// countPasses counts the rows of each rt-app log (prefix<thread>.log) in dir,
// by thread name.
func countPasses(t *testing.T, dir, prefix string) map[string]int {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, prefix+"*.log"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			if line := strings.TrimSpace(sc.Text()); line != "" && !strings.HasPrefix(line, "#") {
				n++
			}
		}
		fh.Close()
		out[strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), prefix), ".log")] = n
	}
	return out
}

// countPassesWithin is countPasses over the passes that ended within d of
// the first pass's start in any of the logs (rt-app's log columns: start and
// end, in µs).
func countPassesWithin(t *testing.T, dir, prefix string, d time.Duration) map[string]int {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, prefix+"*.log"))
	if err != nil {
		t.Fatal(err)
	}
	ends := map[string][]int64{}
	first := int64(-1)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), prefix), ".log")
		ends[name] = nil
		for _, line := range strings.Split(string(data), "\n") {
			fs := strings.Fields(line)
			if len(fs) < 6 || strings.HasPrefix(fs[0], "#") {
				continue
			}
			start, err1 := strconv.ParseInt(fs[4], 10, 64)
			end, err2 := strconv.ParseInt(fs[5], 10, 64)
			if err1 != nil || err2 != nil {
				t.Fatalf("%s: a row without start and end: %q", f, line)
			}
			if first < 0 || start < first {
				first = start
			}
			ends[name] = append(ends[name], end)
		}
	}
	out := map[string]int{}
	for name, es := range ends {
		for _, e := range es {
			if e-first <= d.Microseconds() {
				out[name]++
			}
		}
	}
	return out
}

// byTask adds up the passes of each task's threads (named task-N).
func byTask(threads map[string]int) map[string]int {
	out := map[string]int{}
	for name, n := range threads {
		task := name[:strings.LastIndex(name, "-")]
		out[task] += n
	}
	return out
}

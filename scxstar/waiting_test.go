package scxstar

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"schedplay/engine"
)

// TestWaitingTasksAreListed: at the end of a run, Results.ScxWaiting counts
// the tasks the policy left runnable and not running and lists the
// longest-waiting, with since when and where: a user DSQ (the fixture
// testdata/parked.star parks odd pids in DSQ 5, which nothing consumes), the
// global DSQ, or a CPU's local DSQ.
func TestWaitingTasksAreListed(t *testing.T) {
	parked, err := os.ReadFile(filepath.Join("testdata", "parked.star"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		desc, example, src string
		minCount           int
		dsq                int64
		where              string
		oddOnly            bool
	}{
		// hackbench's 400 children are pids 1 to 400: the 200 odd ones
		// are parked from the parent's start write on.
		{"parked in a user DSQ", "hackbench", string(parked), 200, 5, "DSQ 5", true},
		// 8 spinners and 2 pairs on 4 CPUs: at least the 4 spinners not
		// running wait in the global DSQ.
		{"the global DSQ", "saturated-sync", "def enqueue(p, f):\n    scx.dsq_insert(p, scx.DSQ_GLOBAL, scx.SLICE_DFL, f)\n",
			4, engine.ScxDSQGlobal, "the global DSQ", false},
		// Every task on CPU 0: all but the one running wait in its local DSQ.
		{"a CPU's local DSQ", "saturated-sync",
			"def select_cpu(p, prev_cpu, wake_flags):\n    return 0\n\ndef enqueue(p, f):\n    scx.dsq_insert(p, scx.DSQ_LOCAL_ON | 0, scx.SLICE_DFL, f)\n",
			8, engine.ScxDSQLocalOn | 0, "CPU 0's local DSQ", false},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			sc := withPolicy(readExample(t, tc.example, "sched.policy=scx_simple", "duration_ms=200", "warmup_ms=0"), tc.src)
			s, err := engine.NewSimScx(sc, CompilerNamed("policy.star"))
			if err != nil {
				t.Fatal(err)
			}
			s.SetVisual(false)
			r := s.Run()
			if r.ScxExit.Ejected() {
				t.Fatalf("ejected: %s", r.ScxExit.Reason)
			}
			w := r.ScxWaiting
			if w.Count < tc.minCount || len(w.Tasks) != min(w.Count, engine.ScxWaitingListed) {
				t.Fatalf("%d waiting, %d listed: want at least %d, %d of them listed", w.Count, len(w.Tasks), tc.minCount, engine.ScxWaitingListed)
			}
			nowNs := int64(200e6)
			for i, x := range w.Tasks {
				if x.DSQ != tc.dsq || x.Where != tc.where || (tc.oddOnly && x.PID%2 != 1) {
					t.Errorf("task %d: %+v: want DSQ %d, %q", i, x, tc.dsq, tc.where)
				}
				if x.SinceNs < 0 || x.SinceNs >= nowNs || x.Name == "" {
					t.Errorf("task %d: %+v: want a name and a since within the run", i, x)
				}
				if i > 0 && (x.SinceNs < w.Tasks[i-1].SinceNs || x.SinceNs == w.Tasks[i-1].SinceNs && x.PID < w.Tasks[i-1].PID) {
					t.Errorf("task %d (%+v) is listed after %+v: the longest-waiting first, then by pid", i, x, w.Tasks[i-1])
				}
			}
			out, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			want := `"scx_waiting":{"count":` + strconv.Itoa(w.Count) + `,"tasks":[{"pid":`
			if !strings.Contains(string(out), want) || !strings.Contains(string(out), `"dsq":`+strconv.FormatInt(tc.dsq, 10)+`,"where":"`+tc.where+`"`) {
				t.Errorf("the JSON does not list them: %.300s", out[strings.Index(string(out), "scx_waiting"):])
			}
		})
	}
}

// TestWaitingParkedUntilTheWatchdog: the parked tasks wait until the
// watchdog's timeout ejects the policy, naming one of them; an ejected
// policy's results list no waiting tasks (the fair class runs them).
func TestWaitingParkedUntilTheWatchdog(t *testing.T) {
	parked, err := os.ReadFile(filepath.Join("testdata", "parked.star"))
	if err != nil {
		t.Fatal(err)
	}
	sc := withPolicy(readExample(t, "hackbench", "duration_ms=200", "warmup_ms=0", "sched.scx.watchdog_ms=50"), string(parked))
	s, err := engine.NewSimScx(sc, CompilerNamed("parked.star"))
	if err != nil {
		t.Fatal(err)
	}
	s.SetVisual(false)
	r := s.Run()
	m := regexp.MustCompile(`^watchdog: runnable task stall: pid (\d+) `).FindStringSubmatch(r.ScxExit.Reason)
	if m == nil {
		t.Fatalf("not ejected by the watchdog: %+v", r.ScxExit)
	}
	if pid, _ := strconv.Atoi(m[1]); pid%2 != 1 {
		t.Errorf("the watchdog names pid %d, which the policy does not park", pid)
	}
	if r.ScxWaiting.Count != 0 || r.ScxWaiting.Tasks != nil {
		t.Errorf("an ejected policy lists waiting tasks: %+v", r.ScxWaiting)
	}
}

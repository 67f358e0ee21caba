package playground

import (
	"strings"
	"testing"

	"schedplay/engine"
)

// TestPolicyWaiting: the editor's section names an arm's waiting tasks once
// the longest has waited WaitingAfterNs, with since when and on which DSQ,
// the first few by name and the rest counted, and says when the watchdog
// would eject the policy.
func TestPolicyWaiting(t *testing.T) {
	parked := func(n int, since int64) engine.ScxWaiting {
		w := engine.ScxWaiting{Count: n}
		for i := range min(n, engine.ScxWaitingListed) {
			w.Tasks = append(w.Tasks, engine.ScxWaitingTask{PID: 2*i + 1, Name: "receiver", SinceNs: since, DSQ: 5, Where: "DSQ 5"})
		}
		return w
	}
	for _, tc := range []struct {
		desc       string
		w          engine.ScxWaiting
		nowNs      int64
		watchdogMs int64
		want       []string // substrings of the message; nil: not shown
		tasks      int
	}{
		{"none waiting", engine.ScxWaiting{}, 5e9, 0, nil, 0},
		{"waiting, not yet long", parked(3, 2e6), 2e6 + WaitingAfterNs - 1, 0, nil, 0},
		{"since unknown", engine.ScxWaiting{Count: 1, Tasks: []engine.ScxWaitingTask{{PID: 1, Name: "x", SinceNs: -1, Where: "DSQ 5"}}}, 5e9, 0, nil, 0},
		{"one task, a second", parked(1, 2e6), 2e6 + WaitingAfterNs, 0,
			[]string{"1 task is runnable and not running", "pid 1 (receiver) on DSQ 5, waiting 1.00 s", "30 s, the kernel's default"}, 1},
		{"many, the rest counted", parked(200, 1900), 3e9, 0,
			[]string{"200 tasks are runnable", "pid 1 (receiver) on DSQ 5, waiting 3.00 s", "pid 3 (receiver)", "pid 5 (receiver)", ", and 197 more."}, engine.ScxWaitingListed},
		{"a watchdog set", parked(2, 0), 2e9, 5000,
			[]string{"2 tasks are", "once a task has waited 5000 ms (sched.scx.watchdog_ms)"}, 2},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			p, ok := policyWaiting("A", tc.w, tc.nowNs, tc.watchdogMs)
			if ok != (tc.want != nil) {
				t.Fatalf("shown %v, want %v: %+v", ok, tc.want != nil, p)
			}
			if !ok {
				return
			}
			if p.Arm != "A" || p.Count != tc.w.Count || len(p.Tasks) != tc.tasks {
				t.Errorf("arm %q, count %d, %d tasks: want A, %d, %d", p.Arm, p.Count, len(p.Tasks), tc.w.Count, tc.tasks)
			}
			for _, w := range tc.want {
				if !strings.Contains(p.Message, w) {
					t.Errorf("the message does not say %q:\n%s", w, p.Message)
				}
			}
			if strings.Contains(p.Message, "pid 7 ") {
				t.Errorf("the message names more than %d tasks: %s", waitingNamed, p.Message)
			}
			for i, x := range p.Tasks {
				if x.PID != tc.w.Tasks[i].PID || x.Where != "DSQ 5" || x.SinceNs != tc.w.Tasks[i].SinceNs || !strings.HasSuffix(x.Since, " s") {
					t.Errorf("task %d is %+v, from %+v", i, x, tc.w.Tasks[i])
				}
			}
		})
	}
}

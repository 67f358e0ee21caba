package engine

import (
	"fmt"
	"strings"
	"testing"
)

// Go policies that probe the sched_ext core's flow, each rule with the
// kernel function it follows (docs/mechanisms.md, The sched_ext core).

// probeOps is a configurable Go policy: a user DSQ (FIFO) that dispatch
// consumes, and hooks a test fills in.
type probeOps struct {
	ScxNoOps
	defined  ScxOpSet
	sel      func(k *ScxKernel, p ScxTask, prev int, wf int64) (int, error)
	enq      func(k *ScxKernel, p ScxTask, f int64) error
	disp     func(k *ScxKernel, cpu int, prev ScxTask) error
	tick     func(k *ScxKernel, p ScxTask) error
	runnable func(k *ScxKernel, p ScxTask, f int64) error
	quiesc   func(k *ScxKernel, p ScxTask, f int64) error
	stop     func(k *ScxKernel, p ScxTask, runnable bool) error
	idle     func(k *ScxKernel, cpu int, idle bool) error
}

const probeDSQ = 3

func (o *probeOps) Defined() ScxOpSet       { return o.defined | ScxOpInit | ScxOpEnqueue | ScxOpDispatch }
func (o *probeOps) Init(k *ScxKernel) error { return k.CreateDSQ(probeDSQ) }
func (o *probeOps) SelectCPU(k *ScxKernel, p ScxTask, prev int, wf int64) (int, error) {
	return o.sel(k, p, prev, wf)
}
func (o *probeOps) Enqueue(k *ScxKernel, p ScxTask, f int64) error {
	if o.enq != nil {
		return o.enq(k, p, f)
	}
	return k.DSQInsert(p, probeDSQ, k.SliceDflNs(), f)
}
func (o *probeOps) Dispatch(k *ScxKernel, cpu int, prev ScxTask) error {
	if o.disp != nil {
		return o.disp(k, cpu, prev)
	}
	_, err := k.DSQMoveToLocal(probeDSQ)
	return err
}
func (o *probeOps) Tick(k *ScxKernel, p ScxTask) error { return o.tick(k, p) }
func (o *probeOps) Runnable(k *ScxKernel, p ScxTask, f int64) error {
	return o.runnable(k, p, f)
}
func (o *probeOps) Quiescent(k *ScxKernel, p ScxTask, f int64) error { return o.quiesc(k, p, f) }
func (o *probeOps) Stopping(k *ScxKernel, p ScxTask, r bool) error   { return o.stop(k, p, r) }
func (o *probeOps) UpdateIdle(k *ScxKernel, cpu int, idle bool) error {
	return o.idle(k, cpu, idle)
}

// runProbe runs sc under ops to its horizon.
func runProbe(t *testing.T, sc Scenario, ops ScxOps) (*Sim, Results) {
	t.Helper()
	sc.Sched.Policy = "scx"
	sc.Sched.Scx.Source = "# the ops below stand in for its compiler\n"
	s, err := NewSimScx(sc, func(string, string, int64) (ScxOps, error) { return ops, nil })
	if err != nil {
		t.Fatal(err)
	}
	s.SetVisual(false)
	return s, s.Run()
}

// TestScxSelectedCPUIsWhereTheTaskGoes: the CPU select_cpu returns is the
// task's CPU from then on (set_task_cpu in try_to_wake_up), whether or not
// the task was inserted into a local DSQ, and an idle one is rescheduled
// (wakeup_preempt, resched_curr): a policy that sends every wake to CPU 1
// and queues it on a shared DSQ has CPU 1, and only CPU 1, rescheduled.
func TestScxSelectedCPUIsWhereTheTaskGoes(t *testing.T) {
	// hackbench's wakes come from running tasks (a socket write), so the
	// waker's CPU is busy and only the selected CPU may be rescheduled.
	sc := loadExample(t, "hackbench", "workload.hackbench.loops=20", "machine.vcpus=4", "duration_ms=500")
	wrong := 0
	ops := &probeOps{defined: ScxOpSelectCPU}
	ops.sel = func(k *ScxKernel, p ScxTask, prev int, wf int64) (int, error) { return 1, nil }
	ops.enq = func(k *ScxKernel, p ScxTask, f int64) error {
		if f&ScxEnqWakeup != 0 && p.CPU() != 1 {
			wrong++
		}
		return k.DSQInsert(p, probeDSQ, k.SliceDflNs(), f)
	}
	sc.Sched.Policy = "scx"
	sc.Sched.Scx.Source = "# the ops below stand in for its compiler\n"
	s, err := NewSimScx(sc, func(string, string, int64) (ScxOps, error) { return ops, nil })
	if err != nil {
		t.Fatal(err)
	}
	resched := make([]int, sc.Machine.VCPUs)
	s.Observe(func(e VisEvent) {
		if e.Kind != VisDecision {
			return
		}
		if d := s.DecisionAt(int(e.Arg)); (d.Kind == DecIPISent || d.Kind == DecIPISuppressed) && strings.Contains(d.Reason, "selected CPU") {
			resched[d.Target]++
		}
	})
	r := s.Run()
	if r.ScxExit.Ejected() {
		t.Fatalf("ejected: %+v", r.ScxExit)
	}
	if wrong > 0 {
		t.Errorf("enqueue saw %d woken tasks whose task_cpu is not CPU 1, the one select_cpu returned", wrong)
	}
	for cpu, n := range resched {
		if (cpu == 1) != (n > 0) {
			t.Errorf("reschedules of a selected idle CPU, by CPU: %v: want CPU 1's only", resched)
			break
		}
	}
	if r.Completed == 0 {
		t.Errorf("no work completed")
	}
}

// TestScxPinnedTaskSkipsSelectCPU: select_task_rq calls the class's
// select_task_rq only for a task allowed on more than one CPU; a pinned
// one is enqueued on its own CPU without select_cpu, and so is every task
// of a one-CPU machine.
func TestScxPinnedTaskSkipsSelectCPU(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cpus  int
		tasks string
		want  string // which wakes select_cpu may see: "free" or "none"
	}{
		{"pinned and free", 4, `{"tasks": {"pin": {"instance": 2, "cpus": [2], "run": 300, "sleep": 700}, "free": {"instance": 2, "run": 300, "sleep": 700}}}`, "free"},
		{"one CPU", 1, `{"tasks": {"free": {"instance": 2, "run": 300, "sleep": 700}}}`, "none"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := rtappScenario(tc.tasks)
			sc.Machine.VCPUs = tc.cpus
			sc.DurationMs = 100
			seen := map[string]int{}
			ops := &probeOps{defined: ScxOpSelectCPU}
			ops.sel = func(k *ScxKernel, p ScxTask, prev int, wf int64) (int, error) {
				seen[p.Name()[:3]]++
				if !p.Allowed((prev + 1) % k.NrCPUs()) {
					return 0, fmt.Errorf("select_cpu called for pinned pid %d", p.PID())
				}
				return prev, nil
			}
			_, r := runProbe(t, sc, ops)
			if r.ScxExit.Ejected() {
				t.Fatalf("ejected: %+v", r.ScxExit)
			}
			if r.Completed == 0 {
				t.Fatal("no work completed")
			}
			switch tc.want {
			case "free":
				if seen["fre"] == 0 || seen["pin"] != 0 {
					t.Errorf("select_cpu saw %v: want the free tasks' wakes only", seen)
				}
			case "none":
				if len(seen) != 0 {
					t.Errorf("select_cpu saw %v on a one-CPU machine: want none", seen)
				}
			}
		})
	}
}

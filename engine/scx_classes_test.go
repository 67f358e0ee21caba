package engine

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// Real-time and deadline tasks under a sched_ext policy (scx_classes.go):
// each rule with the kernel function it follows.

// classProbe is probeOps with cpu_release and cpu_acquire.
type classProbe struct {
	probeOps
	release func(k *ScxKernel, cpu int, reason int64, next ScxTask) error
	acquire func(k *ScxKernel, cpu int) error
}

func (o *classProbe) CPURelease(k *ScxKernel, cpu int, reason int64, next ScxTask) error {
	return o.release(k, cpu, reason, next)
}
func (o *classProbe) CPUAcquire(k *ScxKernel, cpu int) error { return o.acquire(k, cpu) }

// runClassProbe runs the rt-app description src under ops, with knobs.
func runClassProbe(t *testing.T, src string, ops ScxOps, knobs ...string) Results {
	t.Helper()
	sc := rtappScenario(src)
	sc.Sched.Policy = "scx"
	sc.Sched.Scx.Source = "# the ops below stand in for its compiler\n"
	sc, err := sc.WithKnobs(knobs...)
	if err != nil {
		t.Fatal(err)
	}
	_, r := runProbe(t, sc, ops)
	if r.ScxExit.Ejected() {
		t.Fatalf("ejected: %s", r.ScxExit.Reason)
	}
	return r
}

// TestScxRTPreemptsAtOnce: an RT or DL task that wakes on a CPU running a
// sched_ext task takes it at once (wakeup_preempt: a higher class
// reschedules), where a sched_ext task would wait for the running one's
// 20 ms slice; and it is never preempted by one. Its wake-up latency is
// then the wake's own cost, far below a slice, and each 1 ms run takes
// 1 ms of wall time.
func TestScxRTPreemptsAtOnce(t *testing.T) {
	for _, class := range []struct{ name, policy string }{
		{"FIFO", `"policy": "SCHED_FIFO", "priority": 10`},
		{"RR", `"policy": "SCHED_RR", "priority": 10`},
		{"DEADLINE", `"policy": "SCHED_DEADLINE", "dl-runtime": 2000, "dl-period": 10000`},
	} {
		policy := class.policy
		for _, sched := range []string{"scx_simple", "scx"} {
			t.Run(sched+" "+class.name, func(t *testing.T) {
				src := `{"tasks": {"hog": {"cpus": [0], "loop": -1, "run": 100000},
					"rt": {"cpus": [0], ` + policy + `, "loop": -1, "run": 1000, "timer": {"ref": "t", "period": 10000}}}}`
				var r Results
				if sched == "scx" {
					r = runClassProbe(t, src, &probeOps{}, "machine.vcpus=1", "duration_ms=2000")
				} else {
					r = runRTApp(t, src, "sched.policy=scx_simple", "machine.vcpus=1", "duration_ms=2000").res
				}
				rt, hog := rtTaskResOf(t, r, "rt"), rtTaskResOf(t, r, "hog")
				if rt.WuLatMaxUs > 100 {
					t.Errorf("the RT task's wake-up latency reached %.0f µs: it waited for the sched_ext task (slice 20 ms)", rt.WuLatMaxUs)
				}
				if rt.RunMeanUs > 1010 {
					t.Errorf("its 1 ms runs took %.0f µs of wall time: something preempted it", rt.RunMeanUs)
				}
				if rt.Loops < 195 || hog.Loops < 15 {
					t.Errorf("loops: rt %d (want ~200 in 2 s), hog %d (want ~18 of 100 ms in the other 90%%)", rt.Loops, hog.Loops)
				}
			})
		}
	}
}

// TestScxRTThrottlingFeedsSchedExt: under RT load the sched_ext task runs
// in RT throttling's window (sched_rt_runtime_us 950 ms of 1 s), as a fair
// task does under the linux policy: 6.18 has no deadline server for the ext
// class.
func TestScxRTThrottlingFeedsSchedExt(t *testing.T) {
	r := runRTApp(t, `{"tasks": {"a": {"cpus": [0], "policy": "SCHED_FIFO", "priority": 50, "loop": -1, "run": 100},
		"b": {"cpus": [0], "loop": -1, "run": 100}}}`, "sched.policy=scx_simple", "machine.vcpus=1", "duration_ms=5000")
	if got, want := passes(t, r, "a")/passes(t, r, "b"), 950.0/50; math.Abs(got/want-1) > 0.05 {
		t.Errorf("FIFO hog : sched_ext hog = %.2f, want %.2f (950 ms : 50 ms)", got, want)
	}
}

// TestScxCPUReleaseAndAcquire: cpu_release runs once each time a higher
// class takes the CPU from the ext class, with the reason of the class that
// takes it and that class's task; not again while RT or DL tasks keep the
// CPU (switch_class: once between SCX being preempted and regaining
// control), and cpu_acquire runs at the ext class's next balance there
// (balance_one). Two RT tasks woken together run back to back between one
// release and one acquire.
func TestScxCPUReleaseAndAcquire(t *testing.T) {
	for _, tc := range []struct {
		policy string
		reason int64
	}{
		{`"policy": "SCHED_FIFO", "priority": 10`, ScxCPUPreemptRT},
		{`"policy": "SCHED_DEADLINE", "dl-runtime": 2000, "dl-period": 10000`, ScxCPUPreemptDL},
	} {
		var log []string
		var rtPIDs []int
		ops := &classProbe{probeOps: probeOps{defined: ScxOpCPURelease | ScxOpCPUAcquire}}
		ops.release = func(k *ScxKernel, cpu int, reason int64, next ScxTask) error {
			if reason != tc.reason {
				return fmt.Errorf("reason %d, want %d", reason, tc.reason)
			}
			if !strings.HasPrefix(next.Name(), "rt-") {
				return fmt.Errorf("next is %s, not an RT task", next.Name())
			}
			log = append(log, "release")
			rtPIDs = append(rtPIDs, next.PID())
			return nil
		}
		ops.acquire = func(k *ScxKernel, cpu int) error {
			log = append(log, "acquire")
			return nil
		}
		r := runClassProbe(t, `{"tasks": {"hog": {"loop": -1, "run": 100000},
			"rt": {"instance": 2, `+tc.policy+`, "loop": -1, "run": 1000, "timer": {"ref": "unique", "period": 10000}}}}`,
			ops, "machine.vcpus=1", "duration_ms=1000")
		if n := rtTaskResOf(t, r, "rt").Loops; n < 190 {
			t.Fatalf("%s: the RT tasks made %d passes, want ~200", tc.policy, n)
		}
		// About one episode per 10 ms period: both tasks' runs make one.
		if len(log) < 180 || len(log) > 202 {
			t.Errorf("%s: %d callbacks in 1 s, want one release and one acquire per 10 ms period (~200)", tc.policy, len(log))
		}
		for i, e := range log {
			if want := []string{"release", "acquire"}[i%2]; e != want {
				t.Fatalf("%s: callback %d is %s, want %s: %v", tc.policy, i, e, want, log[:i+1])
			}
		}
	}
}

// TestScxReenqueueLocal: a sched_ext task preempted by a long RT task waits
// at the head of its CPU's local DSQ for the whole RT run (put_prev_task_scx
// leaves it there), unless the policy's cpu_release sends the local DSQ back
// through enqueue (scx_bpf_reenqueue_local, SCX_ENQ_REENQ), where a shared
// DSQ lets the other CPU run it within a slice or two. The RT task runs
// 300 ms of each second on CPU 0; three sched_ext hogs share two CPUs with
// 20 ms slices.
func TestScxReenqueueLocal(t *testing.T) {
	src := `{"tasks": {"hog": {"instance": 3, "loop": -1, "run": 100000},
		"rt": {"cpus": [0], "delay": 50000, "policy": "SCHED_FIFO", "priority": 10, "loop": -1, "run": 300000, "timer": {"ref": "t", "period": 1000000}}}}`
	maxWait := func(reenqueue bool) (ms float64, reenqueued int) {
		ops := &classProbe{probeOps: probeOps{defined: ScxOpCPURelease}}
		ops.release = func(k *ScxKernel, cpu int, reason int64, next ScxTask) error {
			if !reenqueue {
				return nil
			}
			_, err := k.ReenqueueLocal()
			return err
		}
		ops.enq = func(k *ScxKernel, p ScxTask, f int64) error {
			if f&ScxEnqReenq != 0 {
				reenqueued++
				if err := k.DSQInsert(p, probeDSQ, k.SliceDflNs(), f); err != nil {
					return err
				}
				if cpu, err := k.PickIdleCPU(p); err == nil && cpu >= 0 {
					return k.KickCPU(cpu, ScxKickIdle)
				}
				return nil
			}
			return k.DSQInsert(p, probeDSQ, k.SliceDflNs(), f)
		}
		r := runClassProbe(t, src, ops, "machine.vcpus=2", "duration_ms=3000")
		return r.RunnableWaitUs.Max / 1e3, reenqueued
	}
	stuck, n := maxWait(false)
	if n != 0 || stuck < 290 {
		t.Errorf("without reenqueue_local: longest runnable wait %.1f ms, want the RT run's 300 ms (reenqueued %d)", stuck, n)
	}
	moved, n := maxWait(true)
	if n < 3 || moved > 100 {
		t.Errorf("with reenqueue_local: longest runnable wait %.1f ms, want a few 20 ms slices (reenqueued %d, want one or more per RT run)", moved, n)
	}
}

// TestScxReenqueueLocalOnlyInCPURelease: scx_bpf_reenqueue_local from
// another callback is the policy's error (scx_kf_allowed), which ejects it.
func TestScxReenqueueLocalOnlyInCPURelease(t *testing.T) {
	ops := &probeOps{}
	ops.enq = func(k *ScxKernel, p ScxTask, f int64) error {
		_, err := k.ReenqueueLocal()
		return err
	}
	sc := rtappScenario(`{"tasks": {"a": {"instance": 2, "loop": 3, "run": 1000, "sleep": 1000}}}`)
	sc.Machine.VCPUs = 1
	_, r := runProbe(t, sc, ops)
	if !strings.Contains(r.ScxExit.Reason, "reenqueue_local: called from enqueue: only cpu_release may") {
		t.Errorf("exit %q, want reenqueue_local refused outside cpu_release", r.ScxExit.Reason)
	}
}

// TestScxDLAdmission: SCHED_DEADLINE's admission control is the kernel's,
// whatever class runs the other tasks (sched_dl_overflow): five 50% tasks
// on two CPUs are refused under a sched_ext policy as under linux.
func TestScxDLAdmission(t *testing.T) {
	_, err := rtappScenario(`{"tasks": {"d": {"instance": 5, "policy": "SCHED_DEADLINE", "dl-runtime": 5000, "dl-period": 10000, "loop": -1, "run": 4000}}}`).
		WithKnobs("sched.policy=scx_simple", "machine.vcpus=2")
	if err == nil || !strings.Contains(err.Error(), "its thread 4 of 5: SCHED_DEADLINE admission control (sched_dl_overflow) refuses it") {
		t.Errorf("validate: %v, want the fourth task refused by admission control", err)
	}
}

// TestScxClassesCheckpoint: a run with RT and DL tasks beside sched_ext
// ones resumes from any checkpoint as the same run (their queue, hiq, and
// the released state are kept).
func TestScxClassesCheckpoint(t *testing.T) {
	sc, err := rtappScenario(`{"tasks": {"hog": {"instance": 3, "loop": -1, "run": 30000},
		"rt": {"cpus": [0], "policy": "SCHED_FIFO", "priority": 10, "loop": -1, "run": 7000, "timer": {"ref": "t", "period": 20000}},
		"dl": {"policy": "SCHED_DEADLINE", "dl-runtime": 3000, "dl-period": 15000, "loop": -1, "run": 2000, "timer": {"ref": "u", "period": 15000}}}}`).
		WithKnobs("sched.policy=scx_simple", "machine.vcpus=2", "duration_ms=300", "warmup_ms=50")
	if err != nil {
		t.Fatal(err)
	}
	resumeIsTheSameRun(t, sc)
}

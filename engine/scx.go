package engine

import (
	"errors"
	"fmt"
	"strconv"
)

// The sched_ext core (docs/mechanisms.md, The sched_ext core;
// kernel/sched/ext.c): a policy's callbacks (ScxOps, scx_ops.go) decide, the
// core keeps the dispatch queues and runs the flow. ScxKernel is the engine's
// policy for sched.policy=scx_simple (the Go scx_simple, scx_simple.go) and
// sched.policy=scx (a policy from sched.scx.source).
//
// The flow, each step with the kernel function it follows:
//   - a wake (select_task_rq, select_task_rq_scx, then enqueue_task_scx):
//     select_cpu for a task allowed on more than one CPU, the move to the
//     CPU it returned (set_task_cpu), runnable, then enqueue unless
//     select_cpu inserted the task itself (direct dispatch). A task inserted
//     into a CPU's local DSQ goes to that CPU through the engine's wake path
//     (its incoming list and the IPI rule of wakeIPI), or straight to its
//     head with ENQ_HEAD/ENQ_PREEMPT (wakeHead); one queued on a shared DSQ
//     reschedules the selected CPU if it is idle (wakeup_preempt,
//     reschedIdle in scx_resched.go).
//   - a schedule (balance_one, scx_dispatch_sched, do_pick_task_scx,
//     put_prev_task_scx) and the tick (task_tick_scx): scx_flow.go.
//   - a task that blocks: stopping(p, false), then quiescent(p, DEQ_SLEEP)
//     (dequeue_task_scx).
//
// Invariants: a task is in at most one DSQ; a task is inserted once per
// enqueue (a second insert is the policy's error, as the kernel's
// "dispatching twice"); a DSQ holding tasks is FIFO or vtime-ordered, never
// both (dispatch_enqueue); the built-in DSQs are FIFO.
//
// What differs from the kernel (docs/mechanisms.md has the list, with the
// reasons): a task the policy does not insert in enqueue is an error (the
// kernel lets a BPF policy hold it in its own maps); an idle CPU schedules
// at every interrupt's exit (the engine's idle loop).
//
// The error exit (scx_error, scx_disable_workfn) and the watchdog
// (scx_watchdog_workfn, check_rq_for_timeouts) eject the policy: every task
// it queued goes back to the fair class (linux.go, the Linux reference) and
// Results.ScxExit says when and why.
type ScxKernel struct {
	s       *Sim
	ops     ScxOps
	defined ScxOpSet
	flags   int64 // the policy's ops flags
	// builtinIdle: the core keeps the idle cpumask (scx_builtin_idle_enabled:
	// the policy has no update_idle, or keeps it with OPS_KEEP_BUILTIN_IDLE).
	builtinIdle bool
	// perNode: the idle masks are per NUMA node (SCX_OPS_BUILTIN_IDLE_PER_NODE,
	// scx_builtin_idle_per_node; scx_nodeidle.go).
	perNode bool
	rule    syncRule
	sliceNs int64 // SCX_SLICE_DFL
	// watchdogNs is the watchdog timeout (scx_watchdog_timeout), 0 for none.
	watchdogNs int64

	global scxDSQ
	dsqs   []scxDSQ       // user DSQs, in creation order
	tasks  []scxTaskState // by thread id
	// claimed is the idle cpumask's cleared bits: a CPU is idle in the scx
	// sense when it is in its idle loop with nothing queued and not claimed
	// since it went idle (test_and_clear_cpu_idle claims it).
	claimed []bool
	// idleSeen: the policy was told the CPU went idle (update_idle(cpu,
	// true)) and not yet that it left idle.
	idleSeen []bool
	// distPrev is each calling CPU's distribute_cpu_mask_prev (the last
	// CPU its idle search returned; the last entry is a call from no CPU),
	// where cpumask_any_and_distribute starts its next search.
	distPrev []int

	// The callback running and its context.
	in      ScxOp
	thisCPU int
	cur     *thread // the task the callback is about, or nil
	// insertable is the one task the running callback may insert (the waking
	// or enqueued task); nil once inserted.
	insertable *thread
	// waking is the task a wake is placing (placeWake), else nil; wakeFrom
	// is the waker's CPU (-1 from outside), for the reschedule of the
	// selected CPU that follows a wake queued on a shared DSQ.
	waking   *thread
	wakeFrom int
	// During a wake: the local DSQ the task was inserted into (a CPU, or
	// wakeSelected for the CPU select_cpu returns), or -1; and what
	// select_cpu_dfl said.
	wakeLocal int
	wakeEnq   int64 // the enq_flags of that insert
	dflCalled bool
	dflIdle   bool
	dflReason string

	// preemptMsg is the reason of the preemption being made (a scratch).
	preemptMsg string
	// A schedule's scratch, each CPU's, used up within the event: left is
	// the sched_ext task that just left the CPU (dispatch's prev), next the
	// task a reschedule chose before its prev was enqueued again; dispatched
	// counts the tasks a dispatch call moved (balance_one's nr_tasks).
	left       []*thread
	next       []*thread
	chosen     []bool // the reschedule chose (next) before prev was put
	dispatched int
	// abovePut: a higher class's task preempts the CPU's sched_ext task,
	// whose balance ran; its put and the pick follow (scx_classes.go).
	abovePut []bool
	// notifyCPU is the CPU (plus one; 0 for none) whose idle transition
	// update_idle is reporting, and notifyIdle which way: the idle mask
	// already shows it (updateIdle).
	notifyCPU  int
	notifyIdle bool
	// released: the ext class left the CPU for a higher one and the policy
	// was told (rq->scx.cpu_released), until its next balance there.
	released []bool

	timerAt  int64 // when the policy's timer fires, or -1
	timerCPU int
	timerGen uint32

	exitNs int64
	exit   string
	// saved is the policy's state for the checkpoint being written.
	saved []byte
	fair  *linuxPolicy // the fair class after an ejection, else nil
}

// scxTaskState is the scx part of a task (struct sched_ext_entity).
type scxTaskState struct {
	slice   int64 // what is left of it, in ns, as of its last stop or insert
	granted int64 // the slice it was last inserted with (or refilled to)
	vtime   int64 // dsq_vtime
	dsq     int64 // the shared DSQ it is queued on, or scxNoDSQ
	enabled bool
}

const (
	scxNoDSQ     = -1
	wakeSelected = -2
	wakeHeadDone = -3 // a wake's insert at a local DSQ's head, done (wakeHead)
)

func newScxKernel(s *Sim, ops ScxOps) *ScxKernel {
	k := &ScxKernel{s: s, ops: ops, defined: ops.Defined(), flags: ops.Flags(), rule: parseSyncRule(s.sc.Sched.WakeSync),
		sliceNs: s.sc.Sched.ScxSliceUs * 1000, thisCPU: -1, wakeLocal: -1, timerAt: -1, exitNs: -1,
		claimed: make([]bool, len(s.cpus)), left: make([]*thread, len(s.cpus)), next: make([]*thread, len(s.cpus)),
		chosen: make([]bool, len(s.cpus)), abovePut: make([]bool, len(s.cpus)), released: make([]bool, len(s.cpus))}
	k.global.id = ScxDSQGlobal
	k.builtinIdle = k.defined&ScxOpUpdateIdle == 0 || k.flags&ScxOpsKeepBuiltinIdle != 0 // scx_idle_enable
	k.perNode = k.flags&ScxOpsBuiltinIdlePerNode != 0
	k.idleSeen = make([]bool, len(s.cpus))
	k.distPrev = make([]int, len(s.cpus)+1)
	for i := range k.distPrev {
		k.distPrev[i] = -1
	}
	if s.sc.Sched.Policy == "scx" {
		k.watchdogNs = s.sc.Sched.Scx.WatchdogMs * 1e6
		if k.watchdogNs == 0 {
			k.watchdogNs = scxWatchdogDefaultNs
		}
	}
	return k
}

// scxWatchdogDefaultNs is the kernel's SCX_WATCHDOG_MAX_TIMEOUT, the timeout
// of a policy that sets none.
const scxWatchdogDefaultNs = 30e9

// start runs init and arms the watchdog, at time 0 of a fresh simulation (a
// resumed one has its state from the checkpoint).
func (k *ScxKernel) start() {
	if k.watchdogNs > 0 {
		k.s.at(k.watchdogNs/2, evScxWatchdog, 0, 0, 0)
	}
	if msg := k.validateFlags(); msg != "" {
		k.eject(msg)
		return
	}
	if k.defined&ScxOpInit != 0 {
		k.call(ScxOpInit, -1, nil, func() error { return k.ops.Init(k) })
	}
}

// task returns t's scx state, growing the table for threads made since.
func (k *ScxKernel) task(t *thread) *scxTaskState {
	for len(k.tasks) <= t.id {
		k.tasks = append(k.tasks, scxTaskState{slice: k.sliceNs, granted: k.sliceNs, dsq: scxNoDSQ})
	}
	return &k.tasks[t.id]
}

func (k *ScxKernel) handle(t *thread) ScxTask { return ScxTask{k: k, t: t} }

// call runs one callback with its context; an error ejects the policy. It
// reports whether the callback succeeded.
func (k *ScxKernel) call(op ScxOp, cpu int, t *thread, f func() error) bool {
	if k.fair != nil {
		return false
	}
	saveIn, saveCPU, saveCur := k.in, k.thisCPU, k.cur
	k.in, k.thisCPU, k.cur = op, cpu, t
	err := f()
	k.in, k.thisCPU, k.cur = saveIn, saveCPU, saveCur
	if err != nil {
		k.fail(op, err)
		return false
	}
	return true
}

// fail ejects the policy for op's error; scx_bpf_exit's request
// (ScxExitRequest) unloads it as a disable with the exit's code and message
// (SCX_EXIT_UNREG_BPF). Apart from call, so that call allocates nothing.
func (k *ScxKernel) fail(op ScxOp, err error) {
	var exit *ScxExitRequest
	if errors.As(err, &exit) {
		k.eject(fmt.Sprintf("exit: code %d: %s (scx_bpf_exit, from %s)", exit.Code, exit.Msg, op))
		return
	}
	k.eject(fmt.Sprintf("%s: %v", op, err))
}

// ensureEnabled calls init_task, enable and set_weight the first time the
// policy sees t (scx_init_task, then scx_enable_task), each only if the
// policy defines it.
func (k *ScxKernel) ensureEnabled(t *thread) bool {
	st := k.task(t)
	if st.enabled {
		return true
	}
	st.enabled = true
	if k.defined&ScxOpInitTask != 0 && !k.initTask(t) {
		return false
	}
	if k.defined&ScxOpEnable != 0 && !k.call(ScxOpEnable, t.cpu, t, func() error { return k.ops.Enable(k, k.handle(t)) }) {
		return false
	}
	if k.defined&ScxOpSetWeight != 0 {
		return k.setWeight(t)
	}
	return true
}

// The reason select_cpu_dfl gives when it finds no idle CPU, and what a wake
// queued on a shared DSQ adds to it.
const (
	dflNoIdle   = "no idle CPU"
	sharedQueue = ": queued on a shared DSQ, on the selected CPU's runqueue (rescheduled if idle)"
)

// placeWake is the wake half of the flow (select_task_rq, then
// enqueue_task_scx): select_cpu (or select_cpu_dfl), the move to the CPU it
// returned, runnable, and enqueue unless select_cpu inserted the task.
func (k *ScxKernel) placeWake(s *Sim, t *thread, from int, sync bool) placement {
	if t.class != classFair && k.fair == nil {
		return s.placeRT(t) // its own class places it (scx_classes.go)
	}
	if k.fair != nil || !k.ensureEnabled(t) {
		return k.fair.placeWake(s, t, from, sync)
	}
	var wakeFlags int64
	if sync {
		wakeFlags = ScxWakeSync
	}
	k.wakeLocal, k.wakeEnq, k.dflCalled, k.dflIdle, k.dflReason = -1, 0, false, false, ""
	k.insertable, k.waking, k.wakeFrom = t, t, from
	defer func() { k.waking = nil }()
	cpu := t.cpu
	ok := true
	switch {
	case t.pinned || len(s.cpus) == 1:
		// select_task_rq (core.c) asks the class only for a task allowed on
		// more than one CPU (p->nr_cpus_allowed > 1, not migration-disabled);
		// one pinned stays where it is, and neither select_cpu nor
		// select_cpu_dfl runs.
	case k.defined&ScxOpSelectCPU != 0:
		ok = k.call(ScxOpSelectCPU, from, t, func() error {
			c, err := k.ops.SelectCPU(k, k.handle(t), t.cpu, wakeFlags)
			if err == nil && (c < 0 || c >= len(s.cpus)) {
				// ops_cpu_valid in select_task_rq_scx: an invalid CPU is
				// the policy's error.
				err = fmt.Errorf("select_cpu returned CPU %d for pid %d: out of range 0..%d", c, t.id, len(s.cpus)-1)
			}
			cpu = c
			return err
		})
	default:
		// No select_cpu: the kernel's default, with a direct insert into the
		// found idle CPU's local DSQ (select_task_rq_scx).
		c, idle := k.selectCPUDfl(t, t.cpu, from, wakeFlags)
		cpu = c
		if idle {
			k.insertable, k.wakeLocal = nil, wakeSelected
			k.task(t).slice, k.task(t).granted = k.sliceNs, k.sliceNs
		}
	}
	if ok && cpu != t.cpu {
		// try_to_wake_up moves the task to the selected CPU (set_task_cpu)
		// before it is enqueued there, whether or not select_cpu inserted
		// it; every CPU of a task allowed on more than one is allowed here,
		// so select_fallback_rq never has to pick another.
		s.migrateCount(t, t.cpu, cpu)
		t.cpu = cpu
	}
	if ok && k.defined&ScxOpRunnable != 0 {
		ok = k.call(ScxOpRunnable, from, t, func() error { return k.ops.Runnable(k, k.handle(t), ScxEnqWakeup) })
	}
	if ok && k.insertable != nil {
		// Not inserted by select_cpu: enqueue, on the selected CPU's runqueue.
		ok = k.enqueue(t, from, ScxEnqWakeup)
	}
	k.insertable = nil
	if !ok {
		k.takeBack(t)
		t.state = ThreadBlocked
		return k.fair.placeWake(s, t, from, sync)
	}
	if k.wakeLocal != -1 && k.wakeEnq&(ScxEnqHead|ScxEnqPreempt) != 0 {
		return k.wakeHead(t, cpu, from)
	}
	switch {
	case k.wakeLocal == wakeSelected || k.wakeLocal == cpu:
		reason := "the policy inserted it into the selected CPU's local DSQ"
		if k.dflCalled && k.dflIdle {
			reason = k.dflReason
		}
		return placement{cpu: cpu, reason: reason}
	case k.wakeLocal >= 0:
		return placement{cpu: k.wakeLocal, reason: "the policy inserted it into a CPU's local DSQ (DSQ_LOCAL_ON)"}
	}
	reason := "the policy" + sharedQueue
	if k.dflCalled {
		// The one reason select_cpu_dfl gives without an idle CPU, spelled out:
		// concatenating it allocated on every such wake, and the garbage
		// collections it brought kept the write barrier on for a fifth of a
		// hackbench run under js/wasm.
		if k.dflReason == dflNoIdle {
			reason = dflNoIdle + sharedQueue
		} else {
			reason = k.dflReason + sharedQueue
		}
	}
	return placement{cpu: cpu, shared: true, reason: reason}
}

// enqueue calls the policy's enqueue for t (or the kernel's default, the
// global DSQ) and checks that t was inserted.
func (k *ScxKernel) enqueue(t *thread, cpu int, flags int64) bool {
	k.insertable = t
	if k.defined&ScxOpEnqueue == 0 {
		k.dsqPush(&k.global, t, k.sliceNs, flags)
		k.insertable = nil
		return true
	}
	return k.call(ScxOpEnqueue, cpu, t, func() error {
		if err := k.ops.Enqueue(k, k.handle(t), flags); err != nil {
			return err
		}
		if k.insertable != nil {
			return fmt.Errorf("pid %d was not inserted into any DSQ: enqueue must insert the task (dsq_insert or dsq_insert_vtime); this core has no BPF maps to hold it", t.id)
		}
		return nil
	})
}

// wakeIPI: an insertion into an idle CPU's local DSQ kicks it; a busy one is
// not preempted (no ENQ_PREEMPT).
func (k *ScxKernel) wakeIPI(s *Sim, c *cpu, pending, spinning bool) (bool, string) {
	if k.fair != nil {
		return k.fair.wakeIPI(s, c, pending, spinning)
	}
	if spinning {
		return false, "target CPU is in its idle loop and will see the task"
	}
	if c.cur != nil {
		return false, "target CPU is running: no wakeup preemption between sched_ext tasks (wakeup_preempt_scx)"
	}
	if c.wakePending {
		return false, "a kick is already pending on the target"
	}
	return true, "kick the idle CPU whose local queue got the task"
}

func (k *ScxKernel) servePull(s *Sim, c *cpu) {}

// shared lists the tasks on the global and user DSQs.
func (k *ScxKernel) shared() []*thread {
	if len(k.dsqs) == 0 {
		return k.global.q
	}
	if len(k.global.q) == 0 && len(k.dsqs) == 1 {
		return k.dsqs[0].q
	}
	out := append([]*thread(nil), k.global.q...)
	for i := range k.dsqs {
		out = append(out, k.dsqs[i].q...)
	}
	return out
}

// sliceLeft is t's remaining slice: what it was inserted with, less what it
// ran since it was switched in.
func (k *ScxKernel) sliceLeft(t *thread) int64 {
	sl := k.task(t).slice
	if sl == ScxSliceInf {
		return ScxSliceInf
	}
	if t.state == ThreadRunning {
		sl -= k.s.now - k.s.cpus[t.cpu].dispatchNs
	}
	return max(sl, 0)
}

func (k *ScxKernel) setSlice(t *thread, ns int64) {
	ns = max(ns, 0)
	if t.state == ThreadRunning && ns != ScxSliceInf {
		ns = min(ns+k.s.now-k.s.cpus[t.cpu].dispatchNs, ScxSliceInf-1)
	}
	k.task(t).slice = ns
}

// ScxExit is why and when a sched_ext policy was ejected; the zero value is
// a run whose policy was not. A value, not a pointer: Results crosses the
// page's worker wire (AppendBinaryValue), which carries no pointers.
type ScxExit struct {
	AtNs   int64  `json:"at_ns"`
	Reason string `json:"reason"`
}

// Ejected reports whether the policy was ejected (every ejection has a reason).
func (e ScxExit) Ejected() bool { return e.Reason != "" }

// fmtMs formats ns as milliseconds, shortest form.
func fmtMs(ns int64) string { return strconv.FormatFloat(float64(ns)/1e6, 'g', -1, 64) }

// scxOpsFor makes sched.policy=scx's ops: none for another policy, the
// kernel's defaults for an empty source, else what compile makes of it.
func scxOpsFor(sc Scenario, compile ScxCompiler) (ScxOps, error) {
	if sc.Sched.Policy != "scx" {
		return nil, nil
	}
	if sc.Sched.Scx.Source == "" {
		return ScxNoOps{}, nil
	}
	if compile == nil {
		return nil, fieldErr("sched.scx.source", "a policy's source needs the Starlark binding (package scxstar), which this build does not link; schedplay's CLI does")
	}
	ops, err := compile("policy.star", sc.Sched.Scx.Source, sc.Sched.ScxSliceUs*1000)
	if err != nil {
		return nil, fieldErr("sched.scx.source", "%v", err)
	}
	return ops, nil
}

// errScxState is a policy state a checkpoint holds that the policy cannot read.
var errScxState = fmt.Errorf("the policy's saved state does not read back")

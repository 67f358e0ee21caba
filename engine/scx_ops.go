package engine

// The sched_ext policy interface (docs/mechanisms.md, The sched_ext core;
// docs/policies.md): what a policy implements (ScxOps, following struct
// sched_ext_ops in kernel/sched/ext_internal.h) and what it may call
// (ScxKernel's methods, following the scx_bpf_* kfuncs of kernel/sched/ext.c
// and ext_idle.c). The Go scx_simple (scx_simple.go) and the Starlark binding
// (package scxstar, which the engine does not import) both implement ScxOps.

// ScxOp names one callback of ScxOps; ScxOpSet is a set of them.
type ScxOp uint32

const (
	ScxOpInit ScxOp = 1 << iota
	ScxOpEnable
	ScxOpSelectCPU
	ScxOpEnqueue
	ScxOpDispatch
	ScxOpRunnable
	ScxOpRunning
	ScxOpStopping
	ScxOpQuiescent
	ScxOpUpdateIdle
	ScxOpTick
	ScxOpTimer
	ScxOpCPUAcquire
	ScxOpCPURelease
	// The task lifecycle callbacks (scx_api.go has where each is called).
	ScxOpInitTask
	ScxOpExitTask
	ScxOpSetWeight
	ScxOpDequeue
)

// ScxOpSet is the set of callbacks a policy defines; the core calls only
// those and applies the kernel's default for the rest (no select_cpu:
// select_cpu_dfl, inserting into the found idle CPU's local DSQ; no enqueue:
// the global DSQ; kernel/sched/ext.c select_task_rq_scx, do_enqueue_task).
type ScxOpSet = ScxOp

var scxOpNames = [...]string{"init", "enable", "select_cpu", "enqueue", "dispatch", "runnable",
	"running", "stopping", "quiescent", "update_idle", "tick", "timer", "cpu_acquire", "cpu_release",
	"init_task", "exit_task", "set_weight", "dequeue"}

func (o ScxOp) String() string {
	for i, n := range scxOpNames {
		if o == 1<<i {
			return n
		}
	}
	return "op?"
}

// DSQ ids and flags, in int32 range so that a Starlark policy keeps them
// small integers (the kernel's are u64 with the high bits marking built-in
// DSQs; SCX_DSQ_LOCAL_ON | cpu keeps its meaning).
const (
	ScxDSQGlobal  int64 = 1 << 30       // SCX_DSQ_GLOBAL
	ScxDSQLocal   int64 = 1<<30 | 1<<29 // SCX_DSQ_LOCAL
	ScxDSQLocalOn int64 = 1 << 28       // SCX_DSQ_LOCAL_ON | cpu
	// ScxDSQMaxUser bounds the ids create_dsq accepts: 0..ScxDSQMaxUser-1.
	ScxDSQMaxUser int64 = 1 << 20

	// ScxSliceInf is SCX_SLICE_INF (U64_MAX in the kernel, the largest
	// int64 here): the one slice that never expires; any other, however
	// long, runs out.
	ScxSliceInf int64 = 1<<63 - 1

	ScxEnqWakeup  int64 = 1 << 0 // SCX_ENQ_WAKEUP
	ScxEnqHead    int64 = 1 << 4 // SCX_ENQ_HEAD: the head of a FIFO DSQ
	ScxEnqPreempt int64 = 1 << 5 // SCX_ENQ_PREEMPT: preempt the target CPU's task
	ScxEnqLast    int64 = 1 << 6 // SCX_ENQ_LAST
	// ScxEnqReenq marks an enqueue of a task scx_bpf_reenqueue_local sent
	// back from a local DSQ (SCX_ENQ_REENQ, scx_classes.go).
	ScxEnqReenq int64 = 1 << 7

	ScxDeqSleep int64 = 1 << 0 // SCX_DEQ_SLEEP: the task blocks (DEQUEUE_SLEEP)

	ScxWakeSync int64 = 1 << 4 // SCX_WAKE_SYNC

	// Ops flags (sched_ext_ops.flags, enum scx_ops_flags): the ones this
	// core models. A policy with update_idle keeps the built-in idle
	// tracking only with OPS_KEEP_BUILTIN_IDLE; with OPS_ENQ_LAST a task
	// whose slice ran out with nothing else to run goes through enqueue
	// with ENQ_LAST instead of running on.
	ScxOpsKeepBuiltinIdle int64 = 1 << 0 // SCX_OPS_KEEP_BUILTIN_IDLE
	ScxOpsEnqLast         int64 = 1 << 1 // SCX_OPS_ENQ_LAST
	// ScxOpsBuiltinIdlePerNode keeps an idle mask per NUMA node
	// (scx_nodeidle.go).
	ScxOpsBuiltinIdlePerNode int64 = 1 << 6 // SCX_OPS_BUILTIN_IDLE_PER_NODE

	ScxKickIdle    int64 = 1 << 0 // SCX_KICK_IDLE: only if the CPU is idle
	ScxKickPreempt int64 = 1 << 1 // SCX_KICK_PREEMPT: preempt its current task
)

// ScxOps is a sched_ext policy: the callbacks of struct sched_ext_ops that
// Defined reports (the others are never called). A callback that returns an
// error ends the policy: the core ejects it and its tasks go back to the fair
// class (scx_error, scx_disable), and the run says when and why. Callbacks run
// inside the simulation's event handlers: they may call k's helpers, and must
// not keep p past the call except by its PID.
type ScxOps interface {
	Defined() ScxOpSet
	// Flags are the policy's ops flags (ScxOpsKeepBuiltinIdle, ScxOpsEnqLast).
	Flags() int64
	Init(k *ScxKernel) error
	Enable(k *ScxKernel, p ScxTask) error
	// SelectCPU picks the CPU a waking task goes to; inserting it into a DSQ
	// here dispatches it directly, and enqueue is skipped.
	SelectCPU(k *ScxKernel, p ScxTask, prevCPU int, wakeFlags int64) (int, error)
	Enqueue(k *ScxKernel, p ScxTask, enqFlags int64) error
	// Dispatch fills cpu's local DSQ; prev is the task that just left cpu,
	// runnable or blocked (prev.Valid() is false after the CPU idled).
	Dispatch(k *ScxKernel, cpu int, prev ScxTask) error
	Runnable(k *ScxKernel, p ScxTask, enqFlags int64) error
	Running(k *ScxKernel, p ScxTask) error
	Stopping(k *ScxKernel, p ScxTask, runnable bool) error
	Quiescent(k *ScxKernel, p ScxTask, deqFlags int64) error
	UpdateIdle(k *ScxKernel, cpu int, idle bool) error
	Tick(k *ScxKernel, p ScxTask) error
	Timer(k *ScxKernel) error
	// CPUAcquire runs when the ext class balances again on a CPU that a
	// higher class took (cpu_acquire); CPURelease when a real-time or
	// deadline task (next) takes cpu from the ext class (cpu_release,
	// reason ScxCPUPreemptRT or ScxCPUPreemptDL), the one place
	// ReenqueueLocal may be called.
	CPUAcquire(k *ScxKernel, cpu int) error
	CPURelease(k *ScxKernel, cpu int, reason int64, next ScxTask) error
	// InitTask runs the first time the core sees p, before Enable (fork is
	// false: every task exists when the policy loads); SetWeight right after
	// Enable, with p's weight (scx_init_task, scx_enable_task). ExitTask and
	// Dequeue are never called by this core (scx_api.go says why); a policy
	// may define them.
	InitTask(k *ScxKernel, p ScxTask, fork bool) error
	ExitTask(k *ScxKernel, p ScxTask) error
	SetWeight(k *ScxKernel, p ScxTask, weight int64) error
	Dequeue(k *ScxKernel, p ScxTask, deqFlags int64) error
	// SaveState returns the policy's own state for a checkpoint (nil when it
	// has none), and an error naming what cannot be saved; LoadState reads it
	// back into a policy made fresh from the same source.
	SaveState() ([]byte, error)
	LoadState(data []byte) error
}

// ScxCompiler makes a policy's ops from its source (sched.scx.source); the
// Starlark binding provides one. name is what errors call the source;
// sliceDflNs is SCX_SLICE_DFL (sched.scx_slice_us).
type ScxCompiler func(name, source string, sliceDflNs int64) (ScxOps, error)

// ScxNoOps defines no callback; embed it to define only some.
type ScxNoOps struct{}

func (ScxNoOps) Defined() ScxOpSet                { return 0 }
func (ScxNoOps) Flags() int64                     { return 0 }
func (ScxNoOps) Init(*ScxKernel) error            { return nil }
func (ScxNoOps) Enable(*ScxKernel, ScxTask) error { return nil }
func (ScxNoOps) SelectCPU(*ScxKernel, ScxTask, int, int64) (int, error) {
	return 0, nil
}
func (ScxNoOps) Enqueue(*ScxKernel, ScxTask, int64) error   { return nil }
func (ScxNoOps) Dispatch(*ScxKernel, int, ScxTask) error    { return nil }
func (ScxNoOps) Runnable(*ScxKernel, ScxTask, int64) error  { return nil }
func (ScxNoOps) Running(*ScxKernel, ScxTask) error          { return nil }
func (ScxNoOps) Stopping(*ScxKernel, ScxTask, bool) error   { return nil }
func (ScxNoOps) Quiescent(*ScxKernel, ScxTask, int64) error { return nil }
func (ScxNoOps) UpdateIdle(*ScxKernel, int, bool) error     { return nil }
func (ScxNoOps) Tick(*ScxKernel, ScxTask) error             { return nil }
func (ScxNoOps) Timer(*ScxKernel) error                     { return nil }
func (ScxNoOps) CPUAcquire(*ScxKernel, int) error           { return nil }
func (ScxNoOps) CPURelease(*ScxKernel, int, int64, ScxTask) error {
	return nil
}
func (ScxNoOps) InitTask(*ScxKernel, ScxTask, bool) error   { return nil }
func (ScxNoOps) ExitTask(*ScxKernel, ScxTask) error         { return nil }
func (ScxNoOps) SetWeight(*ScxKernel, ScxTask, int64) error { return nil }
func (ScxNoOps) Dequeue(*ScxKernel, ScxTask, int64) error   { return nil }
func (ScxNoOps) SaveState() ([]byte, error)                 { return nil, nil }
func (ScxNoOps) LoadState(data []byte) error                { return nil }

// ScxTask is a task as a policy sees it (struct task_struct's scx part). The
// zero value is no task.
type ScxTask struct {
	k *ScxKernel
	t *thread
}

// Valid reports whether p is a task (Dispatch's prev may be none).
func (p ScxTask) Valid() bool { return p.t != nil }

// PID is the task's id (the engine's thread id).
func (p ScxTask) PID() int { return p.t.id }

// Name is the task's name.
func (p ScxTask) Name() string { return p.t.name }

// Weight is the task's weight, 100 for nice 0 (p->scx.weight): an rt-app
// task's nice sets it (ScxWeightOfNice); every other thread is nice 0.
func (p ScxTask) Weight() int64 {
	if w, ok := p.k.s.wl.(scxWeigher); ok {
		return w.scxWeight(p.t)
	}
	return 100
}

// scxWeigher is a workload whose threads may have a nice other than 0 (an
// rt-app description's "priority"): it gives each its sched_ext weight.
type scxWeigher interface{ scxWeight(t *thread) int64 }

// Slice is the task's remaining slice in ns (p->scx.slice): what it was
// inserted with, less what it has run on it (update_curr_scx charges it for
// good, so it carries over a block).
func (p ScxTask) Slice() int64 { return p.k.sliceLeft(p.t) }

// SetSlice sets the task's slice (p->scx.slice); 0 expires it at the CPU's
// next schedule (a tick or a kick).
func (p ScxTask) SetSlice(ns int64) { p.k.setSlice(p.t, ns) }

// Vtime is the task's dsq_vtime (p->scx.dsq_vtime).
func (p ScxTask) Vtime() int64 { return p.k.task(p.t).vtime }

// SetVtime sets the task's dsq_vtime.
func (p ScxTask) SetVtime(v int64) { p.k.task(p.t).vtime = v }

// CPU is the CPU the task runs or is queued on, its previous one when blocked
// (task_cpu()).
func (p ScxTask) CPU() int { return p.t.cpu }

// Allowed reports whether the task may run on cpu (p->cpus_ptr): a pinned
// task only on its own.
func (p ScxTask) Allowed(cpu int) bool { return !p.t.pinned || cpu == p.t.cpu }

// RuntimeNs is the CPU time the task has run (p->se.sum_exec_runtime).
func (p ScxTask) RuntimeNs() int64 { return int64(p.t.runNs) }

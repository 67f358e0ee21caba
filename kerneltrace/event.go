package kerneltrace

import (
	"cmp"
	"slices"
)

// Kind is the kind of a scheduler event.
type Kind uint8

const (
	// KindSwitch: CPU switched from PrevPid to NextPid (sched_switch).
	KindSwitch Kind = iota + 1
	// KindWaking: Pid (the current task, the waker) woke Target (sched_waking,
	// or sched_wakeup with WakeupOnly set: then the waker is not reliable).
	KindWaking
	// KindNew: Pid created Target (task_newtask, sched_process_fork,
	// sched_wakeup_new): the new task is runnable.
	KindNew
	// KindRename: Target's name became Comm (task_rename, sched_process_exec).
	KindRename
	// KindExit: Target exits (sched_process_exit); its last switch-out follows.
	KindExit
	// KindFree: Target's task struct is freed (sched_process_free): its pid can
	// be reused from now on.
	KindFree
	// KindMigrate: Target moved from OrigCPU to TargetCPU (sched_migrate_task):
	// what the recorded policy did, kept for comparison, never replayed.
	KindMigrate
)

func (k Kind) String() string {
	switch k {
	case KindSwitch:
		return "switch"
	case KindWaking:
		return "waking"
	case KindNew:
		return "new"
	case KindRename:
		return "rename"
	case KindExit:
		return "exit"
	case KindFree:
		return "free"
	case KindMigrate:
		return "migrate"
	}
	return "kind?"
}

// State is a task state as sched_switch reports prev_state, in the bit layout
// of Linux 4.14 and later (TASK_REPORT): 0 is runnable (R), Preempted marks R+.
type State uint16

const (
	StateInterruptible   State = 0x1  // S
	StateUninterruptible State = 0x2  // D
	StateStopped         State = 0x4  // T
	StateTraced          State = 0x8  // t
	StateDead            State = 0x10 // X
	StateZombie          State = 0x20 // Z
	StateParked          State = 0x40 // P
	StateIdle            State = 0x80 // I (TASK_IDLE: a D that does not count as load)
	StatePreempted       State = 0x100
)

// Runnable says the task stayed runnable (R, R+): it was preempted, not blocked.
func (s State) Runnable() bool { return s&^StatePreempted == 0 }

// Dead says the task is gone (X or Z).
func (s State) Dead() bool { return s&(StateDead|StateZombie) != 0 }

// IOWait says the task blocked uninterruptibly (D), which the model replays as
// a timed sleep: a D wait is usually on a device, not on another task.
func (s State) IOWait() bool { return s&StateUninterruptible != 0 }

// stateFromRaw reads a numeric prev_state whatever the kernel version wrote it:
// the low bits S, D, T, t, X, Z mean the same since 2.6; above them, 4.14
// reordered the flags (perfetto src/trace_processor/types/task_state.cc). The
// replay needs only runnable, blocked, D and dead, so the mapping keeps those
// right for both layouts: a value with no bit below 0x40 (or only 0x40 on an
// old kernel, TASK_DEAD) is either preempted or dead. oldLayout is set for
// kernels before 4.14 when the trace says so.
func stateFromRaw(raw int64, oldLayout bool) State {
	low := State(raw & 0x3f)
	if oldLayout {
		if raw&0x40 != 0 { // TASK_DEAD before 4.14
			low |= StateDead
		}
		if low == 0 && raw != 0 { // TASK_STATE_MAX (0x800/0x1000): preempted
			low |= StatePreempted
		}
		return low
	}
	if raw&0x40 != 0 {
		low |= StateParked
	}
	if raw&0x80 != 0 {
		low |= StateIdle
	}
	if raw&0x100 != 0 {
		low |= StatePreempted
	}
	// Bits above TASK_REPORT_MAX on a kernel we took as new: an old layout after
	// all (LISA's traces show 1024 and 4096). Preempted if nothing else is set.
	if raw&^0x1ff != 0 && low == 0 {
		low = StatePreempted
	}
	return low
}

// Event is one scheduler event. Pid is the task current on CPU when the event
// was emitted (common_pid), -1 when the format does not say; the other fields
// are the ones its Kind names.
type Event struct {
	Ts   int64 // ns
	CPU  int32
	Kind Kind
	Pid  int32
	// IRQ says the event was emitted in hardirq or softirq context (a wakeup
	// from an interrupt, not from Pid).
	IRQ bool
	// WakeupOnly marks a KindWaking read from sched_wakeup, which may fire on
	// the wakee's CPU: its Pid is not the waker.
	WakeupOnly bool

	// KindSwitch.
	PrevPid, NextPid   int32
	PrevComm, NextComm string
	PrevPrio, NextPrio int32
	PrevState          State

	// The other kinds: the task the event is about, its name and priority.
	Target int32
	Comm   string
	Prio   int32
	// TargetCPU is a waking's target CPU or a migration's destination; OrigCPU a
	// migration's source.
	TargetCPU, OrigCPU int32
	// CloneFlags of a task_newtask (CLONE_THREAD: the child joins Pid's process).
	CloneFlags uint64
	// Tgid of KindExit when the format gives it, else 0.
	Tgid int32

	// rawState is a Perfetto prev_state before the kernel release, which may
	// come later in the file, says how to read it.
	rawState int64
}

// cloneThread is CLONE_THREAD (include/uapi/linux/sched.h).
const cloneThread = 0x10000

// Format names a trace file format.
type Format string

const (
	FormatUnknown  Format = ""
	FormatPerfetto Format = "perfetto"
	FormatText     Format = "ftrace-text"
	FormatHTML     Format = "systrace-html"
	FormatChrome   Format = "chrome-json"
	FormatTraceDat Format = "trace.dat"
)

// Trace is a decoded trace: events in time order and what the trace says
// about the machine and its processes.
type Trace struct {
	Format Format
	// CPUs is the machine's CPU count (a header's, or the highest CPU seen + 1).
	CPUs int
	// KernelRelease, when the trace records it (Perfetto's system_info).
	KernelRelease string
	// Events sorted by (Ts, CPU), in recorded order within a CPU.
	Events []Event
	// Tgid maps a thread id to its process id where the trace says so.
	Tgid map[int32]int32
	// Comm maps a thread id to a name the trace gives outside events
	// (Perfetto's process tree, a cmdlines list); events carry their own.
	Comm map[int32]string
	// ValidFromNs is the first time from which every CPU's events are complete:
	// after the last lost-events mark (0 when nothing was lost).
	ValidFromNs int64
	// LostEvents counts the CPU buffers the recorder says lost events.
	LostEvents int
}

func newTrace(f Format) *Trace {
	return &Trace{Format: f, Tgid: make(map[int32]int32), Comm: make(map[int32]string)}
}

// finish sorts the events and settles the CPU count: events come per CPU
// (Perfetto bundles, trace.dat pages) or nearly in order (text), and only
// their order within one CPU is guaranteed.
func (t *Trace) finish() {
	slices.SortStableFunc(t.Events, func(a, b Event) int {
		if c := cmp.Compare(a.Ts, b.Ts); c != 0 {
			return c
		}
		return cmp.Compare(a.CPU, b.CPU)
	})
	for i := range t.Events {
		if c := int(t.Events[i].CPU) + 1; c > t.CPUs {
			t.CPUs = c
		}
	}
}

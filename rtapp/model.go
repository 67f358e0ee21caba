package rtapp

// Limits Decode enforces. rt-app has none of its own beyond int32 overflow;
// these keep a simulated run, and the decoder itself, bounded.
const (
	MaxInputBytes     = 256 << 10 // size of the file
	MaxTasks          = 1024      // task objects in "tasks"
	MaxInstances      = 1024      // "instance" of one task
	MaxThreads        = 4096      // sum of all tasks' instances
	MaxPhases         = 1024      // phases of one task
	MaxEventsPerPhase = 1024      // events of one phase
	MaxLoop           = 1_000_000 // "loop" of a task or phase; -1 means forever
	MaxCPU            = 1023      // highest CPU number in "cpus"
	MaxDurationUS     = 1<<31 - 1 // µs, rt-app keeps durations in a C int
	MaxDurationS      = 1 << 20   // global "duration", s (about 12 days)
)

// Loop value meaning "forever", for Task.Loop and Phase.Loop.
const LoopForever = -1

// Description is one decoded rt-app file.
type Description struct {
	Global Global
	// Tasks in file order. A task is a thread template; Instance threads
	// are started from it.
	Tasks []*Task
	// Barriers by name, in order of first use, with the number of thread
	// instances rt-app will wait for.
	Barriers []BarrierGroup
	// Notes lists keys that were accepted but change nothing (NoOp in
	// KeyStatus) and keys rt-app ignores, with where they were.
	Notes []Note
	// TaskGroups are the root's "taskgroups" settings, in file order.
	TaskGroups []TaskGroupSettings
}

// Task looks a task up by name; nil if there is none.
func (d *Description) Task(name string) *Task {
	for _, t := range d.Tasks {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// Note is a key Decode accepted without modelling it.
type Note struct {
	Path string
	Pos  Pos
	Msg  string
}

// Global is the "global" object (parse_global in rt-app).
type Global struct {
	// Duration in seconds after which rt-app stops every thread, living
	// that long even when they finish before; -1 (the default) or 0 means
	// no limit: run until every thread has finished its loops.
	Duration int
	// DefaultPolicy is used by tasks that name no policy; SCHED_OTHER by
	// default.
	DefaultPolicy Policy

	// The keys below are read and checked as rt-app does but change nothing
	// a CPU scheduler simulator models (see KeyStatus).

	// Calibration is "CPUn" (calibrate on that CPU) or, when NsPerLoop > 0,
	// a fixed ns-per-loop that skips calibration. Run durations here are
	// simulated CPU time, so neither is used.
	CalibrationCPU  int
	CalibrationNs   int
	PIEnabled       bool // only false is accepted
	LockPages       bool // default true
	LogDir          string
	LogBasename     string
	LogSize         string // "file", "disable", "auto" or a size in MB (see LogsToFile)
	Ftrace          string // categories, or "true"/"false" (deprecated form)
	Gnuplot         bool
	IODevice        string
	MemBufferSize   int
	CumulativeSlack bool
}

// DefaultGlobal is what rt-app uses when the file has no "global" object.
func DefaultGlobal() Global {
	return Global{
		Duration:       -1,
		DefaultPolicy:  SchedOther,
		LockPages:      true,
		LogDir:         "./",
		LogBasename:    "rt-app",
		LogSize:        "file",
		Ftrace:         "none",
		IODevice:       "/dev/null",
		MemBufferSize:  4 << 20,
		CalibrationCPU: 0,
	}
}

// Policy is a Linux scheduling class as rt-app names it. The empty Policy
// means "unchanged" (a phase that names no policy).
type Policy string

const (
	SchedOther    Policy = "SCHED_OTHER"
	SchedBatch    Policy = "SCHED_BATCH"
	SchedIdle     Policy = "SCHED_IDLE"
	SchedFIFO     Policy = "SCHED_FIFO"
	SchedRR       Policy = "SCHED_RR"
	SchedDeadline Policy = "SCHED_DEADLINE"
)

// RealTime reports whether p is SCHED_FIFO or SCHED_RR, whose priority is
// 1..99; for the fair classes priority is a nice value, -20..19.
func (p Policy) RealTime() bool { return p == SchedFIFO || p == SchedRR }

// Sched is the scheduling part of a task or phase (parse_sched_data).
type Sched struct {
	// Policy; at phase level "" keeps the current one.
	Policy Policy
	// Priority is a nice value for SCHED_OTHER/BATCH/IDLE, an RT priority
	// for SCHED_FIFO/RR. Defaults as rt-app: nice 0, RT priority 10.
	Priority int
	// PrioritySet says the file gave "priority" (at phase level, a
	// priority without a policy changes only the priority).
	PrioritySet bool
	// DLRuntime, DLPeriod and DLDeadline are sched_attr's runtime, period
	// and deadline in µs (dl-runtime, dl-period, dl-deadline; at task level
	// also the legacy runtime, period and deadline keys), 0 when unset. As
	// parse_sched_data has it, the period defaults to the runtime and the
	// deadline to the period. Under SCHED_DEADLINE they are the task's
	// reservation; under SCHED_OTHER and SCHED_BATCH the runtime is a custom
	// slice (sched_attr.sched_runtime, Linux 6.12+; rt-app 1.0 ignores it).
	DLRuntime, DLPeriod, DLDeadline int64
}

// Task is one entry of "tasks" (parse_task_data).
type Task struct {
	Name string
	Pos  Pos
	// Instance is the number of threads started from this task (default
	// 1); 0 defines the task without starting it.
	Instance int
	// Loop is how many times the whole list of phases runs; LoopForever
	// (-1) loops until Global.Duration ends the run. As in rt-app, a task
	// with a "phases" object defaults to -1; a task without one runs its
	// single phase Loop=1 time when it has a "loop" key (the key is that
	// phase's loop) and forever otherwise.
	Loop int
	// Delay before the first phase, µs.
	Delay int64
	// CPUs is the affinity, nil for all CPUs.
	CPUs []int
	// Taskgroup is the task group (a cgroup path of the CPU controller; "/"
	// is the root) its threads start in, "" for the root
	// (parse_taskgroup_data; rt-app only places threads, the groups'
	// cpu.weight and cpu.max are set outside it).
	Taskgroup string
	Sched     Sched
	// Phases in file order. A task whose events sit directly in its object
	// has one phase, named "", and Inline set.
	Phases []*Phase
	Inline bool
}

// Phase is one entry of a task's "phases" (parse_task_phase_data).
type Phase struct {
	Name string
	Pos  Pos
	// Loop is how many times the events run before the next phase (default
	// 1); LoopForever stays in this phase.
	Loop int
	// CPUs, when not nil, changes the affinity at the start of the phase.
	CPUs []int
	// Sched, when not nil, changes policy and/or priority at the start of
	// the phase.
	Sched *Sched
	// Taskgroup, when not "", moves the thread into that task group (a
	// cgroup path; "/" is the root) at the start of the phase.
	Taskgroup string
	// Events in file order, repeats included.
	Events []Event
}

// Kind is an event kind: the event's key without its trailing digits.
type Kind string

const (
	Run     Kind = "run"      // busy for Duration µs of work (scaled by CPU capacity in rt-app)
	Runtime Kind = "runtime"  // busy for Duration µs of wall time
	Sleep   Kind = "sleep"    // sleep Duration µs
	Timer   Kind = "timer"    // wait for the next tick of timer Ref, period Duration µs
	Lock    Kind = "lock"     // lock mutex Ref
	Unlock  Kind = "unlock"   // unlock mutex Ref
	Wait    Kind = "wait"     // pthread_cond_wait on condvar Ref with mutex Mutex (held)
	Signal  Kind = "signal"   // pthread_cond_signal on condvar Ref
	Broad   Kind = "broad"    // pthread_cond_broadcast on condvar Ref
	Sync    Kind = "sync"     // signal condvar Ref, then wait on it with Mutex (held)
	Barrier Kind = "barrier"  // wait until every participant reached barrier Ref
	Suspend Kind = "suspend"  // wait until a resume names Ref
	Resume  Kind = "resume"   // wake every thread suspended on Ref
	Yield   Kind = "yield"    // sched_yield
	Fork    Kind = "fork"     // start a thread of task Ref (pthread_create), which runs its script from the start
	SemPost Kind = "sem_post" // post semaphore Ref (initial count 0)
	SemWait Kind = "sem_wait" // wait on semaphore Ref
)

// TimerMode says what a timer's next expiry is counted from.
type TimerMode string

const (
	// Relative (rt-app's default): a missed period does not carry over to
	// the next phase.
	Relative TimerMode = "relative"
	// Absolute: expiries stay on the grid set at first use.
	Absolute TimerMode = "absolute"
)

// Event is one entry of a phase.
type Event struct {
	Key  string // as written: "run0", "timer"
	Kind Kind
	Pos  Pos
	// Duration in µs: run, runtime, sleep, and a timer's period.
	Duration int64
	// Ref names the resource: the mutex (lock, unlock), condition variable
	// (wait, signal, broad, sync), timer, barrier, semaphore, or the name
	// suspend waits on and resume wakes (a condition variable and a mutex
	// of that name, as rt-app 1.0 has them; the task's own name when the
	// file gives none: Bare).
	Ref string
	// Bare: a suspend or resume whose name the file left out (no value, or
	// ""), read as the task's own.
	Bare bool
	// Mutex is the mutex of wait and sync.
	Mutex string
	// Timer only: Mode, and Unique when the ref starts with "unique" (one
	// timer per thread instance instead of one shared by every user).
	Mode   TimerMode
	Unique bool
}

// BarrierGroup is a named barrier and how many thread arrivals release it: as in
// rt-app (parse_task_event_data), each barrier event adds its task's
// instance count.
type BarrierGroup struct {
	Name         string
	Participants int
	Tasks        []string
}

// LogsToFile says whether rt-app writes each thread's log to its file as the
// run goes (log_size "file", "auto" or left out: parse_global), through a
// stdio stream, rather than into a buffer of that many MB written at the end
// (a number) or nowhere ("disable", or 0 MB).
func (g Global) LogsToFile() bool { return g.LogSize == "file" || g.LogSize == "auto" }

package kerneltrace

// The replay model: per thread, segments of run time and what ends each
// (TRACES.md section 3). A replayer starts each thread when its Start
// releases it, runs its segments in order, and at the end of each does what
// End says. Wake edges count, like perf sched replay's semaphores: a waker
// reaching its wake point before the wakee blocks leaves a token the wakee
// consumes at once, so an early wakeup is never lost.

// ThreadID indexes Model.Threads.
type ThreadID int32

// EndKind says what ends a segment (or, for Thread.Start, what starts a thread).
type EndKind uint8

const (
	// EndWakeBy: the thread blocks until Waker, in its segment WakerSeg, has
	// run AtNs of that segment (Waker's Segment.Wakes lists the same edge).
	EndWakeBy EndKind = iota + 1
	// EndTimer: the thread sleeps SleepNs, whatever else runs (a wakeup from
	// idle, an interrupt, a kernel worker, or a D-state wait). As a thread's
	// Start: it starts SleepNs after the replay starts.
	EndTimer
	// EndSpawn: the thread creates Child and goes on with its next segment.
	// As a thread's Start (EndSpawned): it is Waker's child, created when
	// Waker, in segment WakerSeg, has run AtNs.
	EndSpawn
	// EndSpawned is a thread's Start when its parent's EndSpawn creates it.
	EndSpawned
	// EndExit: the thread exits.
	EndExit
	// EndCut: the trace (or window) ended after this segment: the thread
	// blocked and no wakeup followed, or (only with Options.KeepCut) it was
	// still running or runnable. A replay stops the thread there.
	EndCut
)

func (k EndKind) String() string {
	switch k {
	case EndWakeBy:
		return "wake-by"
	case EndTimer:
		return "timer"
	case EndSpawn:
		return "spawn"
	case EndSpawned:
		return "spawned"
	case EndExit:
		return "exit"
	case EndCut:
		return "cut"
	}
	return "end?"
}

// End is what ends a segment.
type End struct {
	Kind EndKind `json:"kind,omitzero"`
	// Waker (EndWakeBy) or parent (EndSpawned), its segment and its progress
	// in that segment, in ns of run time.
	Waker    ThreadID `json:"waker,omitzero"`
	WakerSeg int32    `json:"waker_seg,omitzero"`
	AtNs     int64    `json:"at_ns,omitzero"`
	// SleepNs is the recorded time from the block to the wakeup (EndWakeBy
	// and EndTimer): EndTimer's length, and what an all-timed replay uses.
	SleepNs int64 `json:"sleep_ns,omitzero"`
	// Child of EndSpawn.
	Child ThreadID `json:"child,omitzero"`
	// AtTs is when it happened in the trace (ns, trace clock): to turn an
	// edge into a timer when its other end is filtered out.
	AtTs int64 `json:"at_ts,omitzero"`
}

// Wake is an edge seen from the waker: at AtNs of its segment it wakes Wakee,
// ending Wakee's segment WakeeSeg (-1: releasing Wakee's Start).
type Wake struct {
	Wakee    ThreadID `json:"wakee,omitzero"`
	WakeeSeg int32    `json:"wakee_seg,omitzero"`
	AtNs     int64    `json:"at_ns,omitzero"`
}

// Segment is a stretch of run time and what ends it.
type Segment struct {
	RunNs int64 `json:"run_ns,omitzero"`
	// Wakes are the wakeups this segment makes, in progress order.
	Wakes []Wake `json:"wakes,omitzero"`
	End   End    `json:"end,omitzero"`
}

// Thread is one thread of the trace: a tid and a generation (pids are reused).
type Thread struct {
	Tid int32 `json:"tid,omitzero"`
	// Gen counts earlier threads with this tid in the trace (0 for the first).
	Gen  int32 `json:"gen,omitzero"`
	Tgid int32 `json:"tgid,omitzero"`
	// Names in the order the thread had them (task_rename adds one).
	Names []string `json:"names,omitzero"`
	Prio  int32    `json:"prio,omitzero"`
	// PinnedCPU is the CPU a per-CPU kernel thread (ksoftirqd/3, kworker/3:1,
	// migration/3) is bound to; -1 otherwise. Affinity is not in sched
	// events: the name suffix is the evidence.
	PinnedCPU int32 `json:"pinned_cpu,omitzero"`
	// Start says when the thread starts (EndTimer from the replay's start,
	// EndWakeBy, EndSpawned).
	Start    End       `json:"start,omitzero"`
	Segments []Segment `json:"segments,omitzero"`
	// CutFirst and CutLast say the thread's first or last stretch was cut:
	// it ran before the trace (or window) began, or was still running,
	// runnable or blocked without a wakeup when it ended.
	CutFirst bool `json:"cut_first,omitzero"`
	CutLast  bool `json:"cut_last,omitzero"`
	// Recorded are the trace's own figures for this thread.
	Recorded Figures `json:"recorded,omitzero"`
}

// Name is the thread's last name.
func (t *Thread) Name() string {
	if len(t.Names) == 0 {
		return ""
	}
	return t.Names[len(t.Names)-1]
}

// Figures are what the trace records of a thread or a process.
type Figures struct {
	CPUMs float64 `json:"cpu_ms"`
	// WakeLatP50Us and WakeLatP99Us are wake-to-run latency percentiles, µs.
	WakeLatP50Us float64 `json:"wake_lat_p50_us"`
	WakeLatP99Us float64 `json:"wake_lat_p99_us"`
	// RunnableMs is the time spent runnable but not running (woken or preempted).
	RunnableMs float64 `json:"runnable_ms"`
	Migrations int     `json:"migrations"`
	Wakeups    int     `json:"wakeups"`
}

// Process groups threads by tgid.
type Process struct {
	Pid      int32      `json:"pid,omitzero"`
	Name     string     `json:"name,omitzero"`
	Threads  []ThreadID `json:"threads,omitzero"`
	Recorded Figures    `json:"recorded,omitzero"`
}

// Counts says what Build cut, ignored or turned into timers, so a report can
// say how faithful the model is.
type Counts struct {
	Events int `json:"events,omitzero"`
	// CutFirst and CutLast count threads whose first or last stretch was cut.
	CutFirst int `json:"cut_first,omitzero"`
	CutLast  int `json:"cut_last,omitzero"`
	// Spurious counts wakeups of a thread already running or runnable.
	Spurious int `json:"spurious,omitzero"`
	// WakeEdges and Timers count segment ends of each kind; TimerReasons
	// splits Timers by why the wakeup was not an edge.
	WakeEdges         int `json:"wake_edges,omitzero"`
	Timers            int `json:"timers,omitzero"`
	Spawns            int `json:"spawns,omitzero"`
	Exits             int `json:"exits,omitzero"`
	TimerIdle         int `json:"timer_idle,omitzero"`
	TimerIRQ          int `json:"timer_irq,omitzero"`
	TimerKernel       int `json:"timer_kernel,omitzero"`
	TimerIOWait       int `json:"timer_io_wait,omitzero"`
	TimerUnknownWaker int `json:"timer_unknown_waker,omitzero"`
	// Dropped counts threads left out by Options' filters.
	Dropped int `json:"dropped,omitzero"`
	// LostSwitches counts switches on a CPU from another thread than the
	// one it last switched to: that one's switch-out is missing from the
	// trace, and it is taken as preempted there.
	LostSwitches int `json:"lost_switches,omitzero"`
}

// Model is a trace turned into a replayable workload.
type Model struct {
	CPUs int `json:"cpus,omitzero"`
	// StartNs and EndNs are the window of the trace the model covers.
	StartNs   int64     `json:"start_ns,omitzero"`
	EndNs     int64     `json:"end_ns,omitzero"`
	Threads   []Thread  `json:"threads,omitzero"`
	Processes []Process `json:"processes,omitzero"`
	Counts    Counts    `json:"counts,omitzero"`
}

// Options shape Build.
type Options struct {
	// StartNs and EndNs bound the window (trace clock, ns); 0 means the trace's
	// first and last event. A window never starts before the trace's
	// ValidFromNs (events lost before).
	StartNs, EndNs int64
	// FromFirst counts StartNs and EndNs from the trace's first event, for a
	// caller that does not know it before reading (a streamed trace).
	FromFirst bool
	// Pids and Names keep only the processes with these tgids or names (a
	// process's name is its leader's, or any of its threads' when the leader is
	// not in the trace). Empty: every process. Wakeups and spawns from threads
	// left out become timers.
	Pids  []int32
	Names []string
	// AllTimed replays every wakeup as a timed sleep of its recorded length, as
	// LinSched's perf replay does; the default is the closed loop of perf
	// sched replay: wakeups by other threads are dependencies.
	AllTimed bool
	// TrustWakeup takes sched_wakeup's current task as the waker when the trace
	// has no sched_waking (it may be the wakee's CPU's task: off by default).
	TrustWakeup bool
	// CPUs overrides the trace's CPU count when > 0.
	CPUs int
	// KeepCut keeps the stretches cut by the window's edges instead of
	// dropping them: a thread running or runnable when the window opens
	// starts at once (EndTimer 0) with the run observed, and a thread's last
	// stretch ends with EndCut. The recorded CPU time is then all replayed.
	KeepCut bool
}

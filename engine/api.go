package engine

// The public face of the engine for front ends (CLI, browser, share server):
// snapshots of the simulated machine, the stream of visual events, and results.

// CPUState is what a CPU is doing at an instant.
type CPUState uint8

const (
	CPURunning  CPUState = iota // running a thread
	CPUSpinning                 // idle loop, polling for work
	CPUHalted                   // halted (a VM exit under KVM)
	CPUWaking                   // halted, wake in progress (host scheduling it in)
	CPUIRQ                      // handling an interrupt (IPI or device)
)

var cpuStateNames = [...]string{"running", "spinning", "halted", "waking", "irq"}

func (s CPUState) String() string {
	if int(s) < len(cpuStateNames) {
		return cpuStateNames[s]
	}
	return "cpu-state?"
}

// ThreadState is a thread's scheduling state.
type ThreadState uint8

const (
	ThreadBlocked  ThreadState = iota // waiting for a wake
	ThreadIncoming                    // woken, on a remote CPU's incoming list
	ThreadQueued                      // runnable in a runqueue
	ThreadRunning                     // on a CPU
)

var threadStateNames = [...]string{"blocked", "incoming", "queued", "running"}

func (s ThreadState) String() string {
	if int(s) < len(threadStateNames) {
		return threadStateNames[s]
	}
	return "thread-state?"
}

// ThreadRole says what a thread is for; the playground draws roles differently.
type ThreadRole uint8

const (
	RoleWorker   ThreadRole = iota // backend / writer: the threads that are fanned out to
	RoleWaker                      // the RX or log-commit thread that wakes workers
	RoleSpawner                    // creates the workers
	RoleBalancer                   // per-CPU load_balance thread
	RoleKernel                     // per-CPU housekeeping (timers, device work)
)

var roleNames = [...]string{"worker", "waker", "spawner", "balancer", "kernel"}

func (r ThreadRole) String() string {
	if int(r) < len(roleNames) {
		return roleNames[r]
	}
	return "role?"
}

// IPIKind is why an inter-processor interrupt was sent.
type IPIKind uint8

const (
	IPIWakeup IPIKind = iota // a remote wake (OSv wake_impl)
	IPIPull                  // idle CPU asks a busy one to donate (idle pull)
	IPIDonate                // the victim's unconditional wakeup after donating
	numIPIKinds
)

var ipiKindNames = [...]string{"wakeup", "pull", "donate"}

func (k IPIKind) String() string {
	if int(k) < len(ipiKindNames) {
		return ipiKindNames[k]
	}
	return "ipi?"
}

// CPUSnap is one CPU in a Snapshot.
type CPUSnap struct {
	ID    int
	State CPUState
	// Running is the running thread's id, or -1.
	Running int
	// Runqueue holds the queued thread ids in run order (not the idle thread).
	Runqueue []int
	// Incoming holds threads woken remotely, not yet moved into the runqueue.
	Incoming []int
	// Load is OSv's load: queued threads, plus one while a thread runs.
	Load int
	// SpinWindow is the current idle spin window (iterations), SpinCap its cap.
	SpinWindow, SpinCap int64
	// HostPollNs is the host's current halt-poll window for this vCPU.
	HostPollNs int64
	// PullSlot is the CPU that holds this CPU's pull request slot, or -1.
	PullSlot int
}

// ThreadSnap is one thread in a Snapshot.
type ThreadSnap struct {
	ID    int
	Name  string
	Role  ThreadRole
	State ThreadState
	// CPU is the CPU the thread runs or waits on (its home when blocked).
	CPU    int
	Pinned bool
	// Class is its scheduling class under sched.policy=linux (fair
	// otherwise); Weight its fair weight there (sched_prio_to_weight, 0
	// under the other policies), RTPrio and RR its real-time priority and
	// SCHED_RR, DLRuntimeNs and DLPeriodNs its deadline reservation.
	Class                   SchedClass
	Weight                  int64
	RTPrio                  int
	RR                      bool
	DLRuntimeNs, DLPeriodNs int64
}

// SchedClass is a thread's Linux scheduling class (docs/mechanisms.md, The
// Linux reference).
type SchedClass uint8

const (
	ClassFair SchedClass = SchedClass(classFair)
	ClassRT   SchedClass = SchedClass(classRT)
	ClassDL   SchedClass = SchedClass(classDL)
)

// IPISnap is an IPI in flight.
type IPISnap struct {
	Kind          IPIKind
	From, To      int
	SentNs, DueNs int64
	ForThread     int // the woken or donated thread, or -1
	HaltedTarget  bool
}

// Snapshot is the simulated machine at one instant. Sim.Snapshot fills a caller's
// Snapshot, reusing its slices, so the browser can read one every frame without
// allocating.
type Snapshot struct {
	NowNs int64
	// Shared holds the threads on the policy's shared queue (scx_simple), in order.
	Shared  []int
	CPUs    []CPUSnap
	Threads []ThreadSnap
	IPIs    []IPISnap
	Live    LiveMetrics
}

// LiveMetrics are running totals since the start (not only after warm-up), for
// animation and live charts.
type LiveMetrics struct {
	Completed     int64
	IPIs          [numIPIKinds]int64
	HaltExits     int64
	Migrations    int64
	BusyNs        int64 // CPU time spent running threads or in interrupts
	SpinNs        int64
	IdleOverNs    int64 // CPU time idle while another CPU had a queued thread
	LatencySumNs  int64
	WakeToRunSum  int64
	WakeToRunN    int64
	HostPollNs    int64
	SuppressedIPI int64
}

// VisKind is the kind of a visual event.
type VisKind uint8

const (
	VisRun       VisKind = iota // CPU started running Thread
	VisBlock                    // Thread blocked on CPU
	VisWake                     // Thread woken, queued on CPU (Other = waker's CPU or -1)
	VisIPISend                  // IPI of IPIKind from CPU to Other
	VisIPIArrive                // IPI arrived at Other, sent by CPU
	VisSpin                     // CPU entered its idle spin
	VisHalt                     // CPU halted
	VisMigrate                  // Thread moved from CPU to Other
	VisDecision                 // a decision record was added (Arg = its index)
	VisComplete                 // a request or operation completed
	VisState                    // CPU changed state: Arg is the new CPUState, Thread the running thread or -1
)

// VisEvent is one thing that happened, for animation. CPU, Other and Thread are -1
// where a kind has none; IPI and Arg are 0 where it has none.
type VisEvent struct {
	AtNs   int64
	Kind   VisKind
	IPI    IPIKind
	CPU    int32
	Other  int32
	Thread int32
	Arg    int32
}

// LatencySummary summarises a latency distribution in microseconds.
type LatencySummary struct {
	P50  float64 `json:"p50"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p999"`
	Mean float64 `json:"mean"`
}

// WakeSummary summarises wake-to-run latency in microseconds.
type WakeSummary struct {
	Mean float64 `json:"mean"`
	P99  float64 `json:"p99"`
}

// WaitSummary summarises how long runnable tasks waited to run, in microseconds.
type WaitSummary struct {
	P50 float64 `json:"p50"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

// IPIRates breaks IPIs per second down by kind.
type IPIRates struct {
	Total  float64 `json:"total"`
	Wakeup float64 `json:"wakeup"`
	Pull   float64 `json:"pull"`
	Donate float64 `json:"donate"`
}

// SeriesPoint is one bucket of the over-time series.
type SeriesPoint struct {
	StartMs          float64 `json:"start_ms"`
	ThroughputPerS   float64 `json:"throughput_per_s"`
	BusyVCPUs        float64 `json:"busy_vcpus"`
	BusyVCPUsHost    float64 `json:"busy_vcpus_host"`
	IPIsPerS         float64 `json:"ipis_per_s"`
	HaltExitsPerS    float64 `json:"halt_exits_per_s"`
	IdleOverloadFrac float64 `json:"idle_while_overloaded_frac"`
}

// RowLockResults summarise the row locks of pgbench's tpcb-like script over the
// measured window.
type RowLockResults struct {
	// TPCBScale is the scale the row locks were modelled at (0: none).
	TPCBScale int `json:"tpcb_scale"`
	// WaitedTxnFrac is the share of the transactions committed in the window
	// that waited for a row lock at least once.
	WaitedTxnFrac float64 `json:"waited_txn_frac"`
	// WaitsPerS counts the waits that ended (the row granted) per second.
	WaitsPerS float64 `json:"waits_per_s"`
	// WaitMeanUs is a wait's mean length, from the updater's sleep to the
	// holder's commit granting it the row; the run delay after that wake is
	// counted in wake_to_run_us.
	WaitMeanUs float64 `json:"wait_mean_us"`
	// HoldMeanUs is how long a row lock was held on average, from the UPDATE
	// that took it (or the commit that granted it) to the release at commit.
	HoldMeanUs float64 `json:"hold_mean_us"`
}

// Results are a run's metrics over the measured window [warmup, duration).
type Results struct {
	ThroughputPerS float64        `json:"throughput_per_s"`
	Completed      int64          `json:"completed"`
	LatencyUs      LatencySummary `json:"latency_us"`
	WakeToRunUs    WakeSummary    `json:"wake_to_run_us"`
	// RunnableWaitUs is how long a runnable task waited before it ran: from its
	// wake, or from being requeued after a preemption or an expired slice, to
	// being switched in; the max includes a wait still under way at the window's
	// end (docs/mechanisms.md, Results).
	RunnableWaitUs WaitSummary `json:"runnable_wait_us"`
	// TaskFairness is Jain's index over the CPU time each worker task received in
	// the window: 1 when every one got the same, 1/n when one got it all, 0 when
	// none ran (docs/mechanisms.md, Results).
	TaskFairness float64 `json:"task_fairness"`
	// BusyVCPUsMean counts vCPUs running a thread or an interrupt handler (the
	// guest's view); BusyVCPUsHostMean adds the idle loop's spin and the host's
	// halt polling, which the host sees as a busy vCPU thread (how the published
	// busy-vCPU figures were observed).
	BusyVCPUsMean           float64  `json:"busy_vcpus_mean"`
	BusyVCPUsHostMean       float64  `json:"busy_vcpus_host_mean"`
	IdleWhileOverloadedFrac float64  `json:"idle_while_overloaded_frac"`
	IPIsPerS                IPIRates `json:"ipis_per_s"`
	SuppressedIPIsPerS      float64  `json:"suppressed_ipis_per_s"`
	HaltExitsPerS           float64  `json:"halt_exits_per_s"`
	SpinCPUFrac             float64  `json:"spin_cpu_frac"`
	HostCPUFrac             float64  `json:"host_cpu_frac"`
	MigrationsPerS          float64  `json:"migrations_per_s"`
	// Topology holds what only a machine with a topology reports
	// (machine.topology); zero, and left out of the JSON, on the flat machine.
	Topology       TopologyResults `json:"topology,omitzero"`
	SpinWindowMean float64         `json:"spin_window_mean"`
	// RowLocks are pgbench's row-lock waits (workload.tpcb_scale); zero, and
	// left out of the JSON, when the run has no row locks (docs/mechanisms.md,
	// TPC-B row locks).
	RowLocks RowLockResults `json:"row_locks,omitzero"`
	// ScxExit says when and why a sched_ext policy was ejected (its error,
	// or the watchdog); zero when it was not (ScxExit.Ejected).
	ScxExit ScxExit `json:"scx_exit,omitzero"`
	// ScxWaiting are the tasks a sched_ext policy (sched.policy=scx, not
	// ejected) left runnable and not running when the results were taken:
	// how many, and the longest-waiting with since when and on which DSQ
	// (scx_waiting.go); zero, and left out of the JSON, when none wait.
	ScxWaiting ScxWaiting `json:"scx_waiting,omitzero"`
	// RTApp are an rt-app workload's per-task figures (workload.kind=rtapp;
	// rtapp_results.go); zero, and left out of the JSON, otherwise.
	RTApp RTAppResults `json:"rtapp,omitzero"`
	// Schbench is schbench's own figures (workload.kind schbench).
	Schbench SchbenchResults `json:"schbench,omitzero"`
	// TaskGroups is each task group's cpu.stat over the whole run
	// (sched.policy=linux with task groups).
	TaskGroups []TaskGroupResult `json:"task_groups,omitzero"`
	// Trace are a replayed trace's per-thread and per-process figures,
	// recorded beside replayed (workload.kind=trace; trace_results.go);
	// zero, and left out of the JSON, otherwise.
	Trace TraceResults `json:"trace,omitzero"`
	// ElapsedS is when a finite workload (hackbench) finished; 0 if it did not.
	ElapsedS   float64       `json:"elapsed_s,omitzero"`
	SimSeconds float64       `json:"sim_seconds"`
	Events     int64         `json:"events"`
	Series     []SeriesPoint `json:"series,omitzero"`
}

// DecisionKind is the kind of a scheduling decision record.
type DecisionKind uint8

const (
	DecWakePlace     DecisionKind = iota // where a woken thread was queued
	DecIPISent                           // a wakeup IPI was sent
	DecIPISuppressed                     // a wakeup IPI was not sent, and why
	DecPreempt                           // a wakee preempted the running thread (or did not)
	DecPullRequest                       // an idle CPU asked a victim to donate
	DecPullRefused                       // an idle CPU could not ask (no victim, slot taken)
	DecDonate                            // a victim donated a thread
	DecDonateNone                        // a victim had nothing migratable
	DecBalancePush                       // the load balancer pushed a thread
	DecSpinGrow                          // the spin window grew (to the cap, or doubled)
	DecSpinShrink                        // the spin window halved
	DecNewidlePull                       // a CPU about to go idle pulled a task (Linux newidle balance)
	DecPolicyPrint                       // a sched_ext policy's print(), on the CPU it ran for
	DecPolicyExit                        // a sched_ext policy was ejected (error or watchdog)
)

var decisionKindNames = [...]string{"wake_place", "ipi_sent", "ipi_suppressed", "preempt",
	"pull_request", "pull_refused", "donate", "donate_none", "balance_push", "spin_grow", "spin_shrink", "newidle_pull",
	"policy_print", "policy_exit"}

func (k DecisionKind) String() string {
	if int(k) < len(decisionKindNames) {
		return decisionKindNames[k]
	}
	return "decision?"
}

// Decision is one structured decision record: small, fixed size, kept in a bounded
// ring so it can stay on in the browser. Text renders it as a sentence.
type Decision struct {
	AtNs   int64
	Kind   DecisionKind
	CPU    int32 // the CPU that decided
	Target int32 // the CPU acted on (wake target, victim, pull requester), or -1
	Thread int32 // the thread concerned, or -1
	// Reason is a short constant phrase ("target spinning", "load >= 2", ...).
	Reason string
	// Value carries a number where one matters (new spin window, load seen).
	Value int64
}

// TopologyResults are a run's figures on a machine with a topology.
type TopologyResults struct {
	// MigrationsByLevel splits MigrationsPerS by how far the tasks moved.
	MigrationsByLevel MigrationLevels `json:"migrations_per_s_by_level"`
	// SMTContendedFrac is, of the busy CPU time on a machine with SMT, the
	// part during which a sibling of the CPU was busy too (each then ran at
	// half the core's yield); 0 without SMT.
	SMTContendedFrac float64 `json:"smt_contended_frac"`
}

// MigrationLevels are migrations per second by how far the task moved: to
// an SMT sibling, another core of the LLC, another LLC of the node, another
// node.
type MigrationLevels struct {
	SMT  float64 `json:"smt"`
	Core float64 `json:"core"`
	LLC  float64 `json:"llc"`
	Node float64 `json:"node"`
}

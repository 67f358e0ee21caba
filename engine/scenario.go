package engine

import (
	"maps"
	"slices"

	"schedplay/kerneltrace"
)

// The scenario schema: everything a run depends on, as one versioned JSON document.
//
// Every cost carries its unit in its name. Defaults live in DefaultScenario and
// platformCosts; the one set of limits every front end shares lives in Limits.
// Decoding is strict (see decode.go): unknown members, wrong types and values out
// of range are errors that name the JSON path.

// SchemaVersion is the only scenario version this engine reads.
const SchemaVersion = 1

// Scenario is one complete, reproducible run description.
type Scenario struct {
	Version     int    `json:"version"`
	Name        string `json:"name,omitzero"`
	Description string `json:"description,omitzero"`
	// Seed feeds the one PCG generator every random draw of the run comes from.
	Seed uint64 `json:"seed"`
	// DurationMs is the simulated horizon; metrics cover [WarmupMs, DurationMs).
	DurationMs int64 `json:"duration_ms"`
	WarmupMs   int64 `json:"warmup_ms"`
	// SeriesIntervalMs is the bucket width of the throughput-over-time series.
	SeriesIntervalMs int64    `json:"series_interval_ms"`
	Machine          Machine  `json:"machine"`
	Sched            Sched    `json:"sched"`
	Workload         Workload `json:"workload"`
	// Arms names the A/B comparison this scenario is about (each arm a set of knob
	// overrides); Published holds the measured numbers it is compared with. Neither
	// changes a single run; they drive sweeps, calibration and the compare view.
	Arms      []Arm       `json:"arms,omitzero"`
	Published []Published `json:"published,omitzero"`
	// Fitted names the workload parameters (knob path -> how) that were derived
	// from a published number rather than argued from the workload's description:
	// figures of this scenario cannot confirm the model, so calibration does not
	// count them as hits.
	Fitted map[string]string `json:"fitted,omitzero"`

	// maxDurationMs is how long a run of this scenario may be: 0 is
	// MaxDurationMs, what the page and shares run; the CLI decodes with
	// DecodeScenarioUpTo(MaxCLIDurationMs, ...). It is no part of the
	// document: a scenario read anywhere else keeps the page's limit.
	maxDurationMs int64
}

// DurationLimitMs is the longest duration_ms sc may have: MaxDurationMs
// unless it was decoded with a longer limit (DecodeScenarioUpTo).
func (sc *Scenario) DurationLimitMs() int64 {
	if sc.maxDurationMs > 0 {
		return sc.maxDurationMs
	}
	return MaxDurationMs
}

// Arm is one side of an A/B comparison: a label and knob overrides (path -> value).
type Arm struct {
	Name string            `json:"name"`
	Set  map[string]string `json:"set"`
}

// sets lists the arm's overrides as "path=value", sorted by path, for WithKnobs.
func (a Arm) sets() []string {
	var sets []string
	for _, k := range slices.Sorted(maps.Keys(a.Set)) {
		sets = append(sets, k+"="+a.Set[k])
	}
	return sets
}

// Published is one measured data point from the source the scenario models.
type Published struct {
	Arm    string             `json:"arm"`
	Set    map[string]string  `json:"set,omitzero"`
	Values map[string]float64 `json:"values"`
	// Relative marks values the source published only as changes between
	// arms ("throughput improved by 50-70%"): the relative points of one
	// setting share a unit nobody measured, so only their ratios (B / A) mean
	// anything. They are compared as changes and never as figures.
	Relative bool   `json:"relative,omitzero"`
	Source   string `json:"source,omitzero"`
}

// Costs are the platform's time costs. Defaults depend on the platform
// (platformCosts); any field given in the scenario overrides the default.
type Costs struct {
	// ContextSwitchNs is CPU time to switch from one thread to another.
	ContextSwitchNs int64 `json:"context_switch_ns"`
	// IPISendNs is sender CPU time to send an IPI (a VM exit on KVM without posted IPIs).
	IPISendNs int64 `json:"ipi_send_ns"`
	// IPILatencyNs is the delay from sending an IPI to its delivery on a running CPU.
	IPILatencyNs int64 `json:"ipi_latency_ns"`
	// IRQHandleNs is the receiver's CPU time in the interrupt handler (IPI or device).
	IRQHandleNs int64 `json:"irq_handle_ns"`
	// HaltExitNs is CPU time of entering a halt (a VM exit + later entry on KVM).
	HaltExitNs int64 `json:"halt_exit_ns"`
	// HaltedWakeNs is the extra delay to wake a halted CPU whose wake the host did not
	// catch while polling: on KVM the host must schedule the vCPU back in.
	HaltedWakeNs int64 `json:"halted_wake_ns"`
	// PolledWakeNs is the extra delay to wake a halted vCPU while the host halt-polls.
	PolledWakeNs int64 `json:"polled_wake_ns"`
	// SpinIterPs is the time of one idle-loop spin iteration, in picoseconds.
	SpinIterPs int64 `json:"spin_iter_ps"`
	// MigrationWarmNs is extra run time a thread pays after moving to another CPU if
	// it last ran less than CacheHotNs ago (its cache is cold on the new CPU).
	MigrationWarmNs int64 `json:"migration_warm_ns"`
	CacheHotNs      int64 `json:"cache_hot_ns"`
	// SMTYieldPct is what a core with both SMT threads busy gets done, in
	// percent of one thread alone: each thread then runs at half of it
	// (smt.go). Only machines whose topology has SMT use it.
	SMTYieldPct int64 `json:"smt_yield_pct"`
	// BalancePassNs is the CPU time of one pass of OSv's load_balance thread.
	BalancePassNs int64 `json:"balance_pass_ns"`
	// NewidleBalanceNs is the CPU time of one Linux newidle balance that pulls a
	// task (the linux policy only).
	NewidleBalanceNs int64 `json:"newidle_balance_ns"`
}

// Sched selects the guest scheduler policy and its mechanisms.
type Sched struct {
	// Policy is the scheduler: "osv" (OSv's, with idle pull and adaptive spin),
	// "scx_simple" (sched_ext's example scheduler) or "linux" (Linux's classes:
	// EEVDF, real-time, deadline); docs/mechanisms.md describes each.
	Policy string `json:"policy"`
	// WakeSync is scx_select_cpu_dfl's WAKE_SYNC rule: "old" (migrate to the waker's
	// CPU when any CPU is idle), "proposed" (when the waker CPU's local queue is
	// empty, the fix as first posted) or "new" (when both hold, as merged). Only
	// scx_simple uses it.
	WakeSync string `json:"wake_sync"`
	// WakePull enables idle-CPU pull (OSV_WAKE_PULL=1).
	WakePull bool     `json:"wake_pull"`
	IdleSpin IdleSpin `json:"idle_spin"`
	// BalanceIntervalMs is the push load balancer's period; 0 disables it.
	BalanceIntervalMs int64 `json:"balance_interval_ms"`
	// Balancer is what one load_balance pass does: "stock" (OSv master: push at
	// most one thread) or "drain" (OSv pull request 1464: keep pushing until this
	// CPU is no longer more loaded than the least loaded by more than one).
	Balancer string `json:"balancer"`
	// APBringupUs is how long an application processor takes from its start IPIs
	// (smp_launch) to ap_bringup(), where its load_balance thread starts; the boot
	// CPU's starts in smp_launch itself.
	APBringupUs int64 `json:"ap_bringup_us"`
	// DecayTauMs is the time constant of the decayed runtime that orders runqueues.
	DecayTauMs int64 `json:"decay_tau_ms"`
	// HysteresisUs is credited to the running thread when a wakee asks to preempt it.
	HysteresisUs int64 `json:"hysteresis_us"`
	// SwitchPenaltyUs is charged to a thread's runtime when it preempts another.
	SwitchPenaltyUs int64 `json:"switch_penalty_us"`
	// BaseSliceUs is Linux's sysctl_sched_base_slice before the CPU-count scaling
	// (the linux policy's slice is this times 1+log2(min(CPUs, 8))).
	BaseSliceUs int64 `json:"base_slice_us"`
	// HZ is the Linux policies' tick rate (CONFIG_HZ): a CPU running a task
	// takes a scheduler tick every 1/HZ s (tick.go).
	HZ int64 `json:"hz"`
	// TimerSlackUs is a SCHED_OTHER task's timer_slack_ns, in µs, under the
	// Linux policies: its sleeps and timers expire this much late (tick.go).
	TimerSlackUs int64 `json:"timer_slack_us"`
	// RTRuntimeUs of every RTPeriodUs is what a CPU's real-time tasks may
	// run (sched_rt_runtime_us, sched_rt_period_us; -1: no limit) under the
	// linux policy; admission control gives deadline tasks the same share
	// less the fair servers' (rt.go, dl.go).
	RTRuntimeUs int64 `json:"rt_runtime_us"`
	RTPeriodUs  int64 `json:"rt_period_us"`
	// RRTimesliceMs is SCHED_RR's timeslice (sched_rr_timeslice_ms).
	RRTimesliceMs int64 `json:"rr_timeslice_ms"`
	// ScxSliceUs is the slice scx_simple gives a task (SCX_SLICE_DFL).
	ScxSliceUs int64 `json:"scx_slice_us"`
	// Scx is the sched_ext policy of sched.policy=scx.
	Scx ScxConfig `json:"scx,omitzero"`
	// Groups are task groups' CPU controller settings (cgroup v2's
	// cpu.weight and cpu.max), by path. A group an rt-app taskgroup names
	// and this list does not has the defaults: weight 100, no max. Only
	// sched.policy=linux runs task groups (fairgroup.go).
	Groups []TaskGroup `json:"groups,omitzero"`
}

// IdleSpin is the idle loop's spin window (adaptive idle spin). With Adaptive false the
// window is fixed at Cap iterations.
type IdleSpin struct {
	Adaptive bool `json:"adaptive"`
	// Rule is how an adaptive window moves: "asymmetric" (the published rule: to
	// the cap on a caught wake, halved after K consecutive halts) or "symmetric"
	// (the alternative its author measured: doubled on a caught wake, halved on
	// every halt).
	Rule  string `json:"rule"`
	Cap   int64  `json:"cap"`
	Floor int64  `json:"floor"`
	// HaltsBeforeShrink is K: consecutive halts without a caught wake before the
	// window halves.
	HaltsBeforeShrink int `json:"halts_before_shrink"`
}

// Adaptive spin window rules (Sched.IdleSpin.Rule).
const (
	SpinAsymmetric = "asymmetric"
	SpinSymmetric  = "symmetric"
)

// Workload kinds.
const (
	WorkloadRequestServer = "request_server"
	WorkloadCommit        = "commit"
	WorkloadIdle          = "idle"
	WorkloadHackbench     = "hackbench"
	WorkloadSyncPairs     = "sync_pairs"
	WorkloadThreadPerConn = "thread_per_conn"
)

// Workload describes the threads and their wake pattern.
type Workload struct {
	// Kind is request_server, commit, idle, hackbench, sync_pairs,
	// thread_per_conn, rtapp or trace (the last two need RTApp or Trace).
	Kind string `json:"kind"`
	// Clients is the closed-loop concurrency: client connections (each served by its
	// own backend thread) for request_server and thread_per_conn, writer threads
	// for commit.
	Clients int `json:"clients"`
	// WakerCPU is where the waker starts: the RX thread (request_server) or the
	// log-commit thread (commit). Neither is pinned, as in OSv.
	WakerCPU int `json:"waker_cpu"`
	// SpawnCPU is where the spawner thread (not pinned) starts; it creates the
	// worker threads on the CPU it is on, which becomes their home CPU.
	SpawnCPU int `json:"spawn_cpu"`
	// ConnectIntervalUs staggers client starts: 0 connects all at once.
	ConnectIntervalUs int64 `json:"connect_interval_us"`
	// StartTogether holds every client's first request until all clients are
	// connected (pgbench connects all clients, then starts them at once).
	StartTogether bool `json:"start_together"`
	// StatementsPerTxn is how many request/response round trips make one
	// transaction (pgbench's TPC-B script sends 7); the commit, if any, follows the
	// last. Throughput and latency count transactions.
	StatementsPerTxn int `json:"statements_per_txn"`
	// RequestsPerConn is how many requests a thread_per_conn client sends on one
	// connection, one at a time, before it closes it and connects again (its
	// worker thread exits after answering the last).
	RequestsPerConn int `json:"requests_per_conn"`
	// NetworkRTTUs is the client <-> guest round trip outside the guest.
	NetworkRTTUs int64 `json:"network_rtt_us"`
	// RxCostNs is the RX thread's CPU time per request packet (before it wakes a
	// backend); the NIC interrupt itself costs IRQHandleNs on the CPU it lands on.
	RxCostNs int64 `json:"rx_cost_ns"`
	// RxPriority is the RX thread's OSv priority, the factor its run time is
	// charged at: 1 is an ordinary thread; virtio-net's RX thread has
	// priority_infinity (0.00001), so it always runs first and is never preempted
	// by an ordinary thread.
	RxPriority float64 `json:"rx_priority"`
	// RxBatch is the most packets one RX poll handles before its wakes take effect
	// (Linux NAPI's budget is 64): packets that queued while the RX thread could not
	// run are processed together and their backends woken back to back.
	RxBatch int `json:"rx_batch"`
	// RxQueues is how many RX/TX queue pairs the virtio-net device advertises.
	// 1 is OSv master's single-queue driver (its RX thread not pinned, started
	// on WakerCPU); above 1, OSv pull request 1463's multiqueue driver uses
	// min(RxQueues, vCPUs, the MSI-X vector budget's 96 pairs), each queue's RX
	// thread pinned to its own vCPU (docs/mechanisms.md, Multiqueue receive).
	RxQueues int `json:"rx_queues"`
	// RSS says the device offers receive-side scaling (pull request 1470): it
	// hashes each flow onto one of the queues through a round-robin
	// indirection table. Without it every packet lands on queue 0.
	RSS bool `json:"rss"`
	// Service is a backend's (or writer's) CPU time per request.
	Service Dist `json:"service"`
	// CommitDeviceUs > 0 gives request_server backends a durable commit per request
	// (a WAL flush by a log-commit thread); for the commit workload it is the device
	// latency of each batch write.
	CommitDeviceUs int64 `json:"commit_device_us"`
	// CommitCostNs is the log-commit thread's CPU time per batch.
	CommitCostNs int64 `json:"commit_cost_ns"`
	// CommitWakeNs is a woken committer's CPU time from its wake until it hands
	// the mutex to the next waiter of the chain (wait morphing) and goes on.
	CommitWakeNs int64 `json:"commit_wake_ns"`
	// SpawnUs is the spawner's CPU time to create a backend (fork) and, again,
	// the new backend's start-up before it serves its client.
	SpawnUs int64 `json:"spawn_us"`
	// CommitCPU is where the log-commit thread of request_server starts (it is
	// not pinned); -1 starts it on SpawnCPU.
	CommitCPU int `json:"commit_cpu"`
	// Broadcast is how a commit batch wakes its waiters: "chain" (OSv's condvar
	// wake_all, each wakee wakes the next) or "fanout" (the committer wakes all).
	Broadcast string `json:"broadcast"`
	// TPCBScale is pgbench's scale factor (pgbench -i -s) for the row locks of its
	// tpcb-like script (docs/mechanisms.md, TPC-B row locks): 10*TPCBScale teller
	// rows and TPCBScale branch rows; each transaction updates one of each, drawn
	// uniformly, and holds their row locks until its commit is durable. 0 models no
	// row locks. It applies to request_server with commits and the script's 7
	// statements.
	TPCBScale int `json:"tpcb_scale"`
	// WakeSourcesPerS is the rate per vCPU of the guest's own wake sources (timers,
	// device and housekeeping interrupts), each running HousekeepingNs of work. It
	// applies to every workload; the idle workload has nothing else.
	WakeSourcesPerS float64   `json:"wake_sources_per_s"`
	HousekeepingNs  int64     `json:"housekeeping_ns"`
	Hackbench       Hackbench `json:"hackbench"`
	SyncPairs       SyncPairs `json:"sync_pairs"`
	Schbench        Schbench  `json:"schbench"`
	// RTApp is the rt-app description run by workload.kind "rtapp": the JSON
	// text of an rt-app file (at most MaxRTAppBytes; rtapp_scenario.go).
	RTApp string `json:"rtapp,omitzero"`
	// TraceAllTimed and Trace: workload.kind "trace"'s switch and model
	// (trace_scenario.go); a value: AppendBinaryValue takes no pointers.
	TraceAllTimed bool              `json:"trace_all_timed,omitzero"`
	Trace         kerneltrace.Model `json:"trace,omitzero"`
}

// SyncPairs is a saturated machine with WAKE_SYNC ping-pong on it
// (docs/mechanisms.md, WAKE_SYNC): Spinners CPU-bound tasks that never block,
// beside Pairs pairs of tasks that pass one message back and forth, each
// message's wake WAKE_SYNC.
type SyncPairs struct {
	Spinners int `json:"spinners"`
	Pairs    int `json:"pairs"`
	// MessageNs is a ping-pong task's CPU time per message: reading the one it
	// got and writing the reply.
	MessageNs int64 `json:"message_ns"`
	// SpinnerStepUs is a spinner's computing between reschedule points: the
	// scheduler tick, where an expired slice is noticed.
	SpinnerStepUs int64 `json:"spinner_step_us"`
}

// Hackbench is rt-tests' hackbench over Unix stream sockets (docs/mechanisms.md,
// WAKE_SYNC): per group, FDs senders each write Loops messages to every one of
// the group's FDs receivers.
type Hackbench struct {
	Groups int `json:"groups"`
	// FDs is senders (and receivers) per group.
	FDs   int `json:"fds"`
	Loops int `json:"loops"`
	// MessageBytes is the message size (documentation: the costs below are what
	// the model uses).
	MessageBytes int `json:"message_bytes"`
	// WriteNs and ReadNs are the CPU time of one write and one read.
	WriteNs int64 `json:"write_ns"`
	ReadNs  int64 `json:"read_ns"`
	// SocketMessages is a receiver buffer's capacity in messages; a writer blocks
	// when it is full and is woken (sync) once it drains to a quarter.
	SocketMessages int `json:"socket_messages"`
	// ParentCPU is where the parent forks the children and sends the start byte.
	ParentCPU int `json:"parent_cpu"`
}

// Dist is a random duration distribution.
type Dist struct {
	// Dist is "fixed", "exp", "uniform" (MeanUs +- MeanUs*CV*sqrt(3)) or "lognormal".
	Dist   string  `json:"dist"`
	MeanUs float64 `json:"mean_us"`
	// CV is the coefficient of variation for uniform and lognormal.
	CV float64 `json:"cv"`
}

// Limits bound every scenario, whatever front end it comes from (CLI, URL, share
// API), so that a browser tab stays responsive and memory stays bounded.
const (
	MaxVCPUs      = 128
	MaxClients    = 4096
	MaxDurationMs = 120_000 // two simulated minutes
	// MaxCLIDurationMs is the CLI's limit (DecodeScenarioUpTo): an hour, for
	// rt-app's long use cases (600 s) and the like. The series still has at
	// most MaxDurationMs buckets.
	MaxCLIDurationMs    = 3_600_000
	MaxSpinIterations   = 100_000_000
	MaxCostNs           = 10_000_000 // any single platform cost: 10 ms
	MaxServiceUs        = 1_000_000
	MaxRTTUs            = 1_000_000
	MaxDeviceUs         = 1_000_000
	MaxWakeSourcesPerS  = 100_000
	MaxHostContentionPS = 1_000_000
	// MaxScenarioBytes leaves room for a policy's source (MaxScxSourceBytes),
	// which JSON escaping of its newlines and quotes can nearly double, beside
	// the 16 KB any other scenario fits in.
	MaxScenarioBytes  = 16<<10 + 2*MaxScxSourceBytes
	MaxArms           = 8
	MaxHackbenchTasks = 8192
	MaxSyncPairsTasks = 1024
	// MaxTPCBScale bounds the row-lock table (11 rows per unit of scale); far
	// below it, with at most MaxClients clients, a row is rarely wanted twice.
	MaxTPCBScale = 10_000
	// MaxRxQueues bounds the queue pairs a device may advertise; the driver
	// uses at most 96 of them (its MSI-X vector budget), so more changes nothing.
	MaxRxQueues = 256
)

// DefaultScenario is the embedded default: the idle-pull collapse on a 32-vCPU KVM
// guest at 2x oversubscription.
func DefaultScenario() Scenario {
	return Scenario{
		Version:          SchemaVersion,
		Seed:             1,
		DurationMs:       2000,
		WarmupMs:         500,
		SeriesIntervalMs: 100,
		Machine: Machine{
			VCPUs:               32,
			Platform:            "kvm",
			HostHaltPollNs:      200_000,
			HostHaltPollStartNs: 10_000,
			HostContentionPerS:  0,
			Costs:               platformCosts("kvm"),
		},
		Sched: Sched{
			Policy:            "osv",
			WakeSync:          "new",
			IdleSpin:          IdleSpin{Adaptive: false, Rule: SpinAsymmetric, Cap: 10_000, Floor: 256, HaltsBeforeShrink: 4},
			BalanceIntervalMs: 100,
			Balancer:          "stock",
			APBringupUs:       360,
			DecayTauMs:        200,
			HysteresisUs:      5000,
			SwitchPenaltyUs:   10,
			BaseSliceUs:       750,
			HZ:                250,
			TimerSlackUs:      50,
			RTRuntimeUs:       950_000,
			RTPeriodUs:        1_000_000,
			RRTimesliceMs:     100,
			ScxSliceUs:        20_000,
		},
		Workload: Workload{
			Kind:             WorkloadRequestServer,
			Clients:          64,
			StatementsPerTxn: 1,
			RxBatch:          1,
			RxQueues:         1,
			RequestsPerConn:  100,
			WakerCPU:         0,
			SpawnCPU:         0,
			NetworkRTTUs:     100,
			RxCostNs:         3000,
			RxPriority:       0.00001,
			Service:          Dist{Dist: "exp", MeanUs: 200},
			CommitCPU:        -1,
			CommitCostNs:     5000,
			CommitWakeNs:     1000,
			SpawnUs:          30,
			Broadcast:        "chain",
			WakeSourcesPerS:  0,
			HousekeepingNs:   2000,
			Hackbench: Hackbench{Groups: 10, FDs: 20, Loops: 1000, MessageBytes: 100,
				WriteNs: 360, ReadNs: 360, SocketMessages: 256},
			SyncPairs: SyncPairs{Spinners: 8, Pairs: 2, MessageNs: 720, SpinnerStepUs: 1000},
			// schbench's defaults (-m 1 -n 5 -F 256 -s 100); the costs' sources
			// are in docs/mechanisms.md, schbench.
			Schbench: Schbench{MessageThreads: 1, Operations: 5, FootprintKB: 256, SleepUs: 100, MaddPs: 3000, FutexWakeNs: 1500},
		},
	}
}

// platformCosts returns the documented default costs of a platform
// (docs/mechanisms.md, Costs: each value's source is there).
func platformCosts(platform string) Costs {
	c := Costs{
		ContextSwitchNs:  1500,  // 1-2.5 µs
		SpinIterPs:       3000,  // a few ns per iteration
		MigrationWarmNs:  20000, // cache-hot thread on a new CPU
		CacheHotNs:       500_000,
		SMTYieldPct:      130, // Intel: up to 30% more on server benchmarks
		BalancePassNs:    2000,
		NewidleBalanceNs: 2000,
	}
	switch platform {
	case "kvm":
		c.IPISendNs = 1000     // the ICR write exits to the host
		c.IPILatencyNs = 2000  // 1.5-2.5 µs to a running vCPU
		c.IRQHandleNs = 1000   // guest interrupt entry, handler, EOI
		c.HaltExitNs = 800     // VM exit + entry round trip, 0.5-1 µs
		c.HaltedWakeNs = 20000 // host schedules the vCPU back in: 8-30 µs
		c.PolledWakeNs = 1000  // host caught the wake while polling: fast re-entry
	default: // native
		c.IPISendNs = 200
		c.IPILatencyNs = 700 // under 1 µs
		c.IRQHandleNs = 500
		c.HaltExitNs = 100
		c.HaltedWakeNs = 1500 // C-state exit
		c.PolledWakeNs = 0
	}
	return c
}

package engine

// The task groups' state (fairgroup.go schedules them, fairgroup_setup.go
// makes them).

// taskGroup is a cgroup with the CPU controller (struct task_group).
type taskGroup struct {
	index  int
	path   string
	parent *taskGroup
	// weight is cpu.weight; shares is tg->shares, the weight as a nice-0
	// load (sched_weight_from_cgroup: weight·1024/100).
	weight, shares int64
	rqs            []*fairRQ // its queue on each CPU
	// loadAvg is tg->load_avg: the CPUs' last contributions (tg_load_avg_contrib).
	loadAvg int64
	// cpu.max: quotaNs of CPU time per periodNs; quotaNs < 0 is "max".
	quotaNs, periodNs int64
	pool              int64 // cfs_b->runtime: what is left of this period's quota
	periodAt          int64 // the period timer's expiry, -1 while it is stopped
	idle              bool  // cfs_b->idle: no runtime was taken since the last period
	throttled         []*groupRQ
	// What cpu.stat reports: usage (this group and those below it),
	// nr_periods, nr_throttled and throttled_usec.
	usageNs, nrPeriods, nrThrottled, throttledNs int64
}

// groupRQ is a task group's part of its queue on one CPU.
type groupRQ struct {
	tg     *taskGroup
	cpu    int
	parent *fairRQ     // the queue its entity goes on
	se     *fairEntity // the group's entity on this CPU
	// contrib is tg_load_avg_contrib, last updated at contribAt.
	contrib, contribAt int64
	// runtime is runtime_remaining: local runtime taken from the pool.
	runtime     int64
	throttledAt int64
	throttled   bool
}

// cfsBandwidthSliceNs is sysctl_sched_cfs_bandwidth_slice (5 ms): how much
// runtime a CPU's queue takes from its group's pool at a time.
const cfsBandwidthSliceNs = 5_000_000

// minShares is MIN_SHARES: the least weight a group's entity gets.
const minShares = 2

func (g *groupRQ) runtimeEnabled() bool { return g.tg.quotaNs >= 0 }

// outOfRuntime says a queue with a cpu.max has spent its runtime.
func (g *groupRQ) outOfRuntime() bool { return g.runtimeEnabled() && g.runtime <= 0 }

// TaskGroupResult is one task group's cpu.stat over the whole run.
type TaskGroupResult struct {
	Path   string `json:"path"`
	Weight int64  `json:"weight"`
	// MaxUs and PeriodUs are its cpu.max (MaxUs 0: "max").
	MaxUs    int64 `json:"max_us,omitzero"`
	PeriodUs int64 `json:"period_us"`
	// CPUMs is usage_usec: CPU time its tasks and those of the groups below
	// it ran; CPUFrac is that over the run, in CPUs.
	CPUMs   float64 `json:"cpu_ms"`
	CPUFrac float64 `json:"cpu_frac"`
	// NrPeriods, NrThrottled and ThrottledMs are cpu.max's: periods with
	// the timer running, those in which it throttled, time queues spent
	// throttled (summed over CPUs).
	NrPeriods   int64   `json:"nr_periods,omitzero"`
	NrThrottled int64   `json:"nr_throttled,omitzero"`
	ThrottledMs float64 `json:"throttled_ms,omitzero"`
}

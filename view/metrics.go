package view

import (
	"math"
	"slices"
	"strconv"

	"schedplay/engine"
)

// The headline metric table: which numbers a workload is judged by, what they
// are called, how they are written, which way is better, and which of them the
// share card's four boxes show. The page's cards (package playground) and the
// share card and link description (package preview) both read it, so the same
// result reads the same on both.

// Better says which way a metric is better.
type Better int

const (
	// Neither: more is not better or worse (busy vCPUs, IPIs); a change gets no
	// colour.
	Neither Better = 0
	Higher  Better = +1
	Lower   Better = -1
)

// Verdict is how a change from A to B reads: "better", "worse" or "" (no better
// direction, or too small to call). The page uses it as a CSS class.
type Verdict string

const (
	NoVerdict Verdict = ""
	IsBetter  Verdict = "better"
	IsWorse   Verdict = "worse"
)

// MetricDef is one headline metric.
type MetricDef struct {
	// ID names the metric on the page (the card's data-id).
	ID string
	// Label is the card's title; Short how a sentence names it.
	Label, Short string
	// Key is the metric's dotted name in the engine's results and in a
	// scenario's published values ("throughput_per_s").
	Key    string
	Better Better
	// Value reads the metric; it is NaN when the window measured nothing of it.
	Value func(r *engine.Results) float64
	// Format writes a value that is not NaN.
	Format func(v float64) string
	// Unfinished, when set, writes a NaN value from the simulated time reached
	// (a run time that has not ended yet); otherwise NaN is "–".
	Unfinished func(reachedNs int64) string
	// Ratio makes a sentence lead with the factor ("2.9x throughput").
	Ratio bool
	// KVMOnly marks a view from the KVM host (a halt is a VM exit only under a
	// hypervisor; on bare metal the metric names something that does not happen).
	KVMOnly bool
	// Card marks the metrics the share card shows, in this order.
	Card bool
}

// Workload kinds share most metrics; each is built per call, as a table in a
// package variable would be a mutable global.

func throughputDef() MetricDef {
	return MetricDef{ID: "throughput", Label: "throughput /s", Short: "throughput", Key: "throughput_per_s", Better: Higher,
		Value: func(r *engine.Results) float64 { return r.ThroughputPerS }, Format: Compact, Ratio: true}
}

func busyDef() MetricDef {
	return MetricDef{ID: "busy", Label: "busy vCPUs", Short: "busy vCPUs", Key: "busy_vcpus_mean",
		Value: func(r *engine.Results) float64 { return r.BusyVCPUsMean }, Format: VCPUs}
}

// busyHostDef is what the host sees of the vCPU threads: one that spins in the
// guest's idle loop or that the host halt-polls is busy too, as the published
// busy-vCPU figures were measured.
func busyHostDef() MetricDef {
	return MetricDef{ID: "busy-host", Label: "busy vCPUs (host)", Short: "busy vCPUs (host)", Key: "busy_vcpus_host_mean",
		Value: func(r *engine.Results) float64 { return r.BusyVCPUsHostMean }, Format: VCPUs, KVMOnly: true}
}

func idleOverDef() MetricDef {
	return MetricDef{ID: "idle-over", Label: "idle while overloaded", Short: "idle while overloaded", Key: "idle_while_overloaded_frac",
		Better: Lower, Value: func(r *engine.Results) float64 { return r.IdleWhileOverloadedFrac }, Format: Percent}
}

func ipisDef() MetricDef {
	return MetricDef{ID: "ipis", Label: "IPIs /s", Short: "IPIs /s", Key: "ipis_per_s.total",
		Value: func(r *engine.Results) float64 { return r.IPIsPerS.Total }, Format: Compact}
}

// migrationsDef counts threads that ran on a CPU other than their last: how
// fast the work is being spread (or moved back and forth).
func migrationsDef() MetricDef {
	return MetricDef{ID: "migrations", Label: "migrations /s", Short: "migrations /s", Key: "migrations_per_s",
		Value: func(r *engine.Results) float64 { return r.MigrationsPerS }, Format: Compact}
}

func haltsDef() MetricDef {
	return MetricDef{ID: "halts", Label: "halt VM exits /s", Short: "halt exits /s", Key: "halt_exits_per_s", Better: Lower,
		Value: func(r *engine.Results) float64 { return r.HaltExitsPerS }, Format: Compact, KVMOnly: true}
}

// latencyDef is a request latency statistic, NaN until a request completed.
func latencyDef(id, label, key string, pick func(engine.LatencySummary) float64) MetricDef {
	return MetricDef{ID: id, Label: label, Short: label, Key: key, Better: Lower,
		Value: func(r *engine.Results) float64 {
			if r.Completed == 0 {
				return math.NaN()
			}
			return pick(r.LatencyUs)
		},
		Format: durationUs}
}

func durationUs(us float64) string { return Duration(us * 1e3) }

// fairnessDef is Jain's index over the CPU time each worker received: 1 when
// every one got the same. Three decimals, since the interesting values sit just
// below 1 (0.889 against 0.9998 would both read "1.0" with fewer).
func fairnessDef() MetricDef {
	return MetricDef{ID: "fairness", Label: "task fairness", Short: "task fairness", Key: "task_fairness", Better: Higher,
		Value: func(r *engine.Results) float64 {
			if r.TaskFairness == 0 {
				return math.NaN() // no worker has run in the window yet
			}
			return r.TaskFairness
		},
		Format: func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }}
}

// waitDef is a statistic of how long a runnable task waited before it ran.
func waitDef(id, label, key string, pick func(engine.WaitSummary) float64) MetricDef {
	return MetricDef{ID: id, Label: label, Short: label, Key: key, Better: Lower,
		Value: func(r *engine.Results) float64 { return pick(r.RunnableWaitUs) }, Format: durationUs}
}

// rowLockDefs are pgbench's row-lock waits (workload.tpcb_scale): how many
// transactions waited for a row another transaction held, and for how long.
// Both, because either alone cannot tell many short waits from a few long
// ones. NaN where the run has no row locks, or no wait has ended.
func rowLockDefs() []MetricDef {
	share := MetricDef{ID: "lock-waited", Label: "waited on a row lock", Short: "transactions that waited on a row lock",
		Key: "row_locks.waited_txn_frac", Better: Lower,
		Value: func(r *engine.Results) float64 {
			if r.RowLocks.TPCBScale == 0 {
				return math.NaN()
			}
			return r.RowLocks.WaitedTxnFrac
		},
		Format: Percent}
	wait := MetricDef{ID: "lock-wait", Label: "row-lock wait", Short: "mean row-lock wait", Key: "row_locks.wait_mean_us", Better: Lower,
		Value: func(r *engine.Results) float64 {
			if r.RowLocks.TPCBScale == 0 || r.RowLocks.WaitsPerS == 0 {
				return math.NaN()
			}
			return r.RowLocks.WaitMeanUs
		},
		Format: durationUs}
	return []MetricDef{share, wait}
}

// Shows is what the runs a metric table is for have that decides some of its
// metrics: an arm under KVM (a halt is a VM exit only under a hypervisor, so the
// KVMOnly metrics are left out otherwise), pgbench's row locks (a server whose
// runs take them is judged by its lock waits too). Both come from the runs'
// scenarios, so the cards are the same before the first results and after.
type Shows struct {
	KVM, RowLocks bool
	// Deadline: some run has SCHED_DEADLINE tasks (rt-app's, under
	// sched.policy=linux), whose deadline misses get a card.
	Deadline bool
}

// dlMissesDef counts the SCHED_DEADLINE activations that ended after their
// deadline, over every rt-app task.
func dlMissesDef() MetricDef {
	return MetricDef{ID: "dl-misses", Label: "deadline misses", Short: "deadline misses", Key: "rtapp.tasks.dl_misses", Better: Lower,
		Value: func(r *engine.Results) float64 {
			n := int64(0)
			for _, t := range r.RTApp.Tasks {
				n += t.DLMisses
			}
			return float64(n)
		}, Format: Compact}
}

// Metrics lists the headline metrics of a workload kind, in the order the page
// shows them, for runs with what shows says. A server is judged by throughput
// and latency (and, with row locks, its lock waits after its latency), a finite
// run (hackbench) by how long it took, a durable writer by how long a woken
// writer waits, an idle guest by what its idle loop costs the host.
//
// The share card keeps its four: it compares the scheduler changes, and the
// lock waits are part of why a server's throughput and latency move, not a
// result of their own to set beside them.
func Metrics(kind string, shows Shows) []MetricDef {
	var ms []MetricDef
	switch kind {
	case engine.WorkloadHackbench:
		runTime := MetricDef{ID: "elapsed", Label: "run time", Short: "run time", Key: "elapsed_s", Better: Lower,
			Value: func(r *engine.Results) float64 {
				if r.ElapsedS == 0 {
					return math.NaN() // not finished within what was simulated
				}
				return r.ElapsedS
			},
			Format:     func(v float64) string { return Duration(v * 1e9) },
			Unfinished: func(reachedNs int64) string { return "> " + Duration(float64(reachedNs)) },
			Card:       true}
		// A hackbench run's "latency" is when each task finished, from the start.
		p99 := latencyDef("p99", "p99 task finish", "latency_us.p99", func(l engine.LatencySummary) float64 { return l.P99 })
		waitP99 := waitDef("wait-p99", "p99 wait to run", "runnable_wait_us.p99", func(w engine.WaitSummary) float64 { return w.P99 })
		ms = []MetricDef{runTime, p99, fairnessDef(), waitP99, busyDef(), busyHostDef(), idleOverDef(), ipisDef(), haltsDef()}
		cardOn(ms, "elapsed", "busy", "idle-over", "ipis")
	case engine.WorkloadSyncPairs:
		// The saturated case WAKE_SYNC's review argued about: who gets the CPU.
		// Most waits are nil (a wakee's vtime credit puts it at the head of the
		// shared queue), so the longest wait is the one that tells.
		waitMax := waitDef("wait-max", "longest wait to run", "runnable_wait_us.max", func(w engine.WaitSummary) float64 { return w.Max })
		ms = []MetricDef{throughputDef(), fairnessDef(), waitMax, busyDef(), busyHostDef(), ipisDef(), haltsDef()}
		cardOn(ms, "throughput", "fairness", "wait-max", "busy")
	case engine.WorkloadIdle:
		hostCPU := MetricDef{ID: "host-cpu", Label: "host CPU", Short: "host CPU", Key: "host_cpu_frac", Better: Lower,
			Value: func(r *engine.Results) float64 { return r.HostCPUFrac }, Format: Percent}
		spinCPU := MetricDef{ID: "spin-cpu", Label: "spin CPU", Short: "spin CPU", Key: "spin_cpu_frac", Better: Lower,
			Value: func(r *engine.Results) float64 { return r.SpinCPUFrac }, Format: Percent}
		ms = []MetricDef{haltsDef(), hostCPU, spinCPU, busyDef(), busyHostDef(), ipisDef()}
		cardOn(ms, "halts", "host-cpu", "spin-cpu", "ipis")
	case engine.WorkloadCommit:
		// A durable writer waits on its device, then for a vCPU: the wake to run
		// is what the idle loop decides.
		wake := MetricDef{ID: "wake", Label: "wake to run", Short: "wake to run", Key: "wake_to_run_us.mean", Better: Lower,
			Value: func(r *engine.Results) float64 {
				if r.WakeToRunUs.Mean == 0 {
					return math.NaN() // no wake measured yet
				}
				return r.WakeToRunUs.Mean
			},
			Format: durationUs}
		p99 := latencyDef("p99", "p99 latency", "latency_us.p99", func(l engine.LatencySummary) float64 { return l.P99 })
		ms = []MetricDef{throughputDef(), wake, p99, busyDef(), busyHostDef(), idleOverDef(), ipisDef(), haltsDef()}
		cardOn(ms, "throughput", "wake", "p99", "halts")
	case engine.WorkloadThreadPerConn:
		// Pull request 1464's server: throughput, and a machine mostly idle
		// (busy vCPUs as the guest counts them, its figure) while workers wait
		// on a few CPUs; migrations show how each way spreads them.
		mean := latencyDef("mean", "mean latency", "latency_us.mean", func(l engine.LatencySummary) float64 { return l.Mean })
		p99 := latencyDef("p99", "p99 latency", "latency_us.p99", func(l engine.LatencySummary) float64 { return l.P99 })
		ms = []MetricDef{throughputDef(), busyDef(), idleOverDef(), mean, p99, migrationsDef(), busyHostDef(), ipisDef(), haltsDef()}
		cardOn(ms, "throughput", "busy", "idle-over", "mean")
	case engine.WorkloadTrace:
		// A replayed trace has no requests: how much of the CPU time the
		// trace records has been replayed, how long threads wait to run, how
		// busy the machine is and how often threads move. The trace panel's
		// table sets each process as recorded beside each arm.
		replayed := MetricDef{ID: "replayed", Label: "CPU time replayed", Short: "CPU replayed", Key: "trace.cpu_replayed_frac",
			Value: func(r *engine.Results) float64 {
				var rec, rep float64
				for _, p := range r.Trace.Processes {
					rec, rep = rec+p.Recorded.CPUMs, rep+p.Replayed.CPUMs
				}
				if rec == 0 {
					return math.NaN()
				}
				return rep / rec
			},
			Format: Percent}
		waitP99 := waitDef("wait-p99", "p99 wait to run", "runnable_wait_us.p99", func(w engine.WaitSummary) float64 { return w.P99 })
		ms = []MetricDef{replayed, waitP99, busyDef(), migrationsDef(), idleOverDef(), ipisDef(), busyHostDef(), haltsDef()}
		cardOn(ms, "replayed", "wait-p99", "busy", "migrations")
	default:
		mean := latencyDef("mean", "mean latency", "latency_us.mean", func(l engine.LatencySummary) float64 { return l.Mean })
		p99 := latencyDef("p99", "p99 latency", "latency_us.p99", func(l engine.LatencySummary) float64 { return l.P99 })
		ms = []MetricDef{throughputDef(), mean, p99}
		if shows.RowLocks {
			ms = append(ms, rowLockDefs()...)
		}
		ms = append(ms, busyDef(), busyHostDef(), idleOverDef(), ipisDef(), haltsDef())
		cardOn(ms, "throughput", "mean", "busy", "idle-over")
		if shows.Deadline {
			ms = append([]MetricDef{dlMissesDef()}, ms...)
		}
	}
	if !shows.KVM {
		ms = slices.DeleteFunc(ms, func(d MetricDef) bool { return d.KVMOnly })
	}
	return ms
}

// cardOn marks the metrics with these IDs as the share card's.
func cardOn(ms []MetricDef, ids ...string) {
	for i := range ms {
		ms[i].Card = slices.Contains(ids, ms[i].ID)
	}
}

// CardMetrics is the subset of Metrics the share card shows, in the page's order.
func CardMetrics(kind string, shows Shows) []MetricDef {
	return slices.DeleteFunc(Metrics(kind, shows), func(d MetricDef) bool { return !d.Card })
}

// Text writes value v; reachedNs is the simulated time the run has reached, for
// a value that is not known until the run ends.
func (d *MetricDef) Text(v float64, reachedNs int64) string {
	if math.IsNaN(v) {
		if d.Unfinished != nil {
			return d.Unfinished(reachedNs)
		}
		return "–"
	}
	return d.Format(v)
}

// Shown is a metric as every surface writes it: arm A's value, arm B's, the
// change and its verdict (the last three empty for one run).
type Shown struct {
	A, B, Change string
	Verdict      Verdict
}

// Show writes the metric of one run (len(rs) == 1) or of a comparison (A is
// rs[0], B rs[1]); reachedNs is how far the runs have been simulated.
func (d *MetricDef) Show(reachedNs int64, rs ...*engine.Results) Shown {
	va := d.Value(rs[0])
	s := Shown{A: d.Text(va, reachedNs)}
	if len(rs) < 2 {
		return s
	}
	vb := d.Value(rs[1])
	s.B = d.Text(vb, reachedNs)
	// A change between values shown alike (an idle guest's "<0.1% → <0.1%") is
	// below what the values can show, and would read as a contradiction.
	if s.A != s.B {
		s.Change = Change(va, vb)
	}
	if s.Change != "" {
		s.Verdict = d.Better.judge(va, vb)
	}
	return s
}

// judge colours a change from a to b. Within 2% of a it is no verdict: seeds
// alone move a result that much, and a green "+1.2%" would claim a win.
func (b Better) judge(va, vb float64) Verdict {
	if b == Neither || !(math.Abs(vb-va) > 0.02*math.Abs(va)) {
		return NoVerdict
	}
	if (vb > va) == (b == Higher) {
		return IsBetter
	}
	return IsWorse
}

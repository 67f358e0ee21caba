package engine

import (
	"maps"
	"math"
	"slices"
	"strconv"
)

// Validate checks every field against its range and the cross-field rules, and
// returns the first problem as a *FieldError naming the field.
func (sc *Scenario) Validate() error {
	v := validator{}
	v.intEq("version", int64(sc.Version), SchemaVersion)
	v.intRange("duration_ms", sc.DurationMs, 1, MaxDurationMs)
	v.intRange("warmup_ms", sc.WarmupMs, 0, sc.DurationMs-1)
	v.intRange("series_interval_ms", sc.SeriesIntervalMs, 1, MaxDurationMs)

	m := &sc.Machine
	v.intRange("machine.vcpus", int64(m.VCPUs), 1, MaxVCPUs)
	v.oneOf("machine.platform", m.Platform, "native", "kvm")
	v.intRange("machine.host_halt_poll_ns", m.HostHaltPollNs, 0, MaxCostNs)
	v.intRange("machine.host_halt_poll_start_ns", m.HostHaltPollStartNs, 1, MaxCostNs)
	v.floatRange("machine.host_contention_per_s", m.HostContentionPerS, 0, MaxHostContentionPS)
	c := &m.Costs
	for _, f := range []struct {
		path string
		val  int64
	}{
		{"machine.costs.context_switch_ns", c.ContextSwitchNs},
		{"machine.costs.ipi_send_ns", c.IPISendNs},
		{"machine.costs.ipi_latency_ns", c.IPILatencyNs},
		{"machine.costs.irq_handle_ns", c.IRQHandleNs},
		{"machine.costs.halt_exit_ns", c.HaltExitNs},
		{"machine.costs.halted_wake_ns", c.HaltedWakeNs},
		{"machine.costs.polled_wake_ns", c.PolledWakeNs},
		{"machine.costs.migration_warm_ns", c.MigrationWarmNs},
		{"machine.costs.cache_hot_ns", c.CacheHotNs},
		{"machine.costs.balance_pass_ns", c.BalancePassNs},
		{"machine.costs.newidle_balance_ns", c.NewidleBalanceNs},
	} {
		v.intRange(f.path, f.val, 0, MaxCostNs)
	}
	v.intRange("machine.costs.spin_iter_ps", c.SpinIterPs, 1, 1_000_000)

	s := &sc.Sched
	v.oneOf("sched.policy", s.Policy, "osv", "scx_simple", "linux")
	v.oneOf("sched.wake_sync", s.WakeSync, "old", "new")
	v.intRange("sched.idle_spin.cap", s.IdleSpin.Cap, 0, MaxSpinIterations)
	v.intRange("sched.idle_spin.floor", s.IdleSpin.Floor, 0, s.IdleSpin.Cap)
	v.intRange("sched.idle_spin.halts_before_shrink", int64(s.IdleSpin.HaltsBeforeShrink), 1, 1000)
	v.intRange("sched.balance_interval_ms", s.BalanceIntervalMs, 0, 10_000)
	v.intRange("sched.decay_tau_ms", s.DecayTauMs, 1, 100_000)
	v.intRange("sched.hysteresis_us", s.HysteresisUs, 0, 1_000_000)
	v.intRange("sched.switch_penalty_us", s.SwitchPenaltyUs, 0, 1_000_000)
	v.intRange("sched.base_slice_us", s.BaseSliceUs, 1, 1_000_000)
	v.intRange("sched.scx_slice_us", s.ScxSliceUs, 1, 1_000_000)

	w := &sc.Workload
	v.oneOf("workload.kind", w.Kind, WorkloadRequestServer, WorkloadCommit, WorkloadIdle, WorkloadHackbench)
	minClients := int64(1)
	if w.Kind == WorkloadIdle || w.Kind == WorkloadHackbench {
		minClients = 0
	}
	v.intRange("workload.clients", int64(w.Clients), minClients, MaxClients)
	v.intRange("workload.waker_cpu", int64(w.WakerCPU), 0, int64(m.VCPUs-1))
	v.intRange("workload.spawn_cpu", int64(w.SpawnCPU), -1, int64(m.VCPUs-1))
	v.intRange("workload.commit_cpu", int64(w.CommitCPU), -1, int64(m.VCPUs-1))
	v.intRange("workload.connect_interval_us", w.ConnectIntervalUs, 0, 1_000_000)
	v.intRange("workload.statements_per_txn", int64(w.StatementsPerTxn), 1, 100)
	v.intRange("workload.network_rtt_us", w.NetworkRTTUs, 0, MaxRTTUs)
	v.intRange("workload.rx_cost_ns", w.RxCostNs, 0, MaxCostNs)
	v.intRange("workload.rx_batch", int64(w.RxBatch), 1, 4096)
	v.floatRange("workload.rx_priority", w.RxPriority, 1e-6, 1000)
	v.oneOf("workload.service.dist", w.Service.Dist, "fixed", "exp", "uniform", "lognormal")
	v.floatRange("workload.service.mean_us", w.Service.MeanUs, 0.001, MaxServiceUs)
	maxCV := 3.0
	if w.Service.Dist == "uniform" {
		maxCV = 1 / math.Sqrt(3) // keeps the lower bound non-negative
	}
	v.floatRange("workload.service.cv", w.Service.CV, 0, maxCV)
	v.intRange("workload.commit_device_us", w.CommitDeviceUs, 0, MaxDeviceUs)
	if w.Kind == WorkloadCommit {
		v.intRange("workload.commit_device_us", w.CommitDeviceUs, 1, MaxDeviceUs)
	}
	v.intRange("workload.commit_cost_ns", w.CommitCostNs, 0, MaxCostNs)
	v.intRange("workload.commit_wake_ns", w.CommitWakeNs, 0, MaxCostNs)
	v.intRange("workload.spawn_us", w.SpawnUs, 0, MaxServiceUs)
	v.oneOf("workload.broadcast", w.Broadcast, "chain", "fanout")
	hb := &w.Hackbench
	v.intRange("workload.hackbench.groups", int64(hb.Groups), 1, MaxHackbenchTasks/2)
	v.intRange("workload.hackbench.fds", int64(hb.FDs), 1, MaxHackbenchTasks/2)
	if 2*hb.Groups*hb.FDs > MaxHackbenchTasks {
		v.fail("workload.hackbench.fds", "%d groups x %d fds makes %d tasks, above the limit %d", hb.Groups, hb.FDs, 2*hb.Groups*hb.FDs, MaxHackbenchTasks)
	}
	v.intRange("workload.hackbench.loops", int64(hb.Loops), 1, 1_000_000)
	v.intRange("workload.hackbench.message_bytes", int64(hb.MessageBytes), 1, 1<<20)
	v.intRange("workload.hackbench.write_ns", hb.WriteNs, 1, MaxCostNs)
	v.intRange("workload.hackbench.read_ns", hb.ReadNs, 1, MaxCostNs)
	v.intRange("workload.hackbench.socket_messages", int64(hb.SocketMessages), 4, 1<<20)
	v.intRange("workload.hackbench.parent_cpu", int64(hb.ParentCPU), 0, int64(m.VCPUs-1))
	v.floatRange("workload.wake_sources_per_s", w.WakeSourcesPerS, 0, MaxWakeSourcesPerS)
	v.intRange("workload.housekeeping_ns", w.HousekeepingNs, 0, MaxCostNs)

	if len(sc.Arms) > MaxArms {
		v.fail("arms", "has %d arms, above the limit %d", len(sc.Arms), MaxArms)
	}
	for i, a := range sc.Arms {
		for _, k := range slices.Sorted(maps.Keys(a.Set)) {
			if _, err := KnobValue(k, a.Set[k]); err != nil && v.err == nil {
				v.fail(pathIndex("arms", i, "set."+k), "%s", err.(*FieldError).Msg)
			}
		}
	}
	for i, p := range sc.Published {
		for _, k := range slices.Sorted(maps.Keys(p.Set)) {
			if _, err := KnobValue(k, p.Set[k]); err != nil && v.err == nil {
				v.fail(pathIndex("published", i, "set."+k), "%s", err.(*FieldError).Msg)
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(sc.Fitted)) {
		if _, err := knobType(k); err != nil && v.err == nil {
			v.fail("fitted."+k, "%s", err.(*FieldError).Msg)
		}
	}
	return v.err
}

func pathIndex(list string, i int, rest string) string {
	return list + "." + strconv.Itoa(i) + "." + rest
}

// validator keeps the first error so that checks read as a flat list.
type validator struct{ err error }

func (v *validator) fail(path, format string, args ...any) {
	if v.err == nil {
		v.err = fieldErr(path, format, args...)
	}
}

func (v *validator) intEq(path string, got, want int64) {
	if got != want {
		v.fail(path, "%d is not supported (this engine reads version %d)", got, want)
	}
}

func (v *validator) intRange(path string, got, lo, hi int64) {
	switch {
	case got < lo:
		v.fail(path, "%d is below the minimum %d", got, lo)
	case got > hi:
		v.fail(path, "%d is above the maximum %d", got, hi)
	}
}

func (v *validator) floatRange(path string, got, lo, hi float64) {
	switch {
	case math.IsNaN(got) || math.IsInf(got, 0):
		v.fail(path, "must be a finite number")
	case got < lo:
		v.fail(path, "%g is below the minimum %g", got, lo)
	case got > hi:
		v.fail(path, "%g is above the maximum %g", got, hi)
	}
}

func (v *validator) oneOf(path, got string, allowed ...string) {
	for _, a := range allowed {
		if got == a {
			return
		}
	}
	v.fail(path, "%q is not one of %v", got, allowed)
}

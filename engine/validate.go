package engine

import (
	"maps"
	"math"
	"slices"
	"strconv"

	"schedplay/rtapp"
)

// Validate checks every field against its range in the knob schema, then the
// rules that tie fields together, and returns the first problem as a *FieldError
// naming the field.
func (sc *Scenario) Validate() error {
	v := validator{}
	v.intEq("version", int64(sc.Version), SchemaVersion)
	v.checkRanges(sc)
	if v.err == nil {
		// machine.vcpus against machine.topology, machine.capacity and
		// machine.numa_distance: the table's own checks.
		if _, err := NewTopoTable(sc.Machine); err != nil {
			v.err = err
		}
	}

	v.intRange("warmup_ms", sc.WarmupMs, 0, sc.DurationMs-1)
	// The series has at most MaxDurationMs buckets (the page's longest run
	// at 1 ms), however long a CLI run is.
	if sc.SeriesIntervalMs > 0 && sc.DurationMs/sc.SeriesIntervalMs > MaxDurationMs {
		v.fail("series_interval_ms", "%d makes %d buckets of the %d ms run, above the limit %d: raise it to %d or more",
			sc.SeriesIntervalMs, sc.DurationMs/sc.SeriesIntervalMs, sc.DurationMs, MaxDurationMs, (sc.DurationMs+MaxDurationMs-1)/MaxDurationMs)
	}
	// A knob naming a vCPU must name one the machine has.
	for _, k := range Knobs() {
		if k.CPUIndex {
			v.intRange(k.Path, k.get(sc).Int(), int64(k.Min), int64(sc.Machine.VCPUs-1))
		}
	}
	s := &sc.Sched
	if len(s.Scx.Source) > MaxScxSourceBytes {
		v.fail("sched.scx.source", "is %d bytes, above the limit %d", len(s.Scx.Source), MaxScxSourceBytes)
	}
	if s.Scx.WatchdogMs != 0 {
		v.intRange("sched.scx.watchdog_ms", s.Scx.WatchdogMs, 10, 30_000) // SCX_WATCHDOG_MAX_TIMEOUT (bpf_scx_init_member)
	}
	v.intRange("sched.idle_spin.floor", s.IdleSpin.Floor, 0, s.IdleSpin.Cap)
	v.taskGroups(s.Groups)

	w := &sc.Workload
	if w.Kind == WorkloadRequestServer || w.Kind == WorkloadCommit || w.Kind == WorkloadThreadPerConn {
		v.intRange("workload.clients", int64(w.Clients), 1, MaxClients)
	}
	if w.Service.Dist == "uniform" {
		v.floatRange("workload.service.cv", w.Service.CV, 0, 1/math.Sqrt(3)) // keeps the lower bound non-negative
	}
	if w.Kind == WorkloadCommit {
		v.intRange("workload.commit_device_us", w.CommitDeviceUs, 1, MaxDeviceUs)
	}
	if w.Kind == WorkloadRequestServer && w.TPCBScale > 0 {
		// The row locks are taken at the tpcb-like script's UPDATE statements and
		// released at its commit (rowlock.go).
		if w.StatementsPerTxn != tpcbStatements {
			v.fail("workload.tpcb_scale", "%d needs the tpcb-like script's %d statements per transaction, not workload.statements_per_txn=%d", w.TPCBScale, tpcbStatements, w.StatementsPerTxn)
		}
		if w.CommitDeviceUs == 0 {
			v.fail("workload.tpcb_scale", "%d needs a durable commit (workload.commit_device_us above 0): row locks are released when the commit is durable", w.TPCBScale)
		}
	}
	if sb := &w.Schbench; w.Kind == WorkloadSchbench {
		per := sb.Workers
		if per == 0 {
			per = (sc.Machine.VCPUs + sb.MessageThreads - 1) / max(sb.MessageThreads, 1)
		}
		if n := sb.MessageThreads * per; n > MaxSchbenchThreads {
			v.fail("workload.schbench.workers", "%d message threads x %d workers makes %d, above the limit %d", sb.MessageThreads, per, n, MaxSchbenchThreads)
		}
		if sb.PinMessage && sb.MessageThreads > sc.Machine.VCPUs {
			v.fail("workload.schbench.pin_message", "pins %d message threads, one per vCPU, on %d vCPUs", sb.MessageThreads, sc.Machine.VCPUs)
		}
	}
	if sp := &w.SyncPairs; sp.Spinners+2*sp.Pairs > MaxSyncPairsTasks {
		v.fail("workload.sync_pairs.pairs", "%d spinners and %d pairs make %d tasks, above the limit %d", sp.Spinners, sp.Pairs, sp.Spinners+2*sp.Pairs, MaxSyncPairsTasks)
	}
	hb := &w.Hackbench
	if 2*hb.Groups*hb.FDs > MaxHackbenchTasks {
		v.fail("workload.hackbench.fds", "%d groups x %d fds makes %d tasks, above the limit %d", hb.Groups, hb.FDs, 2*hb.Groups*hb.FDs, MaxHackbenchTasks)
	}

	if w.RTApp != "" && w.Kind != WorkloadRTApp {
		v.fail("workload.rtapp", "is set, but workload.kind is %q: an rt-app description runs under workload.kind=%s", w.Kind, WorkloadRTApp)
	}
	if w.Kind == WorkloadRTApp && v.err == nil {
		if _, err := decodeRTApp(w, sc.Machine.VCPUs, sc.DurationMs, sc.Sched); err != nil {
			v.err = err
		}
	}

	if len(w.Trace.Threads) > 0 && w.Kind != WorkloadTrace {
		v.fail("workload.trace", "is set, but workload.kind is %q: a trace's model runs under workload.kind=%s", w.Kind, WorkloadTrace)
	}
	if w.Kind == WorkloadTrace && v.err == nil {
		if err := checkTraceModel(&w.Trace); err != nil {
			v.err = err
		}
	}

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
		if p.Relative && p.Arm == "" && v.err == nil {
			v.fail(pathIndex("published", i, "relative"), "a relative point compares arms: it needs an arm")
		}
		if p.Relative && v.err == nil {
			for _, k := range slices.Sorted(maps.Keys(p.Values)) {
				if x := p.Values[k]; !(x > 0) {
					v.fail(pathIndex("published", i, "values."+k), "a relative value is a ratio's term: want a number above 0, not %v", x)
					break
				}
			}
		}
		for _, k := range slices.Sorted(maps.Keys(p.Set)) {
			if _, err := KnobValue(k, p.Set[k]); err != nil && v.err == nil {
				v.fail(pathIndex("published", i, "set."+k), "%s", err.(*FieldError).Msg)
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(sc.Fitted)) {
		if _, ok := LookupKnob(k); !ok && v.err == nil {
			v.fail("fitted."+k, "%s", knobPathError(k).(*FieldError).Msg)
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

// taskGroups checks sched.groups: a path rt-app could name, once each, and
// the ranges cgroup v2's cpu.weight and cpu.max accept.
func (v *validator) taskGroups(groups []TaskGroup) {
	if len(groups) > MaxTaskGroups {
		v.fail("sched.groups", "has %d groups, above the limit %d", len(groups), MaxTaskGroups)
		return
	}
	seen := map[string]bool{}
	for i, g := range groups {
		at := "sched.groups[" + strconv.Itoa(i) + "]"
		switch why := rtapp.CheckTaskgroup(g.Path); {
		case why != "":
			v.fail(at+".path", "%q: %s", g.Path, why)
		case g.Path == "/":
			v.fail(at+".path", "the root group has no cpu.weight or cpu.max to set")
		case seen[g.Path]:
			v.fail(at+".path", "%q is listed twice", g.Path)
		}
		seen[g.Path] = true
		if g.Weight != 0 {
			v.intRange(at+".weight", g.Weight, 1, 10_000)
		}
		if g.MaxUs != 0 {
			v.intRange(at+".max_us", g.MaxUs, 1000, 1<<40)
		}
		if g.PeriodUs != 0 {
			v.intRange(at+".period_us", g.PeriodUs, 1000, 1_000_000)
		}
	}
}

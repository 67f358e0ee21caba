package engine

import (
	"fmt"
	"strconv"
	"strings"

	"schedplay/rtapp"
)

// The rt-app workload's scenario part: workload.kind "rtapp" runs the
// rt-app description (github.com/scheduler-tools/rt-app) held, as the JSON
// text of the file, in workload.rtapp (rtapp_workload.go runs it).
// Scenario.Validate decodes it with package rtapp and refuses what the
// engine cannot model, each error naming workload.rtapp and then rt-app's
// own key path and line:col:
//
//	workload.rtapp: tasks.t0.phases.p1.run0: line 12 col 9: want an integer number of µs, got "ten"
//
// The run's horizon is always the scenario's duration_ms. A global.duration
// above 0 is how long rt-app lives (its main sleeps that long, then stops
// every thread, even when they all finished before): the run goes on to
// the horizon whatever the threads do, so its rates cover the duration.
// duration_ms may be shorter, to run the description's start (the page and
// shares cannot run more than MaxDurationMs, and the results say so), but
// not longer: rt-app would have stopped. A global.duration of -1 (rt-app's
// default) or 0 means no limit, as in rt-app: the run ends when every
// thread has ended, or at duration_ms. The CLI, wrapping a bare rt-app file
// in a scenario, sets duration_ms from global.duration, up to
// MaxCLIDurationMs.
//
// Refused, since the engine has no such thing to map them to:
//   - an affinity ("cpus", of a task or a phase) other than exactly one CPU
//     (the thread is pinned there, as the engine pins threads: cpu.go) or
//     every CPU of the machine (not pinned); a CPU the machine does not have;
//   - SCHED_FIFO and SCHED_RR: no real-time class is modelled yet;
//   - SCHED_BATCH and SCHED_IDLE except under sched.policy=linux, whose fair
//     class weighs them (fair.go);
//   - a nice value other than 0 except under sched.policy=linux (the fair
//     class's weight) or scx (the policy's p.weight): OSv has no nice and
//     the built-in scx_simple charges time unweighted, so a nice would be
//     silently ignored.

// WorkloadRTApp is the kind that runs workload.rtapp.
const WorkloadRTApp = "rtapp"

// MaxRTAppBytes bounds workload.rtapp. A scenario holding a description this
// large and a policy's source of MaxScxSourceBytes may not fit in
// MaxScenarioBytes; either alone does.
const MaxRTAppBytes = 32 << 10

// DefaultRTAppDurationMs is how long UseRTApp runs a description that
// gives no global.duration: the default scenario's duration.
const DefaultRTAppDurationMs = 2000

// UseRTApp makes desc, an rt-app description, sc's workload as the
// playground runs one (its workload editor, a lesson step): from time zero
// with no warm-up (rt-app's figures cover the whole run), for the
// description's global.duration up to MaxDurationMs (else
// DefaultRTAppDurationMs), and without the published figures, which were
// about the workload it replaces. An undecodable description is set as it
// is, for Validate to report with its place.
func (sc *Scenario) UseRTApp(desc string) {
	sc.Workload.Kind, sc.Workload.RTApp = WorkloadRTApp, desc
	sc.WarmupMs, sc.DurationMs, sc.Published = 0, DefaultRTAppDurationMs, nil
	if d, err := rtapp.Decode([]byte(desc)); err == nil && d.Global.Duration > 0 {
		// A longer description runs its start, and its results say so (the
		// CLI runs all of it).
		sc.DurationMs = min(int64(d.Global.Duration)*1000, MaxDurationMs)
	}
}

// decodeRTApp decodes and checks w.RTApp for a machine of vcpus CPUs and
// a run of durationMs; errors are *FieldError values on workload.rtapp.
func decodeRTApp(w *Workload, vcpus int, durationMs int64, sched Sched) (*rtapp.Description, error) {
	const path = "workload.rtapp"
	policy := sched.Policy
	if len(w.RTApp) > MaxRTAppBytes {
		return nil, fieldErr(path, "is %d bytes, above the limit %d", len(w.RTApp), MaxRTAppBytes)
	}
	if w.RTApp == "" {
		return nil, fieldErr(path, "is empty: workload.kind %q runs the rt-app description held there", WorkloadRTApp)
	}
	d, err := rtapp.Decode([]byte(w.RTApp))
	if err != nil {
		return nil, fieldErr(path, "%v", err)
	}
	if g := d.Global.Duration; g > 0 && int64(g)*1000 < durationMs {
		return nil, fieldErr(path, "global.duration: rt-app stops at %d s, before duration_ms=%d ends the run: set duration_ms to %d (or less, to run its start) or remove global.duration", g, durationMs, int64(g)*1000)
	}
	at := func(p string, pos rtapp.Pos, format string, args ...any) error {
		return fieldErr(path, "%s: %s: %s", p, pos, fmt.Sprintf(format, args...))
	}
	threads := 0
	var reservations [][2]int64
	groups := map[string]bool{} // the task groups the threads are placed in
	for _, t := range d.Tasks {
		tp := "tasks." + t.Name
		for range t.Instance {
			if t.Sched.Policy == rtapp.SchedDeadline {
				reservations = append(reservations, [2]int64{t.Sched.DLRuntime, t.Sched.DLPeriod})
			}
		}
		if i, why := dlAdmit(vcpus, sched.RTRuntimeUs, sched.RTPeriodUs, reservations); i >= 0 && policy != "osv" {
			return nil, at(tp, t.Pos, "its thread %d of %d: %s", i-(len(reservations)-t.Instance)+1, t.Instance, why)
		}
		if threads += t.Instance; threads > rtappMaxThreads {
			return nil, at(tp+".instance", t.Pos, "%d instances bring the threads started to %d, above the engine's limit of %d in all", t.Instance, threads, rtappMaxThreads)
		}
		if err := rtappCPUs(t.CPUs, vcpus); err != "" {
			return nil, at(tp+".cpus", t.Pos, "%s", err)
		}
		if err := rtappSched(t.Sched, policy, true); err != "" {
			return nil, at(tp, t.Pos, "%s", err)
		}
		for _, ph := range t.Phases {
			pp := tp
			if !t.Inline {
				pp += ".phases." + ph.Name
			}
			if err := rtappCPUs(ph.CPUs, vcpus); err != "" {
				return nil, at(pp+".cpus", ph.Pos, "%s", err)
			}
			if ph.Sched != nil {
				s := *ph.Sched
				if s.Policy == "" {
					s.Policy = t.Sched.Policy
				}
				if s.Priority == 0 && !ph.Sched.PrioritySet {
					s.Priority = t.Sched.Priority // the task's nice carries on
				}
				// Under linux a phase may change a task's nice, RT
				// priority and policy (the classes model it, setSched);
				// not a deadline reservation, which admission control
				// takes once, at the start.
				midRun := policy == "linux" && s.Policy != rtapp.SchedDeadline && t.Sched.Policy != rtapp.SchedDeadline
				changes := !midRun && otherIfEmpty(s.Policy) != otherIfEmpty(t.Sched.Policy)
				if err := rtappSched(s, policy, midRun || s.Priority == t.Sched.Priority); err != "" && !(changes && policy != "osv") {
					return nil, at(pp, ph.Pos, "%s", err)
				}
				if ph.Sched.DLRuntime != 0 && (s.DLRuntime != t.Sched.DLRuntime || s.DLPeriod != t.Sched.DLPeriod || s.DLDeadline != t.Sched.DLDeadline) {
					return nil, at(pp, ph.Pos, "changes dl-runtime, dl-period or dl-deadline mid-run: a task's slice or reservation is set once, at its start")
				}
				if changes {
					return nil, at(pp, ph.Pos, "changes the policy mid-run (%s, the task has %s): under sched.policy=%s a task's policy is set once, at its start (sched.policy=linux models changes, but not to or from SCHED_DEADLINE)", otherIfEmpty(s.Policy), otherIfEmpty(t.Sched.Policy), policy)
				}
			}
			if err := rtappTaskgroup(ph.Taskgroup, policy, groups); err != "" {
				return nil, at(pp+".taskgroup", ph.Pos, "%s", err)
			}
		}
		if err := rtappTaskgroup(t.Taskgroup, policy, groups); err != "" {
			return nil, at(tp+".taskgroup", t.Pos, "%s", err)
		}
	}
	return d, nil
}

// rtappTaskgroup checks a taskgroup path against the scheduler, and counts
// it and its ancestors in groups (the paths the description names so far).
func rtappTaskgroup(path, policy string, groups map[string]bool) string {
	switch {
	case path == "" || path == "/":
		return ""
	case policy == "osv":
		return fmt.Sprintf("%q is refused under sched.policy=osv: OSv has no control groups (core/sched.cc schedules threads alone); sched.policy=linux models task groups", path)
	}
	for p := path; p != ""; p = p[:strings.LastIndexByte(p, '/')] {
		groups[p] = true
	}
	if len(groups) > MaxTaskGroups {
		return fmt.Sprintf("%q brings the task groups (with their parents) to %d, above the limit %d", path, len(groups), MaxTaskGroups)
	}
	return ""
}

// rtappMaxThreads bounds the threads a description starts, as hackbench's
// tasks are bounded.
const rtappMaxThreads = MaxSyncPairsTasks

// rtappCPUs checks an affinity list: nil, one CPU, or every CPU.
func rtappCPUs(cpus []int, vcpus int) string {
	for _, c := range cpus {
		if c >= vcpus {
			return fmt.Sprintf("CPU %d: the machine has %d vCPUs (0..%d)", c, vcpus, vcpus-1)
		}
	}
	if cpus == nil || len(cpus) == 1 || allCPUs(cpus, vcpus) {
		return ""
	}
	return fmt.Sprintf("%v is neither one CPU (pinned) nor all %d: the engine pins a thread to one CPU or to none", cpus, vcpus)
}

// allCPUs says cpus names every CPU 0..vcpus-1 (repeats allowed).
func allCPUs(cpus []int, vcpus int) bool {
	seen := make([]bool, vcpus)
	n := 0
	for _, c := range cpus {
		if !seen[c] {
			seen[c] = true
			n++
		}
	}
	return n == vcpus
}

// pinnedCPU is the CPU an affinity pins to, or -1 for none.
func pinnedCPU(cpus []int, vcpus int) int {
	if len(cpus) == 0 || allCPUs(cpus, vcpus) {
		return -1
	}
	return cpus[0]
}

// otherIfEmpty reads an unset policy as SCHED_OTHER.
func otherIfEmpty(p rtapp.Policy) rtapp.Policy {
	if p == "" {
		return rtapp.SchedOther
	}
	return p
}

// rtappSched checks a policy and priority the engine can run under the
// scenario's sched.policy. A nice is the task's weight where a policy reads
// one: the linux reference's fair class (sched_prio_to_weight), and a
// sched_ext policy of the scenario's own (sched.policy=scx) through p.weight
// (ScxWeightOfNice); OSv has no nice and the Go scx_simple charges time
// unweighted, so there a nice would be silently ignored. SCHED_FIFO, RR
// and DEADLINE run in Linux's own classes under linux and under a sched_ext
// policy, which they preempt (scx_classes.go); OSv's are not modelled.
// asTask is false for a phase whose nice differs from its task's: a task's
// weight is set once, at its start.
func rtappSched(s rtapp.Sched, policy string, asTask bool) string {
	switch {
	case (s.Policy == rtapp.SchedDeadline || s.Policy.RealTime()) && policy == "osv":
		return string(s.Policy) + " is refused under sched.policy=osv: OSv's scheduler has real-time priorities of its own (thread::set_realtime_priority and set_realtime_time_slice in core/sched.cc), which the OSv policy does not model, and no deadline class; sched.policy=linux, scx or scx_simple run it in Linux's classes"
	case (s.Policy == rtapp.SchedBatch || s.Policy == rtapp.SchedIdle) && policy != "linux":
		return string(s.Policy) + " is refused under sched.policy=" + policy + ": SCHED_BATCH and SCHED_IDLE are the fair class's (weights and wake-up preemption), which only sched.policy=linux models"
	case s.Policy.RealTime() && s.Priority != 0 && !asTask:
		return "priority " + strconv.Itoa(s.Priority) + " is refused in a phase under sched.policy=" + policy + ": a task's real-time priority is set once, at its start, except under sched.policy=linux; give it on the task"
	case s.Priority != 0 && !asTask:
		return "priority (nice) " + strconv.Itoa(s.Priority) + " is refused in a phase: a task's nice (its weight) is set once, at its start; give it on the task"
	case s.Priority != 0 && !s.Policy.RealTime() && policy != "scx" && policy != "linux":
		return "priority (nice) " + strconv.Itoa(s.Priority) + " is refused under sched.policy=" + policy + ": that scheduler weighs no tasks (the built-in scx_simple charges time unweighted, OSv has no nice), so a nice would be silently ignored; use 0, sched.policy=linux (the fair class's weights), or sched.policy=scx with a policy that reads p.weight (examples/policies/scx_simple.star)"
	case !s.Policy.RealTime() && (s.Priority < -20 || s.Priority > 19):
		return "priority (nice) " + strconv.Itoa(s.Priority) + " is out of range: a nice is -20 to 19"
	}
	return ""
}

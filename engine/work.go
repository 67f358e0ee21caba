package engine

import (
	"errors"
	"fmt"
	"strconv"
)

// How much work a scenario is, before it runs. Every knob has a range, but a
// scenario inside every range can still take hours (hackbench with thousands of
// senders per group, a long run of thousands of clients): the front ends refuse it
// up front, with the fields that make it long, instead of freezing a tab or a CLI.

const (
	// MaxEvents is the most events a scenario may take to run to its end: about
	// three minutes natively, longer in a browser's worker.
	MaxEvents = 1_000_000_000
	// probeEvents is how far the estimate runs the scenario: about 10 ms
	// natively and 40 ms in a browser's worker, which checks every scenario the
	// page is asked to run.
	probeEvents = 50_000
)

// finiteWorkload is a workload that ends by itself and can say how far it is.
type finiteWorkload interface {
	progress() (done, total int64)
}

// EstimateEvents estimates how many events sc takes to run to its end. It runs
// the first probeEvents events; a workload that finishes by itself is then
// extrapolated by the share of its work done. A steady workload is extrapolated
// by simulated time, but a probe mostly sees the start (clients still
// connecting), so the estimate also takes the most transactions the workload could
// complete in the time left, bounded by its clients' round trips and by the vCPUs'
// CPU time, at the events per transaction the probe measured; the larger of the
// two counts. Deterministic, and rough, which is all a limit needs. A sched_ext
// policy's source is checked (Validate) but not compiled for the probe, which
// the engine cannot do: the probe runs the core's defaults instead.
func EstimateEvents(sc Scenario) (int64, error) {
	if err := sc.Validate(); err != nil {
		return 0, err
	}
	sc.Sched.Scx.Source = ""
	s, err := NewSim(sc)
	if err != nil {
		return 0, err
	}
	s.SetVisual(false)
	s.StepN(probeEvents)
	if s.Done() {
		return s.events, nil
	}
	if fw, ok := s.wl.(finiteWorkload); ok {
		done, total := fw.progress()
		if done == 0 {
			return unboundedEvents, nil // no progress at all in the probe: refuse
		}
		return int64(float64(s.events) * float64(total) / float64(done)), nil
	}
	byTime := float64(unboundedEvents)
	if s.now > 0 {
		byTime = float64(s.events) * float64(s.end) / float64(s.now)
	}
	perTxn := 40.0 // events per completed transaction until the probe has seen some
	if n := s.m.live.Completed; n >= 50 {
		perTxn = float64(s.events) / float64(n)
	}
	left := float64(s.end-s.now) / 1e9
	byLoad := float64(s.events) + maxTxnPerS(sc)*perTxn*left
	return int64(min(max(byTime, byLoad), unboundedEvents)), nil
}

// unboundedEvents is the estimate of a run the probe saw make no progress:
// above every limit CheckWork applies.
const unboundedEvents = 1e18

// maxTxnPerS bounds a steady workload's completions per second: each client
// waits at least its round trips, CPU time and commit per transaction, and the
// vCPUs cannot run more CPU time than they have.
func maxTxnPerS(sc Scenario) float64 {
	w := &sc.Workload
	cpuUs := w.Service.MeanUs
	cycleUs := cpuUs + float64(w.CommitDeviceUs)
	switch w.Kind {
	case WorkloadRequestServer:
		stmts := float64(w.StatementsPerTxn)
		cpuUs = stmts * (w.Service.MeanUs + float64(w.RxCostNs)/1000)
		cycleUs = stmts*float64(w.NetworkRTTUs) + cpuUs + float64(w.CommitDeviceUs)
	case WorkloadCommit:
	default:
		return 0 // the idle workload's rate is steady from the start
	}
	byClients := float64(w.Clients) / (max(cycleUs, 0.001) / 1e6)
	byCPU := float64(sc.Machine.VCPUs) / (max(cpuUs, 0.001) / 1e6)
	return min(byClients, byCPU)
}

// CheckRunnable is CheckWork for sc and for each of its arms (a compare runs
// them all), resolved by ArmScenarios; an arm's refusal keeps the knob's path
// and names the arm.
func CheckRunnable(sc Scenario) error {
	if err := CheckWork(sc); err != nil {
		return err
	}
	if len(sc.Arms) == 0 {
		return nil // sc is its only arm
	}
	arms, err := sc.ArmScenarios()
	if err != nil {
		return err
	}
	for _, a := range arms {
		if err := CheckWork(a.Scenario); err != nil {
			var fe *FieldError
			if !errors.As(err, &fe) {
				return fmt.Errorf("arm %s: %w", quoteArm(a.Name), err)
			}
			return fieldErr(fe.Path, "arm %s: %s", quoteArm(a.Name), fe.Msg)
		}
	}
	return nil
}

// CheckWork refuses a scenario estimated to take more than MaxEvents events, with
// a FieldError naming the fields that make it long.
func CheckWork(sc Scenario) error {
	n, err := EstimateEvents(sc)
	// A scenario allowed a longer run (the CLI's) may take as many more
	// events.
	most := float64(MaxEvents) * float64(sc.DurationLimitMs()) / MaxDurationMs
	if err != nil || float64(n) <= most {
		return err
	}
	est := "about " + strconv.FormatFloat(float64(n), 'g', 2, 64) + " events"
	limit := " (the limit is " + strconv.FormatFloat(most, 'g', 2, 64) + ")"
	if sc.Workload.Kind == WorkloadHackbench {
		hb := sc.Workload.Hackbench
		msgs := int64(hb.Groups) * int64(hb.FDs) * int64(hb.FDs) * int64(hb.Loops)
		return fieldErr("workload.hackbench.fds", "%s to finish%s: groups %d x senders %d x receivers %d x loops %d is %d messages; lower workload.hackbench.fds, groups or loops",
			est, limit, hb.Groups, hb.FDs, hb.FDs, hb.Loops, msgs)
	}
	if sc.Workload.Kind == WorkloadTrace {
		return fieldErr("duration_ms", "%s over %d ms%s: lower duration_ms, or replay a narrower window or fewer processes of the trace (--window, --process)",
			est, sc.DurationMs, limit)
	}
	if sc.Workload.Kind == WorkloadRTApp {
		return fieldErr("duration_ms", "%s over %d ms%s: lower duration_ms, or the rt-app description's instances or the events of its busiest loops (workload.rtapp)",
			est, sc.DurationMs, limit)
	}
	return fieldErr("duration_ms", "%s over %d ms%s: lower duration_ms or the load (workload.clients, machine.vcpus, workload.wake_sources_per_s), or raise the costs",
		est, sc.DurationMs, limit)
}

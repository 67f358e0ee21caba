package engine

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"schedplay/rtapp"
)

// What an rt-app run reports (rtapp_workload.go): per task, the figures of
// rt-app's per-thread log (thread_body's timing_point_t, written by
// log_timing in src/rt-app_utils.c) summed over the run, and each loop
// pass's row for a caller that writes rt-app's log files (SetRTAppLog).
// They cover the whole run, as rt-app's logs do, not the measured window.

// RTAppResults is the rt-app workload's part of Results.
type RTAppResults struct {
	Tasks []RTAppTaskResults `json:"tasks"`
	// Deadlock is set when the run ended because every thread not done
	// waited for another.
	Deadlock RTAppDeadlock `json:"deadlock,omitzero"`
	// Ignored lists the description's keys that were accepted but change
	// nothing simulated (rtapp.Description.Notes: "path: line L col C:
	// why"), so that none is dropped silently.
	Ignored []string `json:"ignored,omitzero"`
	// Notes say how the description was read where readers of rt-app
	// files differ (a repeated key kept as workgen keeps it), what in it
	// looks like a slip (a resume that wakes nobody), and a run that
	// covers only the start of its global.duration.
	Notes []string `json:"notes,omitzero"`
}

// RTAppTaskResults are one task's threads' loop passes (rows of rt-app's
// log), in µs as rt-app logs them.
type RTAppTaskResults struct {
	Name     string `json:"name"`
	Threads  int    `json:"threads"`
	Finished int    `json:"finished"` // threads that ended their loops
	Loops    int64  `json:"loops"`    // loop passes completed
	// RunMeanUs is the wall time a pass's run events took (rt-app's "run"
	// column), against CDurationMeanUs, what they asked for ("c_duration").
	RunMeanUs       float64 `json:"run_mean_us"`
	CDurationMeanUs float64 `json:"c_duration_mean_us"`
	// PeriodMeanUs is a pass's wall time ("period"); CPeriodMeanUs the
	// timer periods it asked for ("c_period"), over timed passes.
	PeriodMeanUs  float64 `json:"period_mean_us"`
	CPeriodMeanUs float64 `json:"c_period_mean_us,omitzero"`
	// TimedLoops are the passes with a timer event; the rest are over them.
	TimedLoops int64 `json:"timed_loops"`
	// WuLat is rt-app's wu_lat: from a timer's expiry to the thread running.
	WuLatMeanUs float64 `json:"wu_lat_mean_us,omitzero"`
	WuLatMaxUs  float64 `json:"wu_lat_max_us,omitzero"`
	// Slack is the timer's expiry minus when the pass's work reached it;
	// negative is an overrun, counted in Overruns.
	SlackMeanUs float64 `json:"slack_mean_us,omitzero"`
	SlackMinUs  float64 `json:"slack_min_us,omitzero"`
	Overruns    int64   `json:"overruns"`
	// Class is the task's scheduling class under sched.policy=linux:
	// "fair", "rt" or "dl" (rt.go); under a sched_ext policy "rt" or "dl"
	// for a task of those classes (scx_classes.go), else empty.
	Class string `json:"class,omitzero"`
	// DLMisses are a SCHED_DEADLINE task's activations still running at
	// their absolute deadline (counted when one ends after it, or, for a
	// task that never blocks, at each replenishment past it); DLThrottles
	// the times it ran out of runtime and waited for its next period (dl.go).
	DLMisses    int64 `json:"dl_misses,omitzero"`
	DLThrottles int64 `json:"dl_throttles,omitzero"`
}

// RTAppDeadlock says when the threads deadlocked and what each waited for.
type RTAppDeadlock struct {
	AtMs    float64        `json:"at_ms"`
	Threads []RTAppBlocked `json:"threads"`
}

// RTAppBlocked is one deadlocked thread.
type RTAppBlocked struct {
	Task   string `json:"task"`
	Thread string `json:"thread"` // rt-app's name for it: task-index
	On     string `json:"on"`
}

// RTAppLogRow is one row of rt-app's per-thread log: "idx perf run period
// start end rel_st slack c_duration c_period wu_lat", times in µs. perf is
// the pass's run work in µs (rt-app counts its calibrated busy loops).
type RTAppLogRow struct {
	Thread                                      string // the log's name: task-index
	Idx                                         int
	Perf, Run, Period, Start, End, RelSt, Slack int64
	CDuration, CPeriod, WuLat                   int64
}

// rtStats are a task's loop passes so far.
type rtStats struct {
	loops, timed, overruns             int64
	runNs, cDurNs, periodNs, cPeriodNs int64
	wuSum, wuMax, slackSum, slackMin   int64
}

// record ends th's pass: its row goes to the log and the task's stats, and
// the pass is a completion of the run.
func (w *rtappWorkload) record(s *Sim, th *rtThread) {
	period := s.now - th.passStart
	st := &w.stats[th.task]
	st.loops++
	st.runNs += th.runNs
	st.cDurNs += th.cDur
	st.periodNs += period
	if th.cPeriod > 0 {
		st.timed++
		st.cPeriodNs += th.cPeriod
		st.wuSum += th.wuLat
		st.wuMax = max(st.wuMax, th.wuLat)
		if st.timed == 1 || th.slack < st.slackMin {
			st.slackMin = th.slack
		}
		st.slackSum += th.slack
		if th.slack < 0 {
			st.overruns++
		}
	}
	s.m.complete(s, period)
	row := RTAppLogRow{Thread: th.t.name, Idx: th.t.local, Perf: th.perf, Run: th.runNs / 1000,
		Period: period / 1000, Start: th.passStart / 1000, End: s.now / 1000, RelSt: th.passStart / 1000,
		Slack: th.slack / 1000, CDuration: th.cDur / 1000, CPeriod: th.cPeriod / 1000, WuLat: th.wuLat / 1000}
	w.logRow(th, row)
	if w.log != nil {
		w.log(row)
	}
	// thread_body clears its log_data_t before every pass (cumulative_slack
	// adds up the slack of one pass's timers, not across passes).
	th.perf, th.runNs, th.cDur, th.cPeriod, th.wuLat, th.slack = 0, 0, 0, 0, 0, 0
}

// results summarises the run so far.
func (w *rtappWorkload) results(s *Sim) RTAppResults {
	var r RTAppResults
	for i := range w.tasks {
		tk, st := &w.tasks[i], &w.stats[i]
		tr := RTAppTaskResults{Name: tk.name, Loops: st.loops, TimedLoops: st.timed, Overruns: st.overruns}
		for j := range w.thr {
			if w.thr[j].task != i {
				continue // forked threads come after every task's first ones
			}
			tr.Threads++
			if w.thr[j].wait == rtDone {
				tr.Finished++
			}
			t := w.thr[j].t
			tr.DLMisses += t.dl.misses
			tr.DLThrottles += t.dl.throttles
			if s.fair || t.class != classFair {
				tr.Class = [...]string{"fair", "rt", "dl"}[t.class]
			}
		}
		us := func(ns, n int64) float64 {
			if n == 0 {
				return 0
			}
			return float64(ns) / float64(n) / 1e3
		}
		tr.RunMeanUs, tr.CDurationMeanUs, tr.PeriodMeanUs = us(st.runNs, st.loops), us(st.cDurNs, st.loops), us(st.periodNs, st.loops)
		if st.timed > 0 {
			tr.CPeriodMeanUs = us(st.cPeriodNs, st.timed)
			tr.WuLatMeanUs, tr.WuLatMaxUs = us(st.wuSum, st.timed), us(st.wuMax, 1)
			tr.SlackMeanUs, tr.SlackMinUs = us(st.slackSum, st.timed), us(st.slackMin, 1)
		}
		r.Tasks = append(r.Tasks, tr)
	}
	if w.deadlocked {
		r.Deadlock = w.deadlockReport(s)
	}
	var repeated []rtapp.Note
	for _, n := range w.desc.Notes {
		line := n.Path + ": " + n.Pos.String() + ": " + n.Msg
		switch {
		case strings.HasPrefix(n.Msg, "no-op: "), strings.HasPrefix(n.Msg, "ignored: "):
			r.Ignored = append(r.Ignored, line)
		case strings.HasPrefix(n.Msg, rtapp.RepeatedKeyNote):
			repeated = append(repeated, n)
		default:
			r.Notes = append(r.Notes, line)
		}
	}
	if len(repeated) > 0 {
		// One line for them all: a description written for workgen
		// repeats many keys.
		first := repeated[0]
		where := fmt.Sprintf("1 repeated key (%s, %s)", first.Path, first.Pos)
		if len(repeated) > 1 {
			where = fmt.Sprintf("%d repeated keys (the first: %s, %s)", len(repeated), first.Path, first.Pos)
		}
		r.Notes = append(r.Notes, fmt.Sprintf("%s: %s; rt-app alone keeps only each key's last value: number the keys so that both run the same",
			rtapp.RepeatedKeyNote, where))
	}
	if g, d := int64(w.desc.Global.Duration)*1000, s.sc.DurationMs; g > d {
		note := fmt.Sprintf("global.duration: the description runs %d s; this run covers its first %s", w.desc.Global.Duration, msText(d))
		switch d {
		case MaxDurationMs:
			note += " (a page or a share runs at most that): run it from the CLI for all of it (schedplay run FILE)"
		case MaxCLIDurationMs:
			note += " (the CLI runs at most an hour)"
		default:
			note += " (duration_ms)"
		}
		r.Notes = append(r.Notes, note)
	}
	if w.forkRefused > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("fork: %d forks started no thread: the run had the engine's limit of %d threads", w.forkRefused, rtappMaxThreads))
	}
	return r
}

// msText writes ms as whole seconds when it is some, else in ms.
func msText(ms int64) string {
	if ms%1000 == 0 {
		return strconv.FormatInt(ms/1000, 10) + " s"
	}
	return strconv.FormatInt(ms, 10) + " ms"
}

// SetRTAppLog has f receive every loop pass's row of an rtapp workload, from
// now on, as the run makes them; nil stops it. It is not part of a
// checkpoint: a resumed simulation has none until set again.
func (s *Sim) SetRTAppLog(f func(RTAppLogRow)) error {
	w, ok := s.wl.(*rtappWorkload)
	if !ok {
		return errors.New("engine.SetRTAppLog: workload.kind is " + s.sc.Workload.Kind + ", not " + WorkloadRTApp)
	}
	w.log = f
	return nil
}

// RTAppThreads names an rtapp workload's threads as rt-app names them
// (task-index, the index counting every task's instances in file order),
// by RTAppLogRow.Idx; nil for another workload.
func (s *Sim) RTAppThreads() []string {
	w, ok := s.wl.(*rtappWorkload)
	if !ok {
		return nil
	}
	out := make([]string, len(w.thr))
	for i := range w.thr {
		out[i] = w.thr[i].t.name
	}
	return out
}

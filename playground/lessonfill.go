package playground

// What the lesson panel shows: the step's caption with its numbers filled from
// the arms as they stand at the step's moment (a number the run does not have,
// such as a result before the measured window starts, stays unfilled rather
// than showing a zero), and what the step is doing.

import (
	"fmt"
	"strconv"
	"strings"

	"schedplay/engine"
	"schedplay/playground/lesson"
	"schedplay/view"
)

// LessonUI is the lesson panel around its caption: which step, and what it is
// doing (it changes as the step runs; the caption once, when it is reached).
type LessonUI struct {
	Open  bool   `json:"open"`
	Name  string `json:"name,omitzero"`
	Title string `json:"title,omitzero"`
	// Step counts from 1, as the page shows it, of Steps.
	Step  int `json:"step,omitzero"`
	Steps int `json:"steps,omitzero"`
	// State is "running", "reached", "stopped" or "off-script".
	State string `json:"state,omitzero"`
	// Status says what the step is doing, or what went differently.
	Status string `json:"status,omitzero"`
}

// CaptionUI is the open step's caption, its numbers filled once the step is
// reached (lesson.Unfilled until then).
type CaptionUI struct {
	Caption []lesson.Segment `json:"caption,omitzero"`
}

// LessonState is the lesson panel with its caption, as state() reports it.
type LessonState struct {
	LessonUI
	CaptionUI
}

// captionUI is the open step's caption.
func (lp *lessonPlayer) captionUI() CaptionUI {
	if lp.cur == nil {
		return CaptionUI{}
	}
	if lp.caption != nil {
		return CaptionUI{Caption: lp.caption}
	}
	st := lp.cur.Steps[lp.step]
	segs, _ := lesson.Fill(st.Caption, st.Placeholders, func(lesson.Placeholder) (string, bool) { return "", false })
	return CaptionUI{Caption: segs}
}

// view describes the lesson panel.
func (lp *lessonPlayer) view(m *Model) LessonUI {
	if lp.cur == nil {
		return LessonUI{}
	}
	u := LessonUI{Open: true, Name: lp.cur.Name, Title: lp.cur.Title, Step: lp.step + 1, Steps: len(lp.cur.Steps)}
	switch lp.phase {
	case phaseReached:
		u.State, u.Status = "reached", lp.note
	case phaseStopped:
		u.State = "stopped"
		u.Status = lp.note
		if u.Status == "" {
			u.Status = "Stopped before this step's moment."
		}
	case phaseOffScript:
		u.State, u.Status = "off-script", "The scenario differs from this step's."
	default:
		u.State, u.Status = "running", lp.runningWords(m)
	}
	return u
}

// runningWords says where a running step is.
func (lp *lessonPlayer) runningWords(m *Model) string {
	if u := lp.cur.Steps[lp.step].Until; u != nil && (lp.phase == phaseHunting || lp.phase == phaseSettling) {
		return fmt.Sprintf("Running until the first %s in arm %c…", eventWords(u.Kind), 'A'+u.ArmIndex)
	}
	if j := m.jump.view(m.pipe.shownNs); j != nil {
		return fmt.Sprintf("Running to %s… %d%%", view.Duration(float64(lp.startNs)), int(100*j.Done))
	}
	return "Running to " + view.Duration(float64(lp.targetNs)) + "…"
}

// fillCaption fills the open step's caption from the arms.
func (lp *lessonPlayer) fillCaption(m *Model) []lesson.Segment {
	st := lp.cur.Steps[lp.step]
	segs, _ := lesson.Fill(st.Caption, st.Placeholders, func(p lesson.Placeholder) (string, bool) { return lp.placeholderValue(m, p) })
	return segs
}

// placeholderValue is a placeholder's value as the page writes it, or false
// when the run does not have it.
func (lp *lessonPlayer) placeholderValue(m *Model, p lesson.Placeholder) (string, bool) {
	if p.Source == lesson.SourceNow {
		return view.Duration(float64(m.pipe.shownNs)), true
	}
	if p.Source == lesson.SourceRatio {
		a, okA := resultOf(m.arms[0], p.Metric)
		b, okB := resultOf(m.arms[min(1, len(m.arms)-1)], p.Metric)
		if !okA || !okB || b == 0 || len(m.arms) < 2 {
			return "", false
		}
		return strconv.FormatFloat(a/b, 'f', 1, 64) + "×", true
	}
	if p.Arm >= len(m.arms) {
		return "", false
	}
	a := m.arms[p.Arm]
	switch p.Source {
	case lesson.SourceResults:
		v, ok := resultOf(a, p.Metric)
		return formatResult(p.Metric, v), ok
	case lesson.SourceRecent:
		v, ok := recentOf(a, p.Metric)
		return formatResult(p.Metric, v), ok
	case lesson.SourcePublished:
		v, ok := a.published[p.Metric]
		return formatResult(p.Metric, v), ok
	case lesson.SourceSharedQueue:
		return strconv.Itoa(a.sharedQueue()), true
	case lesson.SourceRunning:
		n := 0
		for _, c := range a.Snap.CPUs {
			if c.State == engine.CPURunning {
				n++
			}
		}
		return strconv.Itoa(n), true
	case lesson.SourceKnob:
		k, ok := engine.LookupKnob(p.Metric)
		return formatKnob(k, nil, a.vals.get(p.Metric)), ok
	}
	if p.CPU >= len(a.Snap.CPUs) {
		return "", false
	}
	c := a.Snap.CPUs[p.CPU]
	if p.Source == lesson.SourceCPUQueue {
		return strconv.Itoa(len(c.Runqueue) + len(c.Incoming)), true
	}
	return view.Grouped(c.SpinWindow), true
}

// resultOf reads one of the arm's results as of the moment shown, over the
// window the cards show (the warm-up until the measured window begins): false
// when the results are from another moment, or for a run time before the run
// ended.
func resultOf(a *Arm, path string) (float64, bool) {
	if a.err != "" || a.resultsAt != a.NowNs() {
		return 0, false
	}
	r, _ := a.shownResults()
	v, ok := lesson.Value(r, path)
	if path == "elapsed_s" {
		return v, ok && v > 0
	}
	return v, ok
}

// recentOf reads a series field of the last interval that ended by the moment
// shown.
func recentOf(a *Arm, field string) (float64, bool) {
	if a.err != "" || a.resultsAt != a.NowNs() {
		return 0, false
	}
	width := float64(a.Sc.SeriesIntervalMs)
	for i := len(a.results.Series) - 1; i >= 0; i-- {
		if pt := a.results.Series[i]; (pt.StartMs+width)*1e6 <= float64(a.NowNs()) {
			return lesson.Value(pt, field)
		}
	}
	return 0, false
}

// formatResult writes a result as the metric cards do, by the unit its name
// carries.
func formatResult(path string, v float64) string {
	switch {
	case strings.HasSuffix(path, "_frac"):
		return view.Percent(v)
	case strings.HasPrefix(path, "latency_us.") || strings.HasPrefix(path, "wake_to_run_us.") || strings.HasPrefix(path, "runnable_wait_us."),
		strings.HasPrefix(path, "schbench.") && strings.Contains(path, "_us."):
		return view.Duration(v * 1e3)
	case path == "elapsed_s" || path == "sim_seconds":
		return view.Duration(v * 1e9)
	case strings.HasSuffix(path, "_ns"): // scx_exit.at_ns
		return view.Duration(v)
	case strings.HasPrefix(path, "busy_vcpus"):
		return view.VCPUs(v) // an idle guest's 0.14 and 0.05 differ
	case path == "spin_window_mean":
		return view.Grouped(int64(v + 0.5))
	}
	return view.Compact(v)
}

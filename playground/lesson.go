package playground

// The lesson player: a lesson (playground/lesson) open at a step. Going to a step
// shows the step's scenario (its preset, knobs and compare setting, carried over
// from the steps before), runs to the step's moment as a jump, or, for a step
// that stops at an event, to where it starts looking and then lets the arm the
// event is about run until it happens (a tgUntil target), bringing every arm
// to just after it. There it pauses, points at the step's vCPU or thread, and
// fills the caption's numbers from the run (lessonfill.go).
//
// The run is deterministic, so a step reached from the step before it and one
// opened from a link (lesson=NAME&step=N) show the same state: a step reuses the
// run on screen only when that run has its scenario, has settled, and has
// processed no event at or after the step's start; otherwise it starts over.
//
// A lesson is "on script" while the page shows the step's scenario. Changing a
// knob, the preset or the comparison takes it off script: the caption stays, its
// numbers go, and the URL carries the page's own scenario beside lesson=NAME&step=N
// (a link then reopens exactly that). Back, Next or going to the same step again
// returns to the script.

import (
	"fmt"
	"slices"

	"schedplay/playground/lesson"
	"schedplay/playground/runner"
	"schedplay/playground/urlstate"
	"schedplay/view"
)

// lessonPhase is where the open step is.
type lessonPhase uint8

const (
	phaseBegin     lessonPhase = iota // the URL opened the step; it runs once the model is built
	phaseRunning                      // a jump to the step's start is under way
	phaseHunting                      // the leader arm is looking for the step's event
	phaseSettling                     // every arm goes to the step's moment (just after the event)
	phaseReached                      // paused at the step's moment: the caption is filled
	phaseStopped                      // paused, refused or rebuilt before the step's moment
	phaseOffScript                    // the page shows another scenario than the step's
)

// lessonPlayer is the lesson open in the page, if any: a sub-model that keeps
// the step's state and drives the Model it is given (its scenario, jumps and
// targets) as blocks' scenes drive their game in Ebiten's examples. The
// Model reaches it at a few points: Load (openFromURL), the URL (scriptState),
// Set (setLesson, setStep), Update (tick), a tgUntil's answer (untilFound), and
// the read side (view, captionUI, options).
type lessonPlayer struct {
	all   []lesson.Lesson
	cur   *lesson.Lesson // nil: no lesson open
	step  int            // 0-based
	phase lessonPhase
	// want is the step's setup as the model holds one (reconciled), to tell
	// whether the page is on script.
	want        setup
	wantCmp     [3]string // compare mode, A, B
	startNs     int64     // the step's moment, or where it starts looking for its event
	targetNs    int64     // the step's moment (for an event: known once found)
	untilSeq    uint32    // the tgUntil in flight
	eventCPU    int       // where the step's event happened, or -1
	note        string    // what went differently ("no pull IPI before ...")
	caption     []lesson.Segment
	armID       runner.ArmID // the first arm when the step was reached
	cleanNs     int64        // the last moment reached on a clean boundary, or -1
	cleanEvents []int64      // the arms' event counts then
}

// LessonOption is one lesson the page offers.
type LessonOption struct {
	Name    string `json:"name"`
	Title   string `json:"title"`
	Summary string `json:"summary"`
	Steps   int    `json:"steps"`
}

// options lists the lessons offered, for the page's picker.
func (lp *lessonPlayer) options() []LessonOption {
	var out []LessonOption
	for _, l := range lp.all {
		out = append(out, LessonOption{Name: l.Name, Title: l.Title, Summary: l.Summary, Steps: len(l.Steps)})
	}
	return out
}

// openFromURL opens or closes the lesson st names and, when st gives no
// scenario of its own (preset, knobs, compare, shared), fills st with the step's
// so that Load shows it. A lesson or step the page does not have is a problem,
// and the page carries on without it (or at the first step).
func (lp *lessonPlayer) openFromURL(m *Model, st urlstate.State, shared bool) urlstate.State {
	lp.cur = nil
	if st.View.Lesson == "" {
		return st
	}
	l, ok := lesson.Find(lp.all, st.View.Lesson)
	if !ok {
		m.problems = append(m.problems, fmt.Sprintf("lesson: there is no lesson %q", st.View.Lesson))
		st.View.Lesson, st.View.LessonStep = "", 0
		return st
	}
	n := max(st.View.LessonStep, 1) - 1
	if n >= len(l.Steps) {
		m.problems = append(m.problems, fmt.Sprintf("step: lesson %s has %d steps; showing the first", l.Name, len(l.Steps)))
		n = 0
	}
	st.View.LessonStep = n + 1
	lp.openStep(m, &l, n)
	if shared || st.Preset != "" || len(st.Knobs) > 0 || st.Policy != "" || st.RTApp != "" || st.View.Compare != urlstate.CompareDefault {
		lp.phase = phaseOffScript
		return st
	}
	s := l.Setup(n)
	st.Preset, st.Knobs, st.Policy, st.RTApp = s.Preset, s.Knobs, s.Policy, s.RTApp
	st.View.Compare, st.View.CompareA, st.View.CompareB = lp.wantCmp[0], lp.wantCmp[1], lp.wantCmp[2]
	if st.View.Speed == "" {
		st.View.Speed = s.Speed
	}
	if st.View.AtNs > 0 {
		m.problems = append(m.problems, "t: a lesson step runs to its own moment; ignored")
		st.View.AtNs = 0
	}
	lp.phase = phaseBegin
	return st
}

// openStep makes step n of l the open one, resolving what it shows.
func (lp *lessonPlayer) openStep(m *Model, l *lesson.Lesson, n int) {
	lp.cur, lp.step, lp.note, lp.caption, lp.eventCPU = l, n, "", nil, -1
	s := l.Setup(n)
	lp.want, _ = reconcile(m.presets, s.Preset, s.Knobs, nil)
	if s.Policy != "" || s.RTApp != "" {
		if w, _, err := lp.want.withOwn(s.Policy, s.RTApp); err == nil {
			lp.want = w
		}
	}
	mode, a, b, _ := urlstate.ParseCompare(s.Compare) // Decode checked it
	lp.wantCmp = [3]string{mode, a, b}
	st := l.Steps[n]
	lp.startNs = st.AtNs
	if st.Until != nil {
		lp.startNs = st.Until.AfterNs
	}
	lp.targetNs = lp.startNs
	m.view.Lesson, m.view.LessonStep = l.Name, n+1
}

// onScript reports whether the page shows the open step's scenario.
func (lp *lessonPlayer) onScript(m *Model) bool {
	return lp.cur != nil && !m.setup.src.shared && m.setup.src.preset.Name == lp.want.src.preset.Name &&
		slices.Equal(m.setup.knobs, lp.want.knobs) && m.setup.src.policy == lp.want.src.policy && m.setup.src.rtapp == lp.want.src.rtapp &&
		[3]string{m.view.Compare, m.view.CompareA, m.view.CompareB} == lp.wantCmp
}

// scriptState is the URL state of a lesson on script: the lesson and step, and
// the view keys but those the step sets; false when no lesson is on script.
func (lp *lessonPlayer) scriptState(m *Model) (urlstate.State, bool) {
	if !lp.onScript(m) {
		return urlstate.State{}, false
	}
	v := m.view
	v.Compare, v.CompareA, v.CompareB, v.AtNs = urlstate.CompareDefault, "", "", 0
	if v.Speed == lp.cur.Setup(lp.step).Speed {
		v.Speed = ""
	}
	return urlstate.State{View: v}, true
}

// setLesson is Set("lesson", name): open a lesson at its first step ("" closes).
func (lp *lessonPlayer) setLesson(m *Model, name string) string {
	if name == "" {
		lp.cur = nil
		m.view.Lesson, m.view.LessonStep = "", 0
		return ""
	}
	if _, ok := lesson.Find(lp.all, name); !ok {
		return fmt.Sprintf("lesson: there is no lesson %q", name)
	}
	v := m.view
	v.Lesson, v.LessonStep = name, 1
	v.Compare, v.CompareA, v.CompareB, v.Speed, v.AtNs = urlstate.CompareDefault, "", "", "", 0
	m.Load(urlstate.Encode(urlstate.State{View: v}), nil)
	return ""
}

// setStep is Set("step", n): go to step n (from 1) of the open lesson.
func (lp *lessonPlayer) setStep(m *Model, value string) string {
	if lp.cur == nil {
		return "step: no lesson is open"
	}
	n, err := urlstate.ParseLessonStep(value)
	if err != nil {
		return "step: " + err.Error()
	}
	if n > len(lp.cur.Steps) {
		return fmt.Sprintf("step: lesson %s has %d steps", lp.cur.Name, len(lp.cur.Steps))
	}
	lp.gotoStep(m, n-1)
	return ""
}

// gotoStep shows step n: its scenario (reusing the run on screen when it can),
// its speed, then runs to its moment.
func (lp *lessonPlayer) gotoStep(m *Model, n int) {
	lp.openStep(m, lp.cur, n)
	if !lp.onScript(m) {
		s := lp.cur.Setup(n)
		v := m.view
		v.Compare, v.CompareA, v.CompareB, v.AtNs = lp.wantCmp[0], lp.wantCmp[1], lp.wantCmp[2], 0
		m.apply(urlstate.State{Preset: s.Preset, Knobs: s.Knobs, Policy: s.Policy, RTApp: s.RTApp, View: v}, nil)
	}
	// A step plays on at the speed it, or the last step before it that set
	// one, asks for (the page's default when none did), whichever way the
	// teacher came to it: Back from a step that set its own speed must not
	// keep it.
	speed := lp.cur.Setup(n).Speed
	m.view.Speed = speed
	m.time.setSpeed(speed)
	lp.runStep(m)
}

// runStep runs to the open step's start: a jump, after starting over when the
// run on screen cannot be continued to it exactly (see the file's comment).
func (lp *lessonPlayer) runStep(m *Model) {
	m.time.playing, m.time.runToNs, m.jump = false, -1, nil
	m.sel = noSelection()
	shown := m.pipe.shownNs
	if len(m.pipe.pending) > 0 || shown > lp.startNs || shown == lp.startNs && !lp.cleanAt(m, shown) {
		m.rebuild()
	}
	lp.phase = phaseRunning
	if msg := m.JumpTo(lp.startNs); msg != "" {
		lp.phase, lp.note = phaseStopped, msg
	}
}

// cleanAt reports whether the arms stand at t on a clean boundary: every event
// before t processed and none at or after it, as a fresh run to t leaves them.
func (lp *lessonPlayer) cleanAt(m *Model, t int64) bool {
	if lp.cleanNs != t || len(lp.cleanEvents) != len(m.arms) {
		return false
	}
	for i, a := range m.arms {
		if a.events != lp.cleanEvents[i] {
			return false
		}
	}
	return true
}

// tick moves the open step along; Update calls it every frame.
func (lp *lessonPlayer) tick(m *Model) {
	if lp.cur == nil {
		return
	}
	switch lp.phase {
	case phaseBegin:
		lp.runStep(m)
		return
	case phaseReached, phaseStopped, phaseOffScript:
		if lp.phase != phaseOffScript && !lp.onScript(m) {
			lp.phase, lp.caption = phaseOffScript, nil
		}
		if lp.phase == phaseReached && m.arms[0].id != lp.armID {
			lp.phase, lp.caption = phaseStopped, nil // started over (Reset)
		}
		return
	}
	if !lp.onScript(m) {
		lp.phase, lp.caption = phaseOffScript, nil
		return
	}
	if m.refused != "" {
		lp.phase, lp.note = phaseStopped, m.refused
		return
	}
	settled := len(m.pipe.pending) == 0 && m.jump == nil && !m.time.playing
	hunting := slices.ContainsFunc(m.pipe.pending, func(cp target) bool { return cp.seq == lp.untilSeq })
	switch {
	case lp.phase == phaseHunting && !hunting:
		lp.phase = phaseStopped // a pause cancelled the search
	case !settled || lp.phase == phaseHunting:
	case m.pipe.shownNs != lp.targetNs:
		lp.phase = phaseStopped // paused on the way
	case lp.phase == phaseRunning && lp.cur.Steps[lp.step].Until != nil:
		lp.hunt(m)
	default:
		lp.arrive(m)
	}
}

// hunt asks the step's arm to run until its event, for at most the step's
// "within" (or to the horizon).
func (lp *lessonPlayer) hunt(m *Model) {
	u := lp.cur.Steps[lp.step].Until
	if u.ArmIndex >= len(m.arms) {
		lp.phase, lp.note = phaseStopped, "this step is about arm B, and the page runs one arm"
		return
	}
	limit := m.arms[u.ArmIndex].endNs
	if u.WithinNs > 0 {
		limit = min(limit, u.AfterNs+u.WithinNs)
	}
	lp.phase = phaseHunting
	lp.untilSeq = m.requestUntil(u.ArmIndex, u.Kind, limit)
}

// untilFound takes the answer to a tgUntil: the arms then go to just after the
// event (at+1 ns, where a fresh run to that moment stands too), or to the limit
// when it did not happen.
func (lp *lessonPlayer) untilFound(m *Model, cp target, f runner.Frame, ok bool) {
	ev := cp.until
	hit := ok && f.Err == "" && (ev == runner.EventDone && f.Done || ev != runner.EventDone && !f.Done && f.NowNs < cp.toNs)
	target := cp.toNs
	if hit {
		target = f.NowNs + 1
	}
	m.request(tgAdvance, target, true, false)
	if lp.cur == nil || lp.phase != phaseHunting || cp.seq != lp.untilSeq {
		return // the lesson moved on: the arms just meet again
	}
	if !hit {
		u := lp.cur.Steps[lp.step].Until
		lp.note = fmt.Sprintf("No %s in arm %c before %s: stopped there.", eventWords(ev), 'A'+u.ArmIndex, view.Duration(float64(cp.toNs)))
	} else if f.Selected.Thread < 0 {
		lp.eventCPU = int(f.Selected.CPU) // the answer points at the event (runner.Advance.Until)
	}
	lp.targetNs, lp.phase = target, phaseSettling
}

// arrive pauses at the step's moment: it records the clean boundary, points at
// the step's vCPU or thread and fills the caption once every arm's results are
// from this moment.
func (lp *lessonPlayer) arrive(m *Model) {
	for _, a := range m.arms {
		if a.err == "" && a.resultsAt != a.NowNs() {
			m.request(tgAdvance, m.pipe.shownNs, true, false) // results here first
			return
		}
	}
	lp.phase, lp.armID = phaseReached, m.arms[0].id
	lp.cleanNs, lp.cleanEvents = m.pipe.shownNs, lp.cleanEvents[:0]
	for _, a := range m.arms {
		lp.cleanEvents = append(lp.cleanEvents, a.events)
	}
	m.view.AtNs = 0 // the step names the moment, not t=
	if h := lp.cur.Steps[lp.step].Highlight; h != nil {
		m.sel = lp.highlight(m, h)
		if h.Event {
			// The arm holds the engine's decision about the event itself (its
			// answer to the tgUntil): no newer one is to be looked up.
			m.pipe.sel = m.sel
		}
	}
	lp.caption = lp.fillCaption(m)
}

// highlight resolves a step's highlight to a selection on the arms shown.
func (lp *lessonPlayer) highlight(m *Model, h *lesson.Highlight) Selection {
	if h.ArmIndex >= len(m.arms) {
		return noSelection()
	}
	a := m.arms[h.ArmIndex]
	switch {
	case h.Event:
		if lp.eventCPU >= 0 {
			return Selection{Arm: h.ArmIndex, CPU: lp.eventCPU, Thread: -1}
		}
	case h.CPU != nil:
		return Selection{Arm: h.ArmIndex, CPU: *h.CPU, Thread: -1}
	case h.Thread != nil:
		if t, ok := a.thread(*h.Thread); ok {
			return Selection{Arm: h.ArmIndex, CPU: t.CPU, Thread: t.ID}
		}
	default:
		for _, t := range a.Snap.Threads {
			if t.Role.String() == h.Role {
				return Selection{Arm: h.ArmIndex, CPU: t.CPU, Thread: t.ID}
			}
		}
	}
	return noSelection()
}

// eventWords names an event in a sentence.
func eventWords(e runner.Event) string {
	switch e {
	case runner.EventPullIPI:
		return "pull IPI"
	case runner.EventSpinGrow:
		return "spin window growth"
	case runner.EventSpinShrink:
		return "spin window shrink"
	case runner.EventDone:
		return "end of the workload"
	}
	return e.String()
}

package playground

// Jumping to a moment: run ahead to a simulated time as fast as the runner goes
// (skipping a warm-up, say), with a progress bar, and stop there. The URL records
// the moment as t=, so a shared link or an embed opens where its author was.

import (
	"fmt"

	"schedplay/view"
)

// jump is a run ahead in progress.
type jump struct {
	fromNs, toNs int64
	// resume says whether to play on from the moment (an embed autoplays) or to
	// stay there.
	resume bool
}

// JumpUI is the progress bar of a run ahead.
type JumpUI struct {
	To string `json:"to"`
	// Done is the fraction covered, 0 to 1.
	Done float64 `json:"done"`
}

// JumpTo runs ahead to simulated time t (ns) at full speed and stops there (or,
// if the page was playing, plays on from there); it returns "" or why not. It
// starts from the latest saved state at or before t when that is ahead of the
// arms (saved.go); otherwise a moment before the one shown starts the run over
// from zero: the run is deterministic, so either way it passes through the same
// states.
func (m *Model) JumpTo(t int64) string {
	m.edits++
	if m.refused != "" {
		return "t: the engine refused this scenario"
	}
	if end := m.arms[0].endNs; t < 0 || t > end {
		return fmt.Sprintf("t: %s is outside the run (0 to %s)", view.Duration(float64(t)), view.Duration(float64(end)))
	}
	m.cancelHunt()
	// The shell fetches the arms' saved states, if it has any, only now: a
	// page that never jumps downloads none (what arrives later takes the jump
	// over, takeLateStates).
	m.saved.want(m.armKeys())
	resume := m.time.playing && m.time.runToNs < 0 || m.jump != nil && m.jump.resume
	from := m.pipe.shownNs
	switch {
	case m.startSaved(t):
		from = m.pipe.reqNs // where the saved state put the arms
	case t < m.pipe.reqNs:
		m.rebuild()
		from = 0
	}
	m.savedSeen = m.saved.version()
	m.jump = &jump{fromNs: from, toNs: t, resume: resume}
	m.time.runToNs, m.time.playing = t, true
	m.view.AtNs = t
	return ""
}

// view describes the run ahead in progress at shownNs, or nil when there is
// none.
func (j *jump) view(shownNs int64) *JumpUI {
	if j == nil {
		return nil
	}
	done := 1.0
	if j.toNs > j.fromNs {
		done = min(max(float64(shownNs-j.fromNs)/float64(j.toNs-j.fromNs), 0), 1)
	}
	return &JumpUI{To: view.SimTime(j.toNs), Done: done}
}

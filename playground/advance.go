package playground

// Targets: how the model moves simulations that run elsewhere (the Runner,
// usually Web Workers) and still shows every arm of a comparison at one simulated
// time. (A "checkpoint" is something else: an engine's saved state, which a jump
// may start the arms from; see jump.go.)
//
// Each frame the model sends every arm the same advance request, a target
// "reach t", and shows a target only once every arm has answered it; answers
// wait in the arms' inboxes until then. A few targets are outstanding at a time,
// so the runner always has the next one queued (it never idles while the page
// draws) but never runs far ahead of what the page can stop: pausing cancels what
// is queued, and the arms, stopped wherever they were, are brought to the
// furthest one's time by one more target before anything is shown. In slow motion
// a target is a frame's worth of simulated time ahead, so a 2 µs IPI crosses the
// stage over seconds, answer by answer; at max speed (and while jumping) the
// page takes answers as they arrive and paints a few frames a second
// (racing.go), and a target is sized to cost the runner targetRequestMs (a
// frame and a half where answers wait for a frame). With the arms in two
// workers, an arm may run further ahead at max speed, and a pause may replay
// it instead of waiting for the others (lead.go).

import (
	"cmp"
	"math"
	"slices"

	"schedplay/playground/runner"
)

// Target sizing and pacing. A fast run (max speed, a jump) keeps one more
// target in flight: the page takes answers only once a frame. The depth is
// also what a pause costs: the arms meet at the furthest one's time, so the
// slower one first catches up with a lead of up to maxInFlightFast targets
// (TestMeasureSpeed reports it).
const (
	maxInFlight     = 2
	maxInFlightFast = 3
	targetRequestMs = 20
	maxRequestMs    = 250
	minStepNs       = 1_000
	maxStepNs       = 10_000_000_000
	firstStepNs     = 100_000
	// resultsEveryMs paces the requests for the engine's results (a pass over
	// its histograms): the cards refresh a few times a second.
	resultsEveryMs = 200
)

type targetKind uint8

const (
	tgAdvance targetKind = iota // every arm to toNs
	tgStep                      // the leader processes one event, the others follow to its time
	tgCancel                    // every arm stops where it is; never shown, a sync follows
	tgUntil                     // the leader runs until an event (lesson.go); never shown, a sync follows
)

// target is one advance request to every arm.
type target struct {
	seq  uint32
	kind targetKind
	toNs int64 // for tgStep, set when the leader answers
	// fromNs is where a max-speed target starts: its size, toNs-fromNs,
	// is what its answers' busy time measured.
	fromNs int64
	leader int // tgStep: the arm that steps
	// followed is set once a step's followers have been asked.
	followed bool
	// sized marks a max-speed target, whose cost adapts stepNs.
	sized bool
	// until is a tgUntil's event; its toNs is where the leader stops looking.
	until runner.Event
}

// pipeline is what has been asked of the runner and not yet shown.
type pipeline struct {
	seq     uint32
	pending []target
	// reqNs is where the newest target aims: the next one starts there.
	reqNs int64
	// shownNs is the simulated time of the target shown last.
	shownNs int64
	// stepNs is the size of a max-speed target, adapted to the runner's pace.
	stepNs int64
	// resultsMs is the wall time results were last asked for.
	resultsMs float64
	// frameMs is the page's frame interval (smoothed): a max-speed target
	// should keep the runner busy for longer than that, unless onArrival:
	// the page takes answers as they arrive (Service, racing.go).
	frameMs   float64
	onArrival bool
	// sel is the selection last sent; stepWanted asks for a Step once the
	// pipeline is empty.
	sel        Selection
	stepWanted bool
}

func newPipeline() pipeline {
	return pipeline{stepNs: firstStepNs, sel: noSelection()}
}

// request sends a target of kind to the arms (a step only to its leader) and
// queues it.
func (m *Model) request(kind targetKind, toNs int64, results, sized bool) {
	p := &m.pipe
	p.seq++
	cp := target{seq: p.seq, kind: kind, toNs: toNs, fromNs: p.reqNs, sized: sized}
	if results {
		p.resultsMs = m.time.lastMs
	}
	p.sel = m.sel
	switch kind {
	case tgCancel:
		for _, a := range m.arms {
			m.run.Cancel(a.id, cp.seq)
		}
		p.pending = p.pending[:0] // the cancel drops them: they will not be answered
	case tgStep:
		cp.leader = max(m.firstRunning(), 0)
		m.run.Advance(m.arms[cp.leader].id, m.advanceFor(cp.leader, cp, true, results))
	default:
		p.reqNs = toNs
		for i, a := range m.arms {
			m.run.Advance(a.id, m.advanceFor(i, cp, false, results))
		}
	}
	p.pending = append(p.pending, cp)
}

// advanceFor is target cp as arm i is asked it.
func (m *Model) advanceFor(i int, cp target, step, results bool) runner.Advance {
	slow := m.time.slides() || step
	adv := runner.Advance{Seq: cp.seq, ToNs: cp.toNs, Step: step, Results: results || step, Until: cp.until,
		Slides: slow, Ghosts: slow && !m.view.NoGhosts, Select: runner.NoSelection(),
		Marks: cp.sized && m.parallel()}
	if m.sel.Arm == i && (m.sel.CPU >= 0 || m.sel.Thread >= 0) {
		adv.Select = runner.Selection{CPU: int32(m.sel.CPU), Thread: int32(m.sel.Thread)}
	}
	return adv
}

// requestUntil asks arm leader alone to run until the first ev or limitNs, and
// returns the target's number. Until it answers, the arms are anywhere up to
// limitNs, so the pipeline aims there (a jump before it starts over).
func (m *Model) requestUntil(leader int, ev runner.Event, limitNs int64) uint32 {
	p := &m.pipe
	p.seq++
	cp := target{seq: p.seq, kind: tgUntil, toNs: limitNs, leader: leader, until: ev}
	p.sel = m.sel
	m.run.Advance(m.arms[leader].id, m.advanceFor(leader, cp, false, false))
	p.reqNs = limitNs
	p.pending = append(p.pending, cp)
	return cp.seq
}

// firstRunning is the index of the first arm not done, or -1.
func (m *Model) firstRunning() int {
	for i, a := range m.arms {
		if !a.done {
			return i
		}
	}
	return -1
}

// receive files the runner's answers with their arms (or the sweep), and asks a
// step's followers once its leader has answered.
func (m *Model) receive() {
	m.inbox = m.run.Receive(m.inbox[:0])
	for _, f := range m.inbox {
		if a := m.armByID(f.Arm); a != nil {
			a.inbox = append(a.inbox, f)
			if f.Err != "" {
				a.err, a.done = f.Err, true // it answers every target from now on
			}
		} else if m.sweep != nil {
			m.sweep.take(f)
		}
	}
	clear(m.inbox)
	p := &m.pipe
	for i := range p.pending {
		cp := &p.pending[i]
		if cp.kind != tgStep || cp.followed {
			continue
		}
		f, ok := m.arms[cp.leader].answer(cp.seq)
		if !ok {
			continue
		}
		cp.toNs, cp.followed, p.reqNs = f.NowNs, true, f.NowNs
		for j, a := range m.arms {
			if j != cp.leader {
				m.run.Advance(a.id, m.advanceFor(j, *cp, false, true))
			}
		}
	}
}

func (m *Model) armByID(id runner.ArmID) *Arm {
	for _, a := range m.arms {
		if a.id == id {
			return a
		}
	}
	return nil
}

// showReady shows every target all arms have answered, in order. A cancel is
// followed by a target that brings every arm to the furthest one's time.
func (m *Model) showReady(wallMs float64) {
	p := &m.pipe
	for len(p.pending) > 0 && m.allAnswered(p.pending[0]) {
		cp := p.pending[0]
		p.pending = p.pending[1:]
		if cp.kind == tgUntil {
			// The leader's answer stays in its inbox: the target that brings
			// every arm to just after the event shows it, in order.
			f, ok := m.arms[cp.leader].answer(cp.seq)
			m.lesson.untilFound(m, cp, f, ok)
			continue
		}
		if cp.kind == tgCancel {
			stopped, done := make([]int64, len(m.arms)), make([]bool, len(m.arms))
			for i, a := range m.arms {
				stopped[i] = -1
				if f, ok := a.answer(cp.seq); ok && f.Err == "" {
					stopped[i], done[i] = f.NowNs, f.Done
				}
			}
			sync := m.syncAfterCancel(stopped, done)
			p.reqNs = sync
			m.request(tgAdvance, sync, true, false)
			continue
		}
		least, most := 0.0, 0.0 // the arms' busy time on it, those still running
		for _, a := range m.arms {
			if f, ok := a.answer(cp.seq); ok && !a.done {
				least, most = min(cmp.Or(least, f.BusyMs), f.BusyMs), max(most, f.BusyMs)
			}
			a.show(cp.seq, wallMs)
		}
		if cp.sized && cp.toNs > cp.fromNs {
			// From the size this answer measured, not the size asked for
			// last: with several targets in flight, growing the newest by 2x
			// per answer would compound unchecked until the answers to the
			// grown ones came back (2^maxInFlightFast too large).
			p.stepNs = adaptStep(cp.toNs-cp.fromNs, m.sizingBusyMs(least, most), p.targetMs())
		}
		p.shownNs = cp.toNs
		m.shown()
	}
}

// allAnswered reports whether every arm has answered cp (a step's followers only
// after they were asked).
func (m *Model) allAnswered(cp target) bool {
	if cp.kind == tgStep && !cp.followed && m.arms[cp.leader].err == "" {
		return false
	}
	if cp.kind == tgUntil {
		return m.arms[cp.leader].answered(cp.seq)
	}
	for _, a := range m.arms {
		if !a.answered(cp.seq) {
			return false
		}
	}
	return true
}

// shown runs after a target is shown: a RunTo or a jump that has arrived
// stops there.
func (m *Model) shown() {
	tc := &m.time
	if tc.runToNs >= 0 && m.pipe.shownNs >= tc.runToNs {
		tc.playing, tc.runToNs = false, -1
		if m.jump != nil {
			tc.playing, m.jump = m.jump.resume, nil
		}
	}
	// A refusal stops the run, but a policy that does not compile beside an
	// arm that plays (a built-in compared with it) shows its error on its own
	// pane (panes) and in the editor while the other plays on.
	for _, a := range m.arms {
		if a.err != "" && m.refused == "" && (!a.policyRefused() || !slices.ContainsFunc(m.arms, (*Arm).playable)) {
			m.refused, tc.playing = a.err, false
		}
	}
	if m.done() {
		// Arms at their end answer at once, so a RunTo or a jump still goes on
		// to its moment within the run (a lesson step waits for it there): the
		// target that brought the arms to their end may stop short of it.
		if tc.runToNs >= 0 && m.refused == "" && m.pipe.shownNs < min(tc.runToNs, m.horizonNs()) {
			return
		}
		tc.playing = false
		if tc.runToNs >= 0 {
			tc.runToNs, m.jump = -1, nil
		}
	}
}

// horizonNs is where the run ends: the furthest arm's end.
func (m *Model) horizonNs() int64 {
	end := int64(0)
	for _, a := range m.arms {
		end = max(end, a.endNs)
	}
	return end
}

// plan asks for the next targets while playing: a frame's worth of simulated
// time at the chosen speed, or stepNs at a time at max speed and while jumping,
// never past a RunTo or the horizon.
func (m *Model) plan(dtMs float64) {
	tc, p := &m.time, &m.pipe
	stop := m.arms[0].endNs
	for _, a := range m.arms {
		stop = max(stop, a.endNs)
	}
	if tc.runToNs >= 0 {
		stop = min(stop, tc.runToNs)
	}
	if p.reqNs >= stop && len(p.pending) == 0 {
		m.shown() // a RunTo to where the run already is stops here
		return
	}
	fast := tc.speedMax || m.jump != nil
	owed, inFlight := int64(0), maxInFlightFast
	if !fast {
		owed, inFlight = tc.owe(dtMs), maxInFlight
	}
	for m.wantsTarget(fast, inFlight) && p.reqNs < stop {
		to := p.reqNs + p.stepNs
		if !fast {
			if owed < 1 {
				return
			}
			to = p.reqNs + owed
			tc.carryNs -= float64(owed)
			owed = 0
		}
		to = min(to, stop)
		m.request(tgAdvance, to, to == stop || tc.lastMs-p.resultsMs >= resultsEveryMs, fast)
	}
}

// exchange sends what the model wants besides playing (a step, the explanation
// of a new selection), lets the runner work within this frame's budget (an
// in-process runner; workers run on their own) and shows what came back.
func (m *Model) exchange(wallMs float64) {
	p := &m.pipe
	if len(p.pending) == 0 && !m.time.playing {
		switch {
		case p.stepWanted:
			p.stepWanted = false
			if m.firstRunning() >= 0 {
				m.request(tgStep, 0, true, false)
			}
		case p.sel != m.sel:
			m.request(tgAdvance, p.reqNs, false, false)
		}
	}
	if m.sweep != nil {
		m.sweep.step()
	}
	m.run.Pump(m.time.clock() + m.time.budget())
	m.receive()
	m.showReady(wallMs)
}

// Update advances the simulations for one frame at wall time nowMs: by the speed
// times the frame's duration, or at max speed as fast as the runner goes. Both
// arms are shown at the same simulated time.
func (m *Model) Update(nowMs float64) {
	tc := &m.time
	gapMs := nowMs - tc.lastMs // uncapped, for the speed achieved
	if tc.lastMs == 0 {
		gapMs = 0
	}
	dt := tc.frameDt(nowMs)
	if dt > 0 {
		m.pipe.frameMs += (dt - m.pipe.frameMs) * 0.1
	}
	m.receive()
	m.showReady(nowMs)
	m.takeLateStates()
	if tc.playing {
		m.plan(dt)
	}
	m.exchange(nowMs)
	for _, a := range m.arms {
		a.settle(nowMs)
	}
	m.lesson.tick(m)
	// What was shown since the last frame: Service may show targets between
	// frames. A restart, which goes back in time, counts nothing.
	if gapMs > 0 && tc.playing && m.pipe.shownNs >= tc.frameShownNs {
		got := float64(m.pipe.shownNs-tc.frameShownNs) / (gapMs / 1000)
		tc.effSpeed += (got - tc.effSpeed) * (1 - math.Exp(-gapMs/effSpeedTauMs))
	}
	tc.frameShownNs = m.pipe.shownNs
}

// Play starts or resumes the run; at the horizon it starts over.
func (m *Model) Play() {
	m.edits++
	m.cancelHunt()
	if m.done() {
		m.Reset()
	}
	m.time.playing = m.refused == ""
}

// Pause stops the clock. Targets already asked for are cancelled, so a run at
// max speed or a jump stops within one chunk of engine work; the arms then meet at
// the furthest one's time.
func (m *Model) Pause() {
	m.edits++
	m.time.playing = false
	m.time.runToNs = -1
	if m.jump != nil {
		m.jump = nil
		m.view.AtNs = 0 // the link no longer names where the page is
	}
	if len(m.pipe.pending) > 0 {
		m.request(tgCancel, 0, true, false)
	}
}

// cancelHunt pauses when a lesson step is looking for its event (a tgUntil is
// queued), which stops the step: targets asked for behind the search would
// start where it stops looking, and the move to just after the event that its
// answer brings would come after them, going back in time.
func (m *Model) cancelHunt() {
	if slices.ContainsFunc(m.pipe.pending, func(cp target) bool { return cp.kind == tgUntil }) {
		m.Pause()
	}
}

// Playing reports whether the clock runs.
func (m *Model) Playing() bool { return m.time.playing }

// Step pauses and processes one event of the first arm still running, bringing
// the other arm to the same simulated time. An in-process runner has done it on
// return; workers answer within a frame or two.
func (m *Model) Step() {
	m.Pause()
	m.pipe.stepWanted = true
	for i := 0; i < 6 && (m.pipe.stepWanted || len(m.pipe.pending) > 0); i++ {
		m.exchange(m.time.lastMs)
	}
	for _, a := range m.arms {
		a.settle(m.time.lastMs)
	}
}

// RunTo plays until simulated time t (ns) and pauses there exactly: the page's
// tests and embedders use it to compare runs at the same instant.
func (m *Model) RunTo(t int64) {
	m.edits++
	m.cancelHunt()
	m.time.runToNs = t
	m.time.playing = m.refused == ""
}

// done reports whether every arm reached its horizon (or was refused).
func (m *Model) done() bool {
	for _, a := range m.arms {
		if !a.done {
			return false
		}
	}
	return true
}

// Reset restarts the run at time zero (same scenario, same seed).
func (m *Model) Reset() {
	m.edits++
	playing := m.time.playing
	m.view.AtNs = 0
	m.rebuild()
	m.time.playing = playing && !m.done()
}

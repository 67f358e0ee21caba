package play

// Time control: play and pause, speed, RunTo, and stepping the engine inside a
// per-frame budget.

import "schedplay/wasm/urlstate"

// Slice limits: each RunUntil call should take well under a millisecond of wall
// time so the budget check is fine-grained, whatever the event density.
const (
	minSliceNs        = 100
	maxSliceNs        = 50_000_000
	targetSliceMs     = 0.4
	maxFrameGapMs     = 100 // a stalled tab does not make the next frame jump
	effSpeedSmoothing = 0.1
)

// frameTargetMs is what Update and Draw together may take per frame: the budget
// shrinks by the time drawing takes (a large compare view draws longer), so a
// frame stays under it at any speed and the page keeps a steady frame rate.
const frameTargetMs = 6

// slideMaxNsPerS is the fastest speed at which migrations slide (see slides).
const slideMaxNsPerS = 2_000_000

// DefaultSpeed is the speed a page opens with.
const DefaultSpeed = "20ms"

// timeControl decides how far simulated time moves each frame: whether it runs,
// how fast, where RunTo stops it, and how much wall time the engine may take.
// The Model applies its decisions to the arms.
type timeControl struct {
	playing  bool
	speedNs  int64   // simulated ns per wall second
	speedMax bool    // as fast as the budget allows
	carryNs  float64 // simulated time earlier frames owe, under a nanosecond
	sliceNs  int64   // simulated time per RunUntil call, adapted to the event density
	runToNs  int64   // where RunTo pauses; -1 for nowhere
	lastMs   float64 // wall time of the last Update; 0 before the first
	effSpeed float64 // measured simulated ns per wall second (smoothed)

	clock    func() float64 // Options.Clock
	budgetMs float64        // Options.BudgetMs
	drawMs   float64        // smoothed Draw time (RecordDraw)
	settleMs float64        // smoothed time of taking snapshots after stepping
}

func newTimeControl(clock func() float64, budgetMs float64) timeControl {
	return timeControl{clock: clock, budgetMs: budgetMs, sliceNs: 20_000, runToNs: -1}
}

// restart forgets what belongs to the run being replaced: owed time and a RunTo.
func (tc *timeControl) restart() {
	tc.carryNs = 0
	tc.runToNs = -1
}

// setSpeed applies a speed token, "" or an invalid one meaning DefaultSpeed.
func (tc *timeControl) setSpeed(tok string) {
	if tok == "" {
		tok = DefaultSpeed
	}
	ns, max, err := urlstate.ParseSpeed(tok)
	if err != nil {
		ns, max, _ = urlstate.ParseSpeed(DefaultSpeed)
	}
	tc.speedNs, tc.speedMax = ns, max
}

// frameDt records a frame at wall time nowMs and returns the wall time since the
// last one: 0 for the first, at most maxFrameGapMs.
func (tc *timeControl) frameDt(nowMs float64) float64 {
	dt := nowMs - tc.lastMs
	if tc.lastMs == 0 || dt < 0 {
		dt = 0
	}
	tc.lastMs = nowMs
	return min(dt, maxFrameGapMs)
}

// budget is this frame's engine time: the configured budget, less what drawing,
// taking snapshots and one slice's overshoot need, but at least a millisecond so
// the run always moves.
func (tc *timeControl) budget() float64 {
	return max(min(tc.budgetMs, frameTargetMs-tc.drawMs-tc.settleMs-targetSliceMs), 1)
}

// target is the simulated time a frame of dtMs should reach from nowNs: the speed
// times the frame's duration (or the horizon endNs at max speed), never past a
// RunTo or the horizon.
func (tc *timeControl) target(dtMs float64, nowNs, endNs int64) int64 {
	var t int64
	if tc.speedMax {
		t = endNs
	} else {
		tc.carryNs += float64(tc.speedNs) * dtMs / 1000
		whole := int64(tc.carryNs)
		tc.carryNs -= float64(whole)
		t = nowNs + whole
	}
	if tc.runToNs >= 0 {
		t = min(t, tc.runToNs)
	}
	return min(t, endNs)
}

// slides reports whether migrations are animated as sliding chips: only while a
// wall second covers at most slideMaxNsPerS of simulated time. Faster, a slide
// would still be travelling long after the thread ran, blocked and moved on, and
// the donation IPI's trail already shows the move.
func (tc *timeControl) slides() bool { return !tc.speedMax && tc.speedNs <= slideMaxNsPerS }

// adaptSlice doubles a slice that took under a quarter of targetSliceMs of wall
// time and halves one that took over twice it, within [minSliceNs, maxSliceNs].
func adaptSlice(sliceNs int64, elapsedMs float64) int64 {
	switch {
	case elapsedMs < targetSliceMs/4:
		sliceNs *= 2
	case elapsedMs > targetSliceMs*2:
		sliceNs /= 2
	}
	return min(max(sliceNs, minSliceNs), maxSliceNs)
}

// Update advances the simulations for one frame at wall time nowMs: by the speed
// times the frame's duration, or (at max speed) as far as the budget allows, never
// longer than the budget. Both arms advance to the same simulated time.
func (m *Model) Update(nowMs float64) {
	tc := &m.time
	dt := tc.frameDt(nowMs)
	deadline := tc.clock() + tc.budget()
	a0 := m.arms[0]
	before := a0.Sim.NowNs()
	if tc.playing {
		if m.done() {
			tc.playing = false
		} else {
			m.advance(tc.target(dt, a0.Sim.NowNs(), a0.Sim.EndNs()), deadline)
		}
	}
	if m.sweep != nil && !m.sweep.Done() {
		// The sweep gets what the live run left; while paused, the whole budget.
		m.sweep.step(tc.clock, deadline)
	}
	t0 := tc.clock()
	for _, a := range m.arms {
		a.settle(nowMs)
	}
	tc.settleMs += (tc.clock() - t0 - tc.settleMs) * 0.1
	if dt > 0 && tc.playing {
		got := float64(a0.Sim.NowNs()-before) / (dt / 1000)
		tc.effSpeed += (got - tc.effSpeed) * effSpeedSmoothing
	}
}

// advance runs every arm to target in slices, stopping when the budget is spent.
// The slice adapts so that one round of all arms takes about targetSliceMs.
func (m *Model) advance(target int64, deadline float64) {
	tc := &m.time
	a0 := m.arms[0]
	for a0.Sim.NowNs() < target {
		t1 := min(target, a0.Sim.NowNs()+tc.sliceNs)
		s := tc.clock()
		slow, ghosts := tc.slides(), !m.view.NoGhosts
		for _, a := range m.arms {
			a.runUntil(t1, tc.lastMs, slow, ghosts)
		}
		tc.sliceNs = adaptSlice(tc.sliceNs, tc.clock()-s)
		if tc.clock() >= deadline {
			break
		}
	}
	if tc.runToNs >= 0 && a0.Sim.NowNs() >= tc.runToNs {
		tc.playing = false
		tc.runToNs = -1
	}
	if m.done() {
		tc.playing = false
	}
}

// Play starts or resumes the run; at the horizon it starts over.
func (m *Model) Play() {
	if m.done() {
		m.Reset()
	}
	m.time.playing = true
}

// Pause stops the clock.
func (m *Model) Pause() { m.time.playing = false }

// Playing reports whether the clock runs.
func (m *Model) Playing() bool { return m.time.playing }

// Reset restarts the run at time zero (same scenario, same seed).
func (m *Model) Reset() {
	m.rebuild()
	m.time.playing = m.time.playing && !m.done()
}

// Step pauses and processes one event of the first arm, bringing the other arm to
// the same simulated time.
func (m *Model) Step() {
	m.time.playing = false
	if m.done() {
		return
	}
	a0 := m.arms[0]
	ghosts := !m.view.NoGhosts
	a0.step(m.time.lastMs, ghosts)
	for _, a := range m.arms[1:] {
		a.runUntil(a0.Sim.NowNs(), m.time.lastMs, true, ghosts)
	}
	for _, a := range m.arms {
		a.settle(m.time.lastMs)
	}
}

// RunTo plays until simulated time t (ns) and pauses there exactly: the page's
// tests and embedders use it to compare runs at the same instant.
func (m *Model) RunTo(t int64) {
	m.time.runToNs = t
	m.time.playing = true
}

// done reports whether every arm reached its horizon.
func (m *Model) done() bool {
	for _, a := range m.arms {
		if !a.Sim.Done() {
			return false
		}
	}
	return true
}

// Speeds are the speed picker's choices, slowest first.
func Speeds() []Option {
	return []Option{
		{"1us", "1 µs/s · follow each IPI"}, {"5us", "5 µs/s"}, {"20us", "20 µs/s"}, {"100us", "100 µs/s"},
		{"500us", "0.5 ms/s"}, {"2ms", "2 ms/s"}, {"5ms", "5 ms/s"}, {"20ms", "20 ms/s"}, {"50ms", "50 ms/s"},
		{"200ms", "0.2 s/s"}, {"1s", "1 s/s · real time"}, {"max", "max · as fast as the budget allows"},
	}
}

package play

// Time control: stepping the engine inside a per-frame budget.

// Slice limits: each RunUntil call should take well under a millisecond of wall
// time so the budget check is fine-grained, whatever the event density.
const (
	minSliceNs       = 100
	maxSliceNs       = 50_000_000
	targetSliceMs    = 0.4
	maxFrameGapMs    = 100 // a stalled tab does not make the next frame jump
	effSpeedSmoothig = 0.1
)

// Update advances the simulations for one frame at wall time nowMs: by the speed
// times the frame's duration, or (at max speed) as far as the budget allows, never
// longer than the budget. Both arms advance to the same simulated time.
func (m *Model) Update(nowMs float64) {
	dt := nowMs - m.lastMs
	if m.lastMs == 0 || dt < 0 {
		dt = 0
	}
	dt = min(dt, maxFrameGapMs)
	m.lastMs = nowMs
	start := m.clock()
	deadline := start + m.budget()
	before := m.arms[0].Sim.NowNs()
	if m.playing {
		if m.done() {
			m.playing = false
		} else {
			m.advance(m.target(dt), deadline)
		}
	}
	if m.sweep != nil && !m.sweep.Done() {
		// The sweep gets what the live run left; while paused, the whole budget.
		m.sweep.step(m.clock, deadline)
	}
	t0 := m.clock()
	for _, a := range m.arms {
		a.settle(nowMs)
	}
	m.settleMs += (m.clock() - t0 - m.settleMs) * 0.1
	if dt > 0 && m.playing {
		got := float64(m.arms[0].Sim.NowNs()-before) / (dt / 1000)
		m.effSpeed += (got - m.effSpeed) * effSpeedSmoothig
	}
}

// frameTargetMs is what Update and Draw together may take per frame: the budget
// shrinks by the time drawing takes (a large compare view draws longer), so a
// frame stays under it at any speed and the page keeps a steady frame rate.
const frameTargetMs = 6

// budget is this frame's engine time: the configured budget, less what drawing,
// taking snapshots and one slice's overshoot need, but at least a millisecond so
// the run always moves.
func (m *Model) budget() float64 {
	return max(min(m.budgetMs, frameTargetMs-m.drawMs-m.settleMs-targetSliceMs), 1)
}

// target is the simulated time this frame should reach.
func (m *Model) target(dtMs float64) int64 {
	now := m.arms[0].Sim.NowNs()
	end := m.arms[0].Sim.EndNs()
	var t int64
	if m.speedMax {
		t = end
	} else {
		m.carryNs += float64(m.speedNs) * dtMs / 1000
		whole := int64(m.carryNs)
		m.carryNs -= float64(whole)
		t = now + whole
	}
	if m.runToNs >= 0 {
		t = min(t, m.runToNs)
	}
	return min(t, end)
}

// slides reports whether migrations are animated as sliding chips: only while a
// wall second covers at most slideMaxNsPerS of simulated time. Faster, a slide
// would still be travelling long after the thread ran, blocked and moved on, and
// the donation IPI's trail already shows the move.
func (m *Model) slides() bool { return !m.speedMax && m.speedNs <= slideMaxNsPerS }

const slideMaxNsPerS = 2_000_000

// advance runs every arm to target in slices, stopping when the budget is spent.
// The slice adapts so that one round of all arms takes about targetSliceMs.
func (m *Model) advance(target int64, deadline float64) {
	a0 := m.arms[0]
	for a0.Sim.NowNs() < target {
		t1 := min(target, a0.Sim.NowNs()+m.sliceNs)
		s := m.clock()
		slow, ghosts := m.slides(), !m.url.View.NoGhosts
		for _, a := range m.arms {
			a.runUntil(t1, m.lastMs, slow, ghosts)
		}
		e := m.clock() - s
		switch {
		case e < targetSliceMs/4:
			m.sliceNs *= 2
		case e > targetSliceMs*2:
			m.sliceNs /= 2
		}
		m.sliceNs = min(max(m.sliceNs, minSliceNs), maxSliceNs)
		if m.clock() >= deadline {
			break
		}
	}
	if m.runToNs >= 0 && a0.Sim.NowNs() >= m.runToNs {
		m.playing = false
		m.runToNs = -1
	}
	if m.done() {
		m.playing = false
	}
}

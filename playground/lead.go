package playground

// Leads: how far one arm may run ahead of another at max speed, when the arms
// run in parallel (two engine workers).
//
// Each target is shown only once every arm has answered it, so an arm that is
// cheaper per simulated nanosecond than the other waits for it after a few
// targets. In lock-step, a comparison whose arms are dense at different times
// (hackbench: the new rule's arm packs its 8M events into its first 0.38 s, the
// old rule's spreads as many over 2.9 s) takes the sum of the two arms' work
// rather than the larger. So at max speed, with parallel workers, the arm ahead
// may keep going while a pause stays cheap: a pause brings the arms to one
// time either by letting the ones behind catch up (as in lock-step) or by
// replaying the ones ahead to the time of the one behind (the engine is
// deterministic, so the replay reaches the very state it passed), whichever
// the arms' own pace says costs less; and an arm may lead only while that
// cost stays within maxPauseMs. A replay starts from the latest state the
// worker saved of the arm on the way (a mark, one per runner.MarkEveryMs of
// its work: Advance.Marks) before where it goes, or from the arm's start, so
// it costs about that much however far the run has gone: the lead is then
// bounded by the targets in flight (maxLeadTargets), not by the run so far.

import (
	"cmp"
	"slices"

	"schedplay/playground/runner"
)

const (
	// maxPauseMs bounds what a pause at max speed may cost the runner before
	// the arms stand at one time, by its estimate from the arms' pace.
	maxPauseMs = 250
	// leadQueueTargets is how many targets an arm ahead is kept queued: the
	// targets are sized for the slowest arm (adaptStep takes the longest
	// answer), so an arm several times cheaper per simulated nanosecond needs
	// more of them to stay busy through a frame (BenchmarkParallelArms: 3 left
	// it idle for a third of the run).
	leadQueueTargets = 8
	// maxLeadTargets bounds the targets in flight (their answers wait in the
	// arms' inboxes).
	maxLeadTargets = 512
)

// parallel reports whether the runner runs the arms side by side (Remote over
// two workers or more).
func (m *Model) parallel() bool {
	p, ok := m.run.(interface{ Parallel() bool })
	return ok && p.Parallel() && len(m.arms) > 1
}

// wantsTarget reports whether plan should ask for another target: while fewer
// than inFlight are outstanding, and at max speed with parallel arms, while an
// arm still running has fewer than leadQueueTargets to do and a pause would
// cost at most maxPauseMs.
func (m *Model) wantsTarget(fast bool, inFlight int) bool {
	n := len(m.pipe.pending)
	if n < inFlight {
		return true
	}
	if !fast || !m.parallel() || n >= maxLeadTargets || m.leastQueued() >= leadQueueTargets {
		return false
	}
	return m.pauseCostMs() <= maxPauseMs
}

// running reports whether the arm still runs as far as its answers say.
func (a *Arm) running() bool {
	return !a.done && a.err == "" && !slices.ContainsFunc(a.inbox, func(f runner.Frame) bool { return f.Done })
}

// leastQueued is the fewest outstanding targets an arm still running has not
// answered.
func (m *Model) leastQueued() int {
	pending := m.pipe.pending
	least := len(pending)
	for _, a := range m.arms {
		if a.running() {
			least = min(least, len(pending)-answeredPrefix(a, pending))
		}
	}
	return least
}

// answeredPrefix is how many of the outstanding targets arm a has answered:
// an arm answers in order, so they are the first ones, up to its newest answer.
func answeredPrefix(a *Arm, pending []target) int {
	if len(a.inbox) == 0 {
		return 0
	}
	newest := a.inbox[len(a.inbox)-1].Seq
	n, _ := slices.BinarySearchFunc(pending, newest, func(cp target, seq uint32) int {
		return cmp.Compare(cp.seq, seq+1)
	})
	return n
}

// reached is where arm a's newest answer to an outstanding target stands, or
// the time shown.
func (m *Model) reached(a *Arm) int64 {
	at := m.pipe.shownNs
	for _, cp := range m.pipe.pending[:answeredPrefix(a, m.pipe.pending)] {
		if cp.kind == tgAdvance {
			at = max(at, cp.toNs)
		}
	}
	return at
}

// paceMs is what arm a's runner spent per simulated nanosecond getting from
// where it started to the time shown, and false before it has shown progress.
func (a *Arm) paceMs() (float64, bool) {
	if a.Snap.NowNs <= a.startNs || a.costMs <= 0 {
		return 0, false
	}
	return a.costMs / float64(a.Snap.NowNs-a.startNs), true
}

// pauseCostMs estimates what a pause now would cost the runner (the cheaper of
// catching up and replaying, pauseCost), from where the arms' answers stand.
func (m *Model) pauseCostMs() float64 {
	at, running := make([]int64, len(m.arms)), make([]bool, len(m.arms))
	for i, a := range m.arms {
		at[i], running[i] = m.reached(a), a.running()
	}
	catchUp, replay, _, _ := m.pauseCost(at, running)
	return min(catchUp, replay)
}

// pauseCost estimates, for arms standing at at (running: not yet at their
// end), the runner time the running arms would take to catch up with the
// furthest arm (hi), and the time replaying every arm ahead of the running one
// furthest behind (lo) would take; lo is -1 when no arm runs. An arm without
// a pace yet makes both estimates unbounded.
func (m *Model) pauseCost(at []int64, running []bool) (catchUp, replay float64, lo, hi int64) {
	const unbounded = 1e18
	lo, hi = -1, m.pipe.shownNs
	for i, a := range m.arms {
		if a.err != "" {
			continue
		}
		hi = max(hi, at[i])
		if running[i] && (lo < 0 || at[i] < lo) {
			lo = at[i]
		}
	}
	if lo < 0 || lo == hi {
		return 0, 0, lo, hi
	}
	for i, a := range m.arms {
		if a.err != "" {
			continue
		}
		pace, ok := a.paceMs()
		if !ok {
			return unbounded, unbounded, lo, hi
		}
		if running[i] {
			catchUp += pace * float64(hi-at[i])
		}
		if at[i] > lo {
			replay += a.costMs - a.markBefore(lo).costMs + pace*float64(max(lo-a.Snap.NowNs, 0))
		}
	}
	return catchUp, replay, lo, hi
}

// syncAfterCancel chooses where the arms meet after a cancel, given where each
// stopped (stoppedNs; -1 for a refused arm) and which stopped at their end:
// just after the furthest arm's time (an arm at its end included, so that no
// arm is shown past the others), or, with parallel arms and when the arms' pace says
// it costs less, just after the running arm furthest behind stopped, replaying
// the arms ahead of it from where they started. (Just after: a cancel may stop
// an arm between two events of one instant; the next target finishes the
// instant, as the replay and an uninterrupted run do.)
func (m *Model) syncAfterCancel(stoppedNs []int64, done []bool) int64 {
	at, running := slices.Clone(stoppedNs), make([]bool, len(m.arms))
	for i := range at {
		running[i] = at[i] >= 0 && !done[i]
		if at[i] < 0 {
			at[i] = m.pipe.shownNs
		}
	}
	catchUp, replay, lo, hi := m.pauseCost(at, running)
	if !m.parallel() || lo < m.pipe.shownNs || replay >= catchUp {
		if hi > m.pipe.shownNs && hi < m.horizonNs() {
			hi++
		}
		return hi
	}
	for i, a := range m.arms {
		if a.err == "" && at[i] > lo {
			m.replay(a, lo)
		}
	}
	return lo + 1
}

// armMark is a state the runner saved of an arm: where, and what reaching it
// from the arm's start cost.
type armMark struct {
	atNs   int64
	costMs float64
}

// markBefore is arm a's latest mark at or before toNs, or its start.
func (a *Arm) markBefore(toNs int64) armMark {
	from := armMark{atNs: a.startNs}
	for _, k := range a.marks {
		if k.atNs > toNs {
			break
		}
		from = k
	}
	return from
}

// replay brings arm a back to its latest mark at or before toNs (or where it
// started: time zero or its saved state), under a new ID, keeping what the
// page shows of it; the next target brings it to toNs, where the other arms
// stand.
func (m *Model) replay(a *Arm, toNs int64) {
	from := a.markBefore(toNs)
	old := a.id
	m.lastID++
	a.id = m.lastID
	m.run.Rewind(old, a.id, from.atNs)
	a.marks = slices.DeleteFunc(a.marks, func(k armMark) bool { return k.atNs > from.atNs })
	a.inbox = a.inbox[:0]
	a.costMs = from.costMs // the replay's answers add what reaching toNs costs
	a.done = false
	a.replays++
}

package playground

// Time control: the speed, what a frame owes the run at that speed, RunTo, and
// the budget of an in-process runner. advance.go turns these into targets.

import "schedplay/playground/urlstate"

// effSpeedTauMs is the time constant over which the speed shown follows the
// speed measured frame by frame (about ten frames at 60 a second, one
// frame apart when frames are far apart: racing.go); maxFrameGapMs keeps a
// stalled tab from making the next frame jump.
const (
	maxFrameGapMs = 100
	effSpeedTauMs = 150
)

// frameTargetMs is what Update and Draw together may take per frame: the budget of
// an in-process runner shrinks by the time drawing takes (a large compare view
// draws longer), so a frame stays under it at any speed.
const frameTargetMs = 6

// maxLagS bounds how far, in wall seconds of the chosen speed, the simulation may
// fall behind when the runner cannot keep up: the rest is dropped, so the speed
// shown is what the runner achieves and resuming does not race to catch up.
const maxLagS = 0.25

// slideMaxNsPerS is the fastest speed at which migrations slide (see slides).
const slideMaxNsPerS = 2_000_000

// DefaultSpeed is the speed a page opens with.
const DefaultSpeed = "20ms"

// timeControl decides how far simulated time moves each frame: whether it runs,
// how fast, and where RunTo stops it. The Model turns its decisions into
// targets (advance.go).
type timeControl struct {
	playing  bool
	speedNs  int64   // simulated ns per wall second
	speedMax bool    // as fast as the runner goes
	carryNs  float64 // simulated time owed to the run, not yet asked for
	runToNs  int64   // where RunTo pauses; -1 for nowhere
	lastMs   float64 // wall time of the last Update; 0 before the first
	effSpeed float64 // measured simulated ns per wall second (smoothed)
	// frameShownNs is the simulated time shown at the last Update.
	frameShownNs int64

	clock    func() float64 // Options.Clock
	budgetMs float64        // Options.BudgetMs
	drawMs   float64        // smoothed Draw time (RecordDraw)
}

func newTimeControl(clock func() float64, budgetMs float64) timeControl {
	return timeControl{clock: clock, budgetMs: budgetMs, runToNs: -1}
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

// budget is the engine time an in-process runner gets this frame: the configured
// budget, less what drawing needs, but at least a millisecond so the run always
// moves. A runner in workers does not use it.
func (tc *timeControl) budget() float64 {
	return max(min(tc.budgetMs, frameTargetMs-tc.drawMs), 1)
}

// owe adds a frame of dtMs at the chosen speed to what the run is owed, and
// returns the whole nanoseconds owed.
func (tc *timeControl) owe(dtMs float64) int64 {
	tc.carryNs = min(tc.carryNs+float64(tc.speedNs)*dtMs/1000, float64(tc.speedNs)*maxLagS)
	return int64(tc.carryNs)
}

// slides reports whether migrations are animated as sliding chips: only while a
// wall second covers at most slideMaxNsPerS of simulated time. Faster, a slide
// would still be travelling long after the thread ran, blocked and moved on, and
// the donation IPI's trail already shows the move.
func (tc *timeControl) slides() bool { return !tc.speedMax && tc.speedNs <= slideMaxNsPerS }

// Speeds are the speed picker's choices, slowest first.
func Speeds() []Option {
	return []Option{
		{"1us", "1 µs/s · follow each IPI"}, {"5us", "5 µs/s"}, {"20us", "20 µs/s"}, {"100us", "100 µs/s"},
		{"500us", "0.5 ms/s"}, {"2ms", "2 ms/s"}, {"5ms", "5 ms/s"}, {"20ms", "20 ms/s"}, {"50ms", "50 ms/s"},
		{"200ms", "0.2 s/s"}, {"1s", "1 s/s · real time"}, {"max", "max · as fast as the budget allows"},
	}
}

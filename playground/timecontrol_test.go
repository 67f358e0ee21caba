package playground

import "testing"

func TestBudgetLeavesRoomToDraw(t *testing.T) {
	for _, tc := range []struct{ draw, want float64 }{{0, 4}, {1.6, 4}, {3.1, 2.9}, {5.8, 1}, {20, 1}} {
		c := timeControl{budgetMs: 4, drawMs: tc.draw}
		if got := c.budget(); got != tc.want {
			t.Errorf("draw %.1f ms: budget %.1f, want %.1f", tc.draw, got, tc.want)
		}
	}
}

func TestOwe(t *testing.T) {
	tests := []struct {
		desc  string
		speed string
		dts   []float64 // frames in wall ms; what each owes is taken
		want  int64     // total taken
	}{
		{desc: "speed times frame time", speed: "1ms", dts: []float64{16}, want: 16_000},
		{desc: "fractions of a ns carry over", speed: "1us", dts: []float64{0.5, 0.5, 0.5}, want: 1},
		{desc: "a runner that falls behind owes at most a quarter second", speed: "1s", dts: []float64{100, 100, 100, 100}, want: maxLagS * 1e9},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			c := newTimeControl(nil, 4)
			c.setSpeed(tc.speed)
			var owed int64
			for _, dt := range tc.dts {
				owed = c.owe(dt)
			}
			if owed != tc.want {
				t.Errorf("owed %d, want %d", owed, tc.want)
			}
		})
	}
}

func TestFrameDt(t *testing.T) {
	var c timeControl
	for _, tc := range []struct{ now, want float64 }{
		{1000, 0},   // the first frame has no duration
		{1016, 16},  // the next one does
		{5000, 100}, // a stalled tab does not jump
		{4000, 0},   // a clock going back counts as nothing
	} {
		if got := c.frameDt(tc.now); got != tc.want {
			t.Errorf("frame at %.0f ms: dt %.0f, want %.0f", tc.now, got, tc.want)
		}
	}
}

func TestAdaptStep(t *testing.T) {
	for _, tc := range []struct {
		desc   string
		stepNs int64
		busyMs float64
		want   int64
	}{
		{"cheap: double", 1_000_000, targetRequestMs / 8, 2_000_000},
		{"dear: halve", 1_000_000, targetRequestMs * 4, 500_000},
		{"a little dear: scale", 1_000_000, targetRequestMs * 1.25, 800_000},
		{"about right: keep", 1_000_000, targetRequestMs, 1_000_000},
		{"never under the floor", minStepNs, targetRequestMs * 4, minStepNs},
		{"never over the cap", maxStepNs, 0, maxStepNs},
	} {
		if got := adaptStep(tc.stepNs, tc.busyMs, targetRequestMs); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.desc, got, tc.want)
		}
	}
}

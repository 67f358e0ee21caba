package play

import "testing"

func TestBudgetLeavesRoomToDraw(t *testing.T) {
	for _, tc := range []struct{ draw, want float64 }{{0, 4}, {1.6, 4}, {3.1, 2.5}, {5.8, 1}, {20, 1}} {
		c := timeControl{budgetMs: 4, drawMs: tc.draw}
		if got := c.budget(); got != tc.want {
			t.Errorf("draw %.1f ms: budget %.1f, want %.1f", tc.draw, got, tc.want)
		}
	}
}

func TestTarget(t *testing.T) {
	const end = 1_000_000
	tests := []struct {
		desc  string
		speed string
		runTo int64
		now   int64
		dts   []float64 // frames in wall ms, each starting where the last one ended
		want  int64
	}{
		{desc: "speed times frame time", speed: "1ms", dts: []float64{16}, want: 16_000},
		{desc: "fractions of a ns carry over", speed: "1us", now: 100, dts: []float64{0.5, 0.5, 0.5}, want: 101},
		{desc: "a RunTo stops short", speed: "1ms", runTo: 5_000, dts: []float64{16}, want: 5_000},
		{desc: "the horizon stops it", speed: "1s", now: end - 10, dts: []float64{16}, want: end},
		{desc: "max speed aims at the horizon", speed: "max", dts: []float64{16}, want: end},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			c := newTimeControl(nil, 4)
			c.setSpeed(tc.speed)
			if tc.runTo > 0 {
				c.runToNs = tc.runTo
			}
			got := tc.now
			for _, dt := range tc.dts {
				got = c.target(dt, got, end)
			}
			if got != tc.want {
				t.Errorf("target %d, want %d", got, tc.want)
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

func TestAdaptSlice(t *testing.T) {
	for _, tc := range []struct {
		desc      string
		slice     int64
		elapsedMs float64
		want      int64
	}{
		{"fast: double", 20_000, targetSliceMs / 8, 40_000},
		{"slow: halve", 20_000, targetSliceMs * 4, 10_000},
		{"about right: keep", 20_000, targetSliceMs, 20_000},
		{"never under the floor", minSliceNs, targetSliceMs * 4, minSliceNs},
		{"never over the cap", maxSliceNs, 0, maxSliceNs},
	} {
		if got := adaptSlice(tc.slice, tc.elapsedMs); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.desc, got, tc.want)
		}
	}
}

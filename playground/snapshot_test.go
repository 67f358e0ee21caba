package playground_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"schedplay/playground"
	"schedplay/view"
)

// sent names the sections a snapshot carries.
func sent(s playground.Snapshot) []string {
	var out []string
	v := reflect.ValueOf(s)
	for i := range v.NumField() {
		if f := v.Field(i); f.Kind() == reflect.Pointer && !f.IsNil() {
			out = append(out, v.Type().Field(i).Name)
		}
	}
	return out
}

// The page's first read carries every section; a read with the Seq it was
// given carries only the sections that changed since: none while the page is
// paused, however many frames pass, and after an edit exactly those it changed,
// at once.
func TestSnapshotVersions(t *testing.T) {
	m, _ := newModel(t, "#v=1&preset=small")
	all := m.Snapshot(0)
	if n := reflect.TypeFor[playground.Snapshot]().NumField() - 2; len(sent(all)) != n {
		t.Fatalf("the first read carries %v, want all %d sections", sent(all), n)
	}
	vers := reflect.ValueOf(all.Ver)
	for i := range vers.NumField() {
		if v := vers.Field(i).Uint(); v == 0 || v > all.Seq {
			t.Errorf("section %s has version %d with Seq %d", vers.Type().Field(i).Name, v, all.Seq)
		}
	}
	seq := all.Seq
	for i := 1; i <= 120; i++ {
		m.Update(float64(i) * 16) // two seconds paused
		if s := m.Snapshot(seq); len(sent(s)) > 0 || s.Seq != seq {
			t.Fatalf("frame %d, paused: the snapshot carries %v (seq %d -> %d)", i, sent(s), seq, s.Seq)
		}
	}
	tests := []struct {
		desc, key, value string
		want             []string
	}{
		{"speed", "speed", "5ms", []string{"Settings"}},
		{"theme: the palette's CSS", "theme", "light", []string{"Meta", "Settings"}},
		{"a rejected value", "speed", "warp", []string{"Notices"}},
		{"the chart's metric", "chart", "ipis", []string{"Settings", "TimeChart"}},
		{"a knob", "sched.wake_pull", "1", []string{"Settings", "Controls"}},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			m.Set(tc.key, tc.value)
			s := m.Snapshot(seq)
			got := strings.Join(sent(s), " ")
			for _, w := range tc.want {
				if !strings.Contains(" "+got+" ", " "+w+" ") {
					t.Errorf("Set(%s, %s): the snapshot carries %q, want %s", tc.key, tc.value, got, w)
				}
			}
			for _, not := range []string{"Cards", "Hist", "Lesson", "Caption", "Explain"} {
				if strings.Contains(" "+got+" ", " "+not+" ") {
					t.Errorf("Set(%s, %s): the snapshot carries %s, which did not change", tc.key, tc.value, not)
				}
			}
			if s.Seq <= seq {
				t.Errorf("Seq %d after a change, was %d", s.Seq, seq)
			}
			seq = s.Seq
		})
	}
	// Encoded, a read that carries nothing is its versions alone.
	data, err := m.SnapshotJSON(seq)
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]jsontext.Value
	if err := json.Unmarshal(data, &obj); err != nil {
		t.Fatal(err)
	}
	if len(obj) != 2 || obj["seq"] == nil || obj["ver"] == nil {
		t.Errorf("an unchanged read encodes %s", data)
	}
}

// While the run plays, a section is looked at no more often than its rate: the
// clock several times a second, the cards and charts a few times, each time
// only if it changed; and a command is answered at once.
func TestSnapshotRates(t *testing.T) {
	m, c := newModel(t, "#v=1&preset=small&speed=20ms")
	seq := m.Snapshot(0).Seq
	m.Play()
	got := map[string]int{}
	for i := 1; i <= 125; i++ { // two seconds of frames at 16 ms
		c.step = 0.05
		m.Update(float64(i) * 16)
		s := m.Snapshot(seq)
		for _, name := range sent(s) {
			got[name]++
		}
		seq = s.Seq
	}
	for name, limit := range map[string][2]int{"Clock": {10, 21}, "Cards": {4, 9}, "TimeChart": {4, 9}, "Trace": {2, 5}} {
		if n := got[name]; n < limit[0] || n > limit[1] {
			t.Errorf("over two seconds of play, %s was sent %d times, want %d to %d", name, n, limit[0], limit[1])
		}
	}
	t.Logf("sections sent over two seconds of play: %v", got)
	if got["Meta"] > 0 || got["Controls"] > 0 {
		t.Errorf("playing changed the controls: %v", got)
	}
	m.Pause()
	if s := m.Snapshot(seq); s.Clock == nil || s.Clock.Playing {
		t.Errorf("right after Pause the snapshot's clock is %+v, want it paused", s.Clock)
	}
}

// state() keeps every key it had before it was built from the snapshot's
// sections: embedding pages and tests read them.
func TestStateKeys(t *testing.T) {
	m, _ := newModel(t, "#v=1&preset=small")
	data, err := m.StateJSON()
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]jsontext.Value
	if err := json.Unmarshal(data, &obj); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"now_ns", "sim_time", "end_ns", "playing", "done", "fragment", "preset", "compare", "speed", "theme",
		"embed", "chart", "scenario", "metrics", "cpus", "arms", "problems", "message", "refused", "jump", "runner", "pending",
		"tiles", "boxes", "selected", "explain", "perf", "lesson"} {
		if _, ok := obj[k]; !ok {
			t.Errorf("state() lacks %q", k)
		}
	}
}

// A chart carries its geometry: the viewBox, the axis along the plot's bottom,
// a grid line across the plot and a label left of it for each y tick, and a
// label under the plot for each x tick; an empty chart says why in the middle.
func TestChartGeometry(t *testing.T) {
	m, _ := newModel(t, "#v=1&preset=small&speed=max")
	p := view.Plot()
	left, right, bottom := float64(p.X), float64(p.X+p.W), float64(p.Y+p.H)
	empty := m.Snapshot(0).TimeChart
	if empty.Empty == nil || empty.Empty.X != left+float64(p.W)/2 || empty.Empty.Anchor != "middle" || len(empty.Labels) != 0 {
		t.Errorf("an empty chart: %+v", empty)
	}
	m.RunTo(120_000_000)
	for i := 0; m.Playing() && i < 5000; i++ {
		m.Update(float64(i) * 16)
	}
	s := m.Snapshot(0)
	for _, c := range []*playground.Chart{s.TimeChart, s.Hist, s.Sweep} {
		if c.ViewBox != "0 0 320 150" || c.Axis != (playground.Seg{X1: left, Y1: bottom, X2: right, Y2: bottom}) {
			t.Errorf("%s: viewBox %q, axis %+v", c.Title, c.ViewBox, c.Axis)
		}
		if c.Empty != nil || len(c.Grid) != 3 || len(c.Labels) <= len(c.Grid) {
			t.Errorf("%s: empty %+v, %d grid lines, %d labels", c.Title, c.Empty, len(c.Grid), len(c.Labels))
			continue
		}
		for i, g := range c.Grid {
			l := c.Labels[i]
			if g.X1 != left || g.X2 != right || g.Y1 != g.Y2 || l.X >= left || l.Anchor != "end" || l.Y <= g.Y1 || l.Y > g.Y1+5 {
				t.Errorf("%s: y tick %d: line %+v, label %+v", c.Title, i, g, l)
			}
		}
		for _, l := range c.Labels[len(c.Grid):] {
			if l.Y <= bottom || l.Anchor != "middle" || l.X < left || l.X > right {
				t.Errorf("%s: x label %+v is not under the plot", c.Title, l)
			}
		}
	}
}

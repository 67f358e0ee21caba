package playground_test

import (
	"slices"
	"strings"
	"testing"

	"schedplay/playground"
	"schedplay/playground/runner"
)

// The chart picker's choices come from the model (Meta.Charts); each one is
// accepted by Set, reported by the snapshot's settings and State, and titles the
// chart.
func TestChartPicker(t *testing.T) {
	m, _ := newModel(t, "#v=1&preset=small")
	charts := m.Snapshot(0).Meta.Charts
	var values []string
	for _, c := range charts {
		values = append(values, c.Value)
	}
	if want := []string{"throughput", "busy", "ipis", "halts"}; !slices.Equal(values, want) {
		t.Fatalf("chart choices %q, want %q", values, want)
	}
	for _, c := range charts {
		t.Run(c.Value, func(t *testing.T) {
			if msg := m.Set("chart", c.Value); msg != "" {
				t.Fatalf("Set(chart, %s): %s", c.Value, msg)
			}
			u := m.Snapshot(0)
			if u.Settings.Chart != c.Value || m.State().Chart != c.Value {
				t.Errorf("the snapshot reports chart %q, State %q", u.Settings.Chart, m.State().Chart)
			}
			if want := c.Label + " over simulated time"; u.TimeChart.Title != want {
				t.Errorf("title %q, want %q", u.TimeChart.Title, want)
			}
		})
	}
	if msg := m.Set("chart", "latency"); !strings.Contains(msg, `"latency" is not one of throughput, busy, ipis, halts`) {
		t.Errorf("an unknown chart gives %q", msg)
	}
	if got := m.State().Chart; got != "halts" {
		t.Errorf("a rejected chart changed it to %q", got)
	}
	// A finite run completes nothing until its end: it opens on busy vCPUs.
	ps, _ := playground.BuiltinPresets()
	hb := playground.New(playground.Options{Presets: ps, Fragment: "#v=1&preset=hackbench", Runner: runner.NewLocal(func() float64 { return 0 })})
	if got := hb.State().Chart; got != "busy" {
		t.Errorf("hackbench opens on chart %q, want busy", got)
	}
}

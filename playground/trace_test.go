package playground_test

import (
	"reflect"
	"strings"
	"testing"

	"schedplay/playground/runner"
)

// The download's job is the arm's own scenario and the last TraceWindowNs up to
// the moment shown (from zero early in a run), named after the preset and arm.
func TestTraceJob(t *testing.T) {
	m, _ := newModel(t, "#v=1&preset=small&speed=max")
	if u := m.Snapshot(0).Trace; u.Disabled == "" || len(u.Arms) != 2 || u.Arms[0].Disabled == "" {
		t.Errorf("at time zero: %+v, want the download disabled", u)
	}
	if _, _, err := m.TraceJob(0); err == nil {
		t.Error("a trace of nothing was made")
	}
	for _, tc := range []struct {
		atNs     int64
		from     int64
		file     string
		window   string
		armLabel string
	}{
		{4_000_000, 0, "schedplay-small-pull-on-0s-4ms.json", "0.000 000 s to 0.004 000 s", "Trace B · pull on"},
		{60_000_000, 50_000_000, "schedplay-small-pull-on-50ms-60ms.json", "0.050 000 s to 0.060 000 s", "Trace B · pull on"},
	} {
		m.RunTo(tc.atNs)
		for i := 1; m.Playing(); i++ {
			m.Update(float64(i) * 16)
		}
		u := m.Snapshot(0).Trace
		if a := u.Arms[1]; u.Disabled != "" || a.Disabled != "" || a.Label != tc.armLabel || strings.ReplaceAll(a.Window, "\u2009", " ") != tc.window {
			t.Errorf("at %d ns: %+v", tc.atNs, u)
		}
		msg, file, err := m.TraceJob(1)
		if err != nil {
			t.Fatal(err)
		}
		job, err := runner.DecodeTraceJob(msg)
		if err != nil {
			t.Fatal(err)
		}
		if file != tc.file || job.StartNs != tc.from || job.UntilNs != tc.atNs || !reflect.DeepEqual(job.Scenario, m.Arms()[1].Sc) {
			t.Errorf("at %d ns: file %q, window [%d, %d), want %q [%d, %d) of arm B's scenario", tc.atNs, file, job.StartNs, job.UntilNs, tc.file, tc.from, tc.atNs)
		}
	}
	if _, _, err := m.TraceJob(2); err == nil {
		t.Error("a trace of arm C was made")
	}
}

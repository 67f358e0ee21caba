package main

import (
	"strings"
	"testing"
	"testing/fstest"
)

// TestCalibrationRelativePoints: figures a source gives only as a change
// between arms ("throughput improved by 50-70%") are judged as that change and
// never as figures, and pair only with each other, not with an absolute point
// of the same arm and setting.
func TestCalibrationRelativePoints(t *testing.T) {
	a := newTestApp(t, fakeSim)
	a.examples = fstest.MapFS{"rel.json": {Data: []byte(`{"version":1,"name":"rel","duration_ms":200,"warmup_ms":50,"series_interval_ms":50,
		"machine":{"vcpus":4,"platform":"kvm"},"workload":{"kind":"request_server","clients":8},
		"arms":[{"name":"off","set":{"sched.wake_pull":"false"}},{"name":"on","set":{"sched.wake_pull":"true"}}],
		"published":[
			{"arm":"off","set":{"workload.clients":"16"},"values":{"throughput_per_s":1500,"busy_vcpus_mean":2},"source":"figures"},
			{"arm":"off","set":{"workload.clients":"16"},"relative":true,"values":{"throughput_per_s":1},"source":"the unit"},
			{"arm":"on","set":{"workload.clients":"16"},"relative":true,"values":{"throughput_per_s":1.9},"source":"up by 80-100%"}]}`)}}
	cases, err := a.calCases(quickPlan)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.runCalibration(cases, 1); err != nil {
		t.Fatal(err)
	}
	doc := string(renderCalibration(cases, quickPlan, "0123"))
	for _, want := range []string{
		// fakeSim doubles throughput with pull on: 2.00x against a published 1.90x.
		"| rel | workload.clients=16 | throughput_per_s | on / off | 1.90x | 2.00x | 2.00x | ✓ robust hit (up) |",
		"| rel | off, workload.clients=16 | busy_vcpus_mean | 2 |",
		"| rel | off, workload.clients=16 | throughput_per_s | 1500 |",
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("document lacks %q", want)
		}
	}
	for _, line := range strings.Split(doc, "\n") {
		if strings.Contains(line, "| throughput_per_s | 1 |") || strings.Contains(line, "| throughput_per_s | 1.9 |") ||
			strings.Contains(line, "| throughput_per_s | on / off | 0.00x") {
			t.Errorf("a relative value is judged as a figure: %s", line)
		}
	}
	table := verdictTable(cases, "0123", nil)
	var changes int
	for _, p := range table.Points {
		for _, f := range p.Figures {
			if f.Metric == "throughput_per_s" && p.ID != "rel.json#0" {
				t.Errorf("point %s has a throughput figure from a relative value", p.ID)
			}
		}
		for _, c := range p.Changes {
			changes++
			// The off arm's absolute and relative points are one run, so one
			// point of the table (the first's ID); the change is the relative
			// points' 1.9, not a ratio to the absolute 1500.
			if c.Against != "rel.json#0" || c.Published != 1.9 {
				t.Errorf("point %s: change against %s published %v, want against the off run rel.json#0, 1.9", p.ID, c.Against, c.Published)
			}
		}
	}
	if len(table.Points) != 2 {
		t.Errorf("%d points in the verdict table, want 2: the off run (absolute and relative points) and the on run", len(table.Points))
	}
	if changes != 1 {
		t.Errorf("%d changes in the verdict table, want the one between the relative points", changes)
	}
}

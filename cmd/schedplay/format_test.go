package main

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/go-json-experiment/json"

	"schedplay/engine"
)

// fixedResults is a hand-made Results with every field distinct, so the golden
// files show each metric in its place and with its precision.
func fixedResults() engine.Results {
	r := engine.Results{
		ThroughputPerS:          22722.4567,
		Completed:               34083,
		LatencyUs:               engine.LatencySummary{P50: 812.25, P99: 2900.5, P999: 8123.75, Mean: 1003.125},
		WakeToRunUs:             engine.WakeSummary{Mean: 12.5, P99: 137.25},
		RunnableWaitUs:          engine.WaitSummary{P50: 3.5, P99: 150.25, Max: 20001.5},
		TaskFairness:            0.9875,
		BusyVCPUsMean:           27.3456,
		BusyVCPUsHostMean:       29.125,
		IdleWhileOverloadedFrac: 0.0123,
		IPIsPerS:                engine.IPIRates{Total: 45000.5, Wakeup: 40000.25, Pull: 3000.125, Donate: 2000.125},
		SuppressedIPIsPerS:      1234.5,
		HaltExitsPerS:           11039,
		SpinCPUFrac:             0.25,
		HostCPUFrac:             0.875,
		MigrationsPerS:          2500.75,
		SpinWindowMean:          4096.5,
		SimSeconds:              1.5,
		Events:                  9876543,
	}
	for i, tp := range []float64{20000, 22000, 23000, 5000, 2000, 2100, 21000, 22722, 0, 23500, 23000, 22000} {
		r.Series = append(r.Series, engine.SeriesPoint{
			StartMs: 500 + 100*float64(i), ThroughputPerS: tp, BusyVCPUs: tp / 800,
			IdleOverloadFrac: math.Max(0, 0.5-tp/50000),
		})
	}
	return r
}

func fixedScenario(t *testing.T) engine.Scenario {
	t.Helper()
	sc, err := engine.DecodeScenario([]byte(`{"version":1,"name":"fixed","workload":{"clients":64}}`))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestRunFormats pins the three output layouts with golden files.
func TestRunFormats(t *testing.T) {
	for _, format := range []string{"table", "csv", "json"} {
		t.Run(format, func(t *testing.T) {
			var b bytes.Buffer
			if err := writeRun(&b, format, fixedScenario(t), fixedResults()); err != nil {
				t.Fatal(err)
			}
			golden(t, "run_"+format+".golden", b.Bytes())
		})
	}
}

// TestRunJSONRoundTrip: the json format is the Results JSON, losslessly.
func TestRunJSONRoundTrip(t *testing.T) {
	var b bytes.Buffer
	want := fixedResults()
	if err := writeRun(&b, "json", fixedScenario(t), want); err != nil {
		t.Fatal(err)
	}
	var got engine.Results
	if err := json.Unmarshal(b.Bytes(), &got, json.RejectUnknownMembers(true)); err != nil {
		t.Fatal(err)
	}
	if !equalResults(got, want) {
		t.Errorf("round trip changed the results:\n got %+v\nwant %+v", got, want)
	}
}

func equalResults(a, b engine.Results) bool {
	x, _ := json.Marshal(a, json.Deterministic(true))
	y, _ := json.Marshal(b, json.Deterministic(true))
	return bytes.Equal(x, y)
}

// TestCSVShape: one header row and one value row with the same number of cells,
// and the header names are the dotted metric names.
func TestCSVShape(t *testing.T) {
	var b bytes.Buffer
	if err := writeRun(&b, "csv", fixedScenario(t), fixedResults()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2", len(lines))
	}
	head, vals := strings.Split(lines[0], ","), strings.Split(lines[1], ",")
	if len(head) != len(vals) {
		t.Fatalf("%d headers, %d values", len(head), len(vals))
	}
	for i, want := range map[int]string{0: "throughput_per_s", 1: "completed", 3: "latency_us.p99"} {
		if head[i] != want {
			t.Errorf("header %d = %q, want %q", i, head[i], want)
		}
	}
	if vals[0] != "22722.4567" || vals[1] != "34083" {
		t.Errorf("values start %q %q, want exact 22722.4567 34083", vals[0], vals[1])
	}
}

func TestMetricValue(t *testing.T) {
	r := fixedResults()
	for _, tc := range []struct {
		name string
		want float64
		ok   bool
	}{
		{"throughput_per_s", 22722.4567, true},
		{"latency_us.p99", 2900.5, true},
		{"ipis_per_s.donate", 2000.125, true},
		{"events", 9876543, true},
		{"series", 0, false},
		{"latency_us", 0, false},
		{"nope", 0, false},
	} {
		got, ok := metricValue(r, tc.name)
		if got != tc.want || ok != tc.ok {
			t.Errorf("metricValue(%q) = %v, %v; want %v, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

func TestSparkline(t *testing.T) {
	for _, tc := range []struct {
		vals     []float64
		group    int
		want     string
		min, max float64
	}{
		{[]float64{0, 1, 2, 3, 4, 5, 6, 7}, 1, "▁▂▃▄▅▆▇█", 0, 7},
		{[]float64{0, 0, 0}, 1, "▁▁▁", 0, 0},
		{[]float64{10, 10, 1}, 1, "██▂", 1, 10},
		{[]float64{0, 2, 4, 4, 7}, 2, "▂▅█", 1, 7}, // averaged in pairs: 1, 4, 7
	} {
		got, lo, hi := sparkline(tc.vals, tc.group)
		if got != tc.want || lo != tc.min || hi != tc.max {
			t.Errorf("sparkline(%v, %d) = %q %v %v, want %q %v %v", tc.vals, tc.group, got, lo, hi, tc.want, tc.min, tc.max)
		}
	}
}

// TestLongSeriesIsBounded: a long run's sparkline stays within maxSparkWidth columns.
func TestLongSeriesIsBounded(t *testing.T) {
	r := fixedResults()
	r.Series = nil
	for i := range 1000 {
		r.Series = append(r.Series, engine.SeriesPoint{StartMs: float64(i) * 10, ThroughputPerS: float64(i % 7)})
	}
	var b bytes.Buffer
	if err := writeRun(&b, "table", fixedScenario(t), r); err != nil {
		t.Fatal(err)
	}
	_, series, ok := strings.Cut(b.String(), "\nover time:")
	if !ok {
		t.Fatalf("no series section in:\n%s", b.String())
	}
	if !strings.Contains(series, "1000 buckets of 10 ms from 0 ms, 17 buckets per column") {
		t.Errorf("series heading does not say how buckets were merged:\n%s", series)
	}
	for _, line := range strings.Split(series, "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "throughput_per_s" {
			if n := utf8.RuneCountInString(f[1]); n > maxSparkWidth || n < maxSparkWidth/2 {
				t.Errorf("sparkline has %d columns, want at most %d (and not far fewer)", n, maxSparkWidth)
			}
			return
		}
	}
	t.Errorf("no throughput sparkline in:\n%s", series)
}

func TestNum(t *testing.T) {
	for _, tc := range []struct {
		v     float64
		isInt bool
		want  string
	}{
		{0, false, "0"}, {34083, true, "34083"}, {22722.4567, false, "22722.5"},
		{27.3456, false, "27.35"}, {0.0123, false, "0.0123"}, {math.NaN(), false, "n/a"},
	} {
		if got := num(tc.v, tc.isInt); got != tc.want {
			t.Errorf("num(%v, %v) = %q, want %q", tc.v, tc.isInt, got, tc.want)
		}
	}
}

// withRowLocks is fixedResults with pgbench's row-lock waits, as a run with
// workload.tpcb_scale reports them.
func withRowLocks() engine.Results {
	r := fixedResults()
	r.RowLocks = engine.RowLockResults{TPCBScale: 100, WaitedTxnFrac: 0.375, WaitsPerS: 8847.25, WaitMeanUs: 1180.5, HoldMeanUs: 1735.25}
	return r
}

// TestRunFormatsRowLocks pins where the row-lock waits go in each layout (after
// the scheduler's metrics, with their units), with golden files; a run without
// row locks shows none of them (TestRunFormats' files).
func TestRunFormatsRowLocks(t *testing.T) {
	for _, format := range []string{"table", "csv", "json"} {
		t.Run(format, func(t *testing.T) {
			var b bytes.Buffer
			if err := writeRun(&b, format, fixedScenario(t), withRowLocks()); err != nil {
				t.Fatal(err)
			}
			golden(t, "run_rowlocks_"+format+".golden", b.Bytes())
		})
	}
}

// TestRowLockMetrics: the row-lock waits are metrics by their dotted names, with
// units, when the run has them, and absent (not zero) when it has none.
func TestRowLockMetrics(t *testing.T) {
	for _, tc := range []struct {
		desc string
		r    engine.Results
		name string
		want float64
		ok   bool
		unit string
	}{
		{"share of transactions that waited", withRowLocks(), "row_locks.waited_txn_frac", 0.375, true, "fraction"},
		{"waits per second", withRowLocks(), "row_locks.waits_per_s", 8847.25, true, "/s"},
		{"mean wait", withRowLocks(), "row_locks.wait_mean_us", 1180.5, true, "µs"},
		{"mean hold", withRowLocks(), "row_locks.hold_mean_us", 1735.25, true, "µs"},
		{"no row locks: absent", fixedResults(), "row_locks.waits_per_s", 0, false, "/s"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			got, ok := metricValue(tc.r, tc.name)
			if got != tc.want || ok != tc.ok {
				t.Errorf("metricValue(%q) = %v, %v; want %v, %v", tc.name, got, ok, tc.want, tc.ok)
			}
			if u := unit(tc.name); u != tc.unit {
				t.Errorf("unit(%q) = %q, want %q", tc.name, u, tc.unit)
			}
		})
	}
}

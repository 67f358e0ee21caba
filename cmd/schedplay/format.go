package main

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"schedplay/engine"
)

// metric is one scalar of engine.Results, named by its dotted JSON path
// ("latency_us.p99"), the same name published points and the calibration use.
type metric struct {
	name  string
	value float64
	isInt bool
}

// metrics flattens r's scalar fields in declaration order. It walks the struct by
// reflection so that a metric the engine adds later (elapsed_s, ...) shows up in
// every output format without touching the CLI. Lists (the series) are skipped,
// and so is a group of metrics the run does not have (a zero struct tagged
// omitzero: row_locks without row locks), as its JSON leaves it out.
func metrics(r engine.Results) []metric {
	var out []metric
	var walk func(v reflect.Value, prefix string)
	walk = func(v reflect.Value, prefix string) {
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || name == "-" || prefix == "" && name == "trace" {
				// A replayed trace's figures are per thread and process:
				// writeTraceTable prints them, the JSON has them all.
				continue
			}
			if name == "" {
				name = f.Name
			}
			fv := v.Field(i)
			if fv.Kind() == reflect.Struct && fv.IsZero() && slices.Contains(strings.Split(opts, ","), "omitzero") {
				continue
			}
			switch fv.Kind() {
			case reflect.Struct:
				walk(fv, prefix+name+".")
			case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
				out = append(out, metric{prefix + name, float64(fv.Int()), true})
			case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
				out = append(out, metric{prefix + name, float64(fv.Uint()), true})
			case reflect.Float32, reflect.Float64:
				out = append(out, metric{prefix + name, fv.Float(), false})
			}
		}
	}
	walk(reflect.ValueOf(r), "")
	return out
}

// metricValue looks a metric up by its dotted name.
func metricValue(r engine.Results, name string) (float64, bool) {
	for _, m := range metrics(r) {
		if m.name == name {
			return m.value, true
		}
	}
	return 0, false
}

// unit derives a metric's unit from the naming convention the engine follows
// (the unit is in the name), so new metrics get one too.
func unit(name string) string {
	switch {
	case strings.HasSuffix(name, "_per_s") || strings.HasPrefix(name, "ipis_per_s.") || strings.Contains(name, "_per_s_by_level.") || strings.HasSuffix(name, ".rps"):
		return "/s"
	case strings.HasSuffix(name, ".samples"):
		return ""
	case strings.Contains(name, "_us.") || strings.HasSuffix(name, "_us"):
		return "µs" // latency_us.p99, wake_to_run_us.mean, runnable_wait_us.max
	case name == "task_fairness":
		return "Jain index" // 1 = every worker got the same CPU time
	case strings.HasSuffix(name, "_ms"):
		return "ms"
	case strings.HasSuffix(name, "_seconds") || strings.HasSuffix(name, "_s"):
		return "s"
	case strings.HasSuffix(name, "_frac"):
		return "fraction"
	case strings.Contains(name, "vcpus"):
		return "vCPUs"
	case strings.HasPrefix(name, "spin_window"):
		return "iterations"
	}
	return ""
}

// num formats a number for a human table: integers as such, otherwise with enough
// decimals to show a small fraction and no noise on a large rate.
func num(v float64, isInt bool) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "n/a"
	case isInt:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v == 0:
		return "0"
	case math.Abs(v) >= 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case math.Abs(v) >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'f', 4, 64)
}

// exact formats a number for machine output (CSV): shortest exact representation.
func exact(v float64, isInt bool) string {
	if isInt {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// writeJSON writes v as indented, deterministic JSON and a final newline.
func writeJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v, json.Deterministic(true), jsontext.WithIndent("  "))
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// writeCSV writes rows and reports the first write error.
func writeCSV(w io.Writer, rows [][]string) error {
	cw := csv.NewWriter(w)
	if err := cw.WriteAll(rows); err != nil {
		return err
	}
	return cw.Error()
}

// scenarioLine summarises what was run in one line, for table output.
func scenarioLine(sc engine.Scenario) string {
	w := sc.Workload
	size := fmt.Sprintf("x%d", w.Clients)
	switch w.Kind {
	case engine.WorkloadHackbench:
		size = fmt.Sprintf("%d tasks", 2*w.Hackbench.Groups*w.Hackbench.FDs)
	case engine.WorkloadSyncPairs:
		size = fmt.Sprintf("%d spinners + %d pairs", w.SyncPairs.Spinners, w.SyncPairs.Pairs)
	case engine.WorkloadTrace:
		size = fmt.Sprintf("%d threads", len(w.Trace.Threads))
	case engine.WorkloadSchbench:
		sb := w.Schbench
		size = fmt.Sprintf("-m %d -t %d -n %d -F %d -s %d", sb.MessageThreads, sb.Workers, sb.Operations, sb.FootprintKB, sb.SleepUs)
		if sb.RPS > 0 {
			size += fmt.Sprintf(" -R %d", sb.RPS)
		}
		if sb.PinMessage {
			size += " -M auto"
		}
	}
	return fmt.Sprintf("%s: %d vCPUs %s, %s, %s %s, seed %d, measured %d-%d ms",
		sc.Name, sc.Machine.VCPUs, sc.Machine.Platform, sc.Sched.Policy, w.Kind, size,
		sc.Seed, sc.WarmupMs, sc.DurationMs)
}

// writeRunTable prints the metrics of one run as an aligned table, then the series
// as sparklines so a collapse over time is visible, not only the average.
func writeRunTable(w io.Writer, sc engine.Scenario, r engine.Results) error {
	var b strings.Builder
	b.WriteString(scenarioLine(sc))
	b.WriteString("\n\n")
	t := table{align: "lrl"}
	t.add("metric", "value", "unit")
	for _, m := range metrics(r) {
		t.add(m.name, num(m.value, m.isInt), unit(m.name))
	}
	t.write(&b)
	writeScxExit(&b, r.ScxExit)
	writeScxWaiting(&b, r.ScxWaiting, int64(math.Round(r.SimSeconds*1e9)))
	writeRTAppTable(&b, r.RTApp)
	writeTaskGroups(&b, r.TaskGroups)
	writeSchbench(&b, r.Schbench)
	writeTraceTable(&b, r.Trace)
	if len(r.Series) > 0 {
		writeSeries(&b, r.Series)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// maxSparkWidth bounds a sparkline; longer series are averaged into this many columns.
const maxSparkWidth = 60

// writeSeries prints throughput, busy vCPUs and idle-while-overloaded over time.
func writeSeries(b *strings.Builder, s []engine.SeriesPoint) {
	width := 0.0
	if len(s) > 1 {
		width = s[1].StartMs - s[0].StartMs
	}
	group := (len(s) + maxSparkWidth - 1) / maxSparkWidth
	fmt.Fprintf(b, "\nover time: %d buckets of %s ms from %s ms", len(s), exact(width, false), exact(s[0].StartMs, false))
	if group > 1 {
		fmt.Fprintf(b, ", %d buckets per column", group)
	}
	b.WriteString(" (each line scaled 0..max)\n")
	t := table{align: "lll"}
	for _, row := range []struct {
		name string
		get  func(engine.SeriesPoint) float64
	}{
		{"throughput_per_s", func(p engine.SeriesPoint) float64 { return p.ThroughputPerS }},
		{"busy_vcpus", func(p engine.SeriesPoint) float64 { return p.BusyVCPUs }},
		{"idle_while_overloaded_frac", func(p engine.SeriesPoint) float64 { return p.IdleOverloadFrac }},
	} {
		vals := make([]float64, len(s))
		for i, p := range s {
			vals[i] = row.get(p)
		}
		line, lo, hi := sparkline(vals, group)
		t.add(row.name, line, "min "+num(lo, false)+"  max "+num(hi, false))
	}
	t.write(b)
}

// sparkLevels are the eight block heights of a sparkline, lowest first.
const sparkLevels = "▁▂▃▄▅▆▇█"

// sparkline draws vals (averaged in groups of group) scaled from 0 to the maximum,
// so that a drop to near zero looks like one. It returns the line and the min and
// max of the (grouped) values.
func sparkline(vals []float64, group int) (string, float64, float64) {
	if group < 1 {
		group = 1
	}
	var cols []float64
	for i := 0; i < len(vals); i += group {
		end := min(i+group, len(vals))
		sum := 0.0
		for _, v := range vals[i:end] {
			sum += v
		}
		cols = append(cols, sum/float64(end-i))
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range cols {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	levels := []rune(sparkLevels)
	var b strings.Builder
	for _, v := range cols {
		level := 0
		if hi > 0 && v > 0 {
			level = int(math.Round(v / hi * float64(len(levels)-1)))
		}
		b.WriteRune(levels[max(0, min(level, len(levels)-1))])
	}
	return b.String(), lo, hi
}

// table renders rows as aligned columns. align has one byte per column, 'l' or
// 'r' (missing means 'l'); cells may hold multi-byte runes.
type table struct {
	align string
	rows  [][]string
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

// widths returns each column's width in runes.
func (t *table) widths() []int {
	var w []int
	for _, r := range t.rows {
		for i, c := range r {
			if i >= len(w) {
				w = append(w, 0)
			}
			w[i] = max(w[i], utf8.RuneCountInString(c))
		}
	}
	return w
}

const colGap = "  "

func (t *table) write(b *strings.Builder) {
	w := t.widths()
	for _, r := range t.rows {
		var line strings.Builder
		for i, c := range r {
			if i > 0 {
				line.WriteString(colGap)
			}
			pad := strings.Repeat(" ", w[i]-utf8.RuneCountInString(c))
			if i < len(t.align) && t.align[i] == 'r' {
				line.WriteString(pad + c)
			} else {
				line.WriteString(c + pad)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
		b.WriteByte('\n')
	}
}

// firstDiffLine is the 1-based line on which a and b first differ.
func firstDiffLine(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	return bytes.Count(a[:i], []byte("\n")) + 1
}

// writeSchbench prints schbench's own tables, as schbench prints them: the
// wakeup and request latency percentiles (µs) and the requests per second.
func writeSchbench(b *strings.Builder, r engine.SchbenchResults) {
	if r.Workers == 0 {
		return
	}
	fmt.Fprintf(b, "\nschbench: %d message threads, %d workers\n", r.MessageThreads, r.Workers)
	for _, l := range []struct {
		name string
		p    engine.Percentiles
	}{{"Wakeup Latencies", r.WakeupUs}, {"Request Latencies", r.RequestUs}} {
		fmt.Fprintf(b, "%s percentiles (usec) (%d total samples)\n", l.name, l.p.N)
		for _, q := range []struct {
			label string
			v     float64
		}{{"50.0th", l.p.P50}, {"90.0th", l.p.P90}, {"* 99.0th", l.p.P99}, {"99.9th", l.p.P999}} {
			fmt.Fprintf(b, "\t%8s: %s\n", q.label, num(q.v, false))
		}
		fmt.Fprintf(b, "\t     max=%s\n", num(l.p.Max, false))
	}
	fmt.Fprintf(b, "average rps: %s\n", num(r.RPS, false))
}

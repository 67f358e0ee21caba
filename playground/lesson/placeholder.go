package lesson

// Placeholders: the numbers of a caption, written as names in braces and filled
// from the live run once the step is reached. The grammar:
//
//	{[arm.X.]M}             the engine's result M over the measured window, for arm X
//	                        (A, the default, or B): throughput_per_s, latency_us.p99,
//	                        busy_vcpus_host_mean, elapsed_s, ... (engine.Results' names)
//	{[arm.X.]recent.S}      the last complete interval of the series: S is one of
//	                        throughput_per_s, busy_vcpus, busy_vcpus_host, ipis_per_s,
//	                        halt_exits_per_s, idle_while_overloaded_frac
//	{[arm.X.]published.M}   the published figure of M for the arm's settings, if the
//	                        scenario has one (examples' "published")
//	{ratio.M}               A's M divided by B's ("7.7x")
//	{[arm.X.]cpu.N.queue}   threads waiting on vCPU N (its runqueue and incoming wakes)
//	{[arm.X.]cpu.N.spin_window}  vCPU N's idle spin window, in iterations
//	{[arm.X.]shared_queue}  threads in the policy's shared queue (scx_simple)
//	{[arm.X.]running}       vCPUs running a thread at the moment shown
//	{[arm.X.]knob.PATH}     the arm's setting of a knob, with its unit ("100 000
//	                        iterations", "64"): settings come from the scenario too
//	{now}                   the simulated time shown

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"schedplay/engine"
)

// Source says where a placeholder's value comes from.
type Source uint8

const (
	SourceResults Source = iota
	SourceRecent
	SourcePublished
	SourceRatio
	SourceCPUQueue
	SourceCPUSpinWindow
	SourceSharedQueue
	SourceRunning
	SourceKnob
	SourceNow
)

// Placeholder is one {…} of a caption.
type Placeholder struct {
	// Raw is the text between the braces.
	Raw    string
	Source Source
	// Arm is 0 for A, 1 for B (unused by SourceRatio and SourceNow).
	Arm int
	// Metric is a result path (SourceResults, SourcePublished, SourceRatio), a
	// series field (SourceRecent) or a knob path (SourceKnob).
	Metric string
	// CPU is the vCPU of SourceCPUQueue and SourceCPUSpinWindow.
	CPU int
}

// maxPlaceholders bounds the numbers in one caption.
const maxPlaceholders = 12

// parseCaption finds and checks every placeholder of a caption, in order.
func parseCaption(c string) ([]Placeholder, error) {
	var out []Placeholder
	for rest := c; ; {
		i := strings.IndexAny(rest, "{}")
		if i < 0 {
			return out, nil
		}
		if rest[i] == '}' {
			return nil, fmt.Errorf("a } without its {")
		}
		j := strings.IndexAny(rest[i+1:], "{}")
		if j < 0 || rest[i+1+j] == '{' {
			return nil, fmt.Errorf("a { without its }")
		}
		p, err := ParsePlaceholder(rest[i+1 : i+1+j])
		if err != nil {
			return nil, err
		}
		if out = append(out, p); len(out) > maxPlaceholders {
			return nil, fmt.Errorf("more than %d placeholders", maxPlaceholders)
		}
		rest = rest[i+1+j+1:]
	}
}

// ParsePlaceholder reads the text between a placeholder's braces.
func ParsePlaceholder(raw string) (Placeholder, error) {
	p := Placeholder{Raw: raw}
	bad := func(why string) (Placeholder, error) {
		return Placeholder{}, fmt.Errorf("{%s}: %s", quoteless(raw), why)
	}
	name := raw
	if rest, ok := strings.CutPrefix(name, "arm."); ok {
		arm, tail, _ := strings.Cut(rest, ".")
		switch arm {
		case "A":
		case "B":
			p.Arm = 1
		default:
			return bad("the arm is A or B")
		}
		if name = tail; name == "now" || strings.HasPrefix(name, "ratio.") {
			return bad("now and ratio take no arm")
		}
	}
	head, tail, _ := strings.Cut(name, ".")
	switch head {
	case "now":
		if tail != "" || name != "now" {
			return bad("now has no fields")
		}
		p.Source = SourceNow
	case "shared_queue", "running":
		p.Source = SourceSharedQueue
		if head == "running" {
			p.Source = SourceRunning
		}
		if name != head {
			return bad(head + " has no fields")
		}
	case "knob":
		p.Source, p.Metric = SourceKnob, tail
		if _, ok := engine.LookupKnob(tail); !ok {
			return bad("knob. takes a knob path (see schedplay knobs)")
		}
	case "recent":
		p.Source, p.Metric = SourceRecent, tail
		if !slices.Contains(SeriesFields(), tail) {
			return bad("recent. takes one of " + strings.Join(SeriesFields(), ", "))
		}
	case "published", "ratio":
		p.Source, p.Metric = SourcePublished, tail
		if head == "ratio" {
			p.Source = SourceRatio
		}
		if !slices.Contains(ResultPaths(), tail) {
			return bad("not a result of the engine (see schedplay run --format json)")
		}
	case "cpu":
		n, field, _ := strings.Cut(tail, ".")
		cpu, err := strconv.Atoi(n)
		if err != nil || cpu < 0 || cpu >= engine.MaxVCPUs || strconv.Itoa(cpu) != n {
			return bad("cpu.N. takes a vCPU number")
		}
		p.CPU = cpu
		switch field {
		case "queue":
			p.Source = SourceCPUQueue
		case "spin_window":
			p.Source = SourceCPUSpinWindow
		default:
			return bad("cpu.N. takes queue or spin_window")
		}
	default:
		p.Source, p.Metric = SourceResults, name
		if !slices.Contains(ResultPaths(), name) {
			return bad("not a placeholder: see the list in the format's documentation")
		}
	}
	return p, nil
}

// quoteless shortens raw for a message without adding quotes (it sits in braces).
func quoteless(raw string) string { return shorten(raw, 40) }

// ResultPaths lists the numeric results of engine.Results by their JSON names
// ("latency_us.p99"), the names placeholders and published figures use.
func ResultPaths() []string { return numericPaths(reflect.TypeFor[engine.Results](), "") }

// SeriesFields lists the numeric fields of a series interval (engine.SeriesPoint)
// but its start.
func SeriesFields() []string {
	return slices.DeleteFunc(numericPaths(reflect.TypeFor[engine.SeriesPoint](), ""), func(s string) bool { return s == "start_ms" })
}

func numericPaths(t reflect.Type, prefix string) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch f.Type.Kind() {
		case reflect.Struct:
			out = append(out, numericPaths(f.Type, prefix+tag+".")...)
		case reflect.Float64, reflect.Int64:
			out = append(out, prefix+tag)
		}
	}
	return out
}

// Value reads a numeric field of v (an engine.Results or engine.SeriesPoint) by
// the path ResultPaths or SeriesFields names.
func Value(v any, path string) (float64, bool) {
	rv := reflect.ValueOf(v)
	for part := range strings.SplitSeq(path, ".") {
		if rv.Kind() != reflect.Struct {
			return 0, false
		}
		i := slices.IndexFunc(reflect.VisibleFields(rv.Type()), func(f reflect.StructField) bool {
			tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			return tag == part
		})
		if i < 0 {
			return 0, false
		}
		rv = rv.Field(i)
	}
	switch rv.Kind() {
	case reflect.Float64:
		return rv.Float(), true
	case reflect.Int64:
		return float64(rv.Int()), true
	}
	return 0, false
}

// Segment is a piece of a filled caption: text, or a value (drawn emphasised).
type Segment struct {
	Text  string `json:"text"`
	Value bool   `json:"value,omitzero"`
}

// Unfilled stands for a value not known yet (the step is still running).
const Unfilled = "…"

// Fill splits a caption into text and values, asking value for each placeholder
// in order; a placeholder it cannot fill shows as Unfilled. It reports whether
// every placeholder was filled.
func Fill(caption string, ps []Placeholder, value func(Placeholder) (string, bool)) ([]Segment, bool) {
	var out []Segment
	all := true
	rest := caption
	for _, p := range ps {
		i := strings.Index(rest, "{"+p.Raw+"}")
		if i < 0 {
			break // ps was parsed from another caption: a programming error, shown as text
		}
		if i > 0 {
			out = append(out, Segment{Text: rest[:i]})
		}
		v, ok := value(p)
		if !ok {
			v, all = Unfilled, false
		}
		out = append(out, Segment{Text: v, Value: true})
		rest = rest[i+len(p.Raw)+2:]
	}
	if rest != "" {
		out = append(out, Segment{Text: rest})
	}
	return out, all
}

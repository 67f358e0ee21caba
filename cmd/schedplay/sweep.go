package main

import (
	"fmt"
	"io"
	"maps"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"schedplay/engine"
)

// arm is one side of a comparison: a name and knob overrides ("path=value", in a
// fixed order so that runs and output are reproducible).
type arm struct {
	Name string   `json:"name"`
	Set  []string `json:"set"`
}

// sweepRow is one vary value: one result per arm, in arm order.
type sweepRow struct {
	Value   string           `json:"value"`
	Results []engine.Results `json:"results"`
	// ThroughputRatio is the second arm's throughput over the first's, present
	// when there are exactly two arms and the first has non-zero throughput.
	ThroughputRatio *float64 `json:"throughput_ratio,omitzero"`
}

// sweep is the whole sweep, also its JSON form.
type sweep struct {
	Scenario string     `json:"scenario"`
	Vary     string     `json:"vary"`
	Set      []string   `json:"set,omitzero"`
	Arms     []arm      `json:"arms"`
	Rows     []sweepRow `json:"rows"`
	// base is the scenario before vary and arm overrides, for the table heading.
	base engine.Scenario
}

// cmdSweep: schedplay sweep FILE --vary path=v1,v2,... [--arms path=a,b] [--set ...]
// [--format ...] [--jobs N]
func (a *app) cmdSweep(args []string) error {
	fs := a.newFlagSet("sweep", "FILE --vary path=v1,v2,... [--arms path=a,b] [--set path=value ...] [--format table|json|csv] [--jobs N]")
	var sets stringList
	format := formatFlag("table")
	vary := fs.String("vary", "", "the knob to sweep and its values, `path=v1,v2,...` (one row each)")
	arms := fs.String("arms", "", "compare arms `path=a,b` (default: the scenario's own arms)")
	fs.Var(&sets, "set", "override a knob in every run, `path=value` (repeatable)")
	fs.Var(&format, "format", "output `format`: table, json or csv")
	jobs := fs.Int("jobs", runtime.NumCPU(), "run up to `N` simulations in parallel")
	pos, err := parse(fs, args, a)
	if err != nil {
		return err
	}
	if err := wantArgs(fs, pos, "FILE"); err != nil {
		return err
	}
	if *vary == "" {
		return &usageError{fs, fmt.Errorf("sweep: --vary path=v1,v2,... is required")}
	}
	if *jobs < 1 {
		return &usageError{fs, fmt.Errorf("sweep: --jobs %d: need at least 1", *jobs)}
	}
	varyPath, values, err := parseList("--vary", *vary)
	if err != nil {
		return err
	}
	src, err := a.load(pos[0])
	if err != nil {
		return err
	}
	base, err := src.decode(sets...)
	if err != nil {
		return err
	}
	compared, where := base, src.label
	if *arms != "" {
		p, vals, err := parseList("--arms", *arms)
		if err != nil {
			return err
		}
		compared.Arms, where = nil, "--arms"
		for _, v := range vals {
			compared.Arms = append(compared.Arms, engine.Arm{Name: shortKnob(p) + "=" + v, Set: map[string]string{p: v}})
		}
	}
	resolved, err := compared.ArmScenarios()
	if err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	armList := sweepArms(resolved)
	s := sweep{Scenario: base.Name, Vary: varyPath, Set: sets, Arms: armList, base: base}
	jobList, err := s.jobs(src, values)
	if err != nil {
		return err
	}
	start := time.Now()
	res, err := a.runAll(jobList, *jobs)
	if err != nil {
		return err
	}
	fmt.Fprintf(a.stderr, "sweep: %d runs (%d values x %d arms) in %.3f s wall with --jobs %d\n",
		len(jobList), len(values), len(armList), time.Since(start).Seconds(), *jobs)
	s.fill(values, res)
	return s.write(a.stdout, string(format))
}

// sweepArms turns the resolved arms into sweep arms; a scenario without arms
// is swept as one arm, "base", with no overrides.
func sweepArms(resolved []engine.ArmScenario) []arm {
	out := make([]arm, len(resolved))
	for i, x := range resolved {
		out[i] = arm{Name: x.Name, Set: x.Sets}
		if x.Name == "" && len(resolved) == 1 {
			out[i].Name = "base"
		}
		if x.Sets == nil {
			out[i].Set = []string{}
		}
	}
	return out
}

// jobs decodes every (value, arm) scenario up front, so a bad value fails before
// anything runs. Overrides apply in the order --set, arm, vary: the arm defines the
// comparison and the vary value is the row. Each run is decoded from the file
// with them all, as run --set decodes it (a platform knob takes that platform's
// default costs); the arms' overrides are those ArmScenarios resolved.
func (s *sweep) jobs(src source, values []string) ([]job, error) {
	for _, x := range s.Arms {
		for _, kv := range x.Set {
			if p, _, _ := strings.Cut(kv, "="); p == s.Vary {
				return nil, fmt.Errorf("--vary %s: arm %q also sets it; sweep a different knob", s.Vary, x.Name)
			}
		}
	}
	var out []job
	for _, v := range values {
		for _, x := range s.Arms {
			sets := append(append(append([]string{}, s.Set...), x.Set...), s.Vary+"="+v)
			sc, err := src.decodeToRun(sets...)
			if err != nil {
				return nil, fmt.Errorf("%s=%s, arm %s: %w", s.Vary, v, x.Name, err)
			}
			out = append(out, job{label: fmt.Sprintf("%s %s=%s arm %s", s.Scenario, s.Vary, v, x.Name), sc: sc})
		}
	}
	return out, nil
}

// fill distributes the results (value-major, arm-minor, as jobs built them) into rows.
func (s *sweep) fill(values []string, res []engine.Results) {
	n := len(s.Arms)
	s.Rows = make([]sweepRow, len(values))
	for i, v := range values {
		row := sweepRow{Value: v, Results: res[i*n : (i+1)*n]}
		if n == 2 {
			if r := ratio(row.Results[1].ThroughputPerS, row.Results[0].ThroughputPerS); !math.IsNaN(r) {
				row.ThroughputRatio = &r
			}
		}
		s.Rows[i] = row
	}
}

// sweepColumns are the metrics of each arm's column group.
var sweepColumns = [...]struct{ metric, head string }{
	{"throughput_per_s", "throughput/s"},
	{"latency_us.p99", "p99 µs"},
	{"busy_vcpus_mean", "busy vCPUs"},
}

func (s *sweep) write(w io.Writer, format string) error {
	switch format {
	case "json":
		return writeJSON(w, s)
	case "csv":
		return writeCSV(w, s.csvRows())
	}
	_, err := io.WriteString(w, s.table())
	return err
}

func (s *sweep) csvRows() [][]string {
	head := []string{s.Vary}
	for _, x := range s.Arms {
		for _, c := range sweepColumns {
			head = append(head, x.Name+"."+c.metric)
		}
	}
	if len(s.Arms) == 2 {
		head = append(head, "throughput_ratio")
	}
	rows := [][]string{head}
	for _, r := range s.Rows {
		row := []string{r.Value}
		for _, res := range r.Results {
			for _, c := range sweepColumns {
				v, _ := metricValue(res, c.metric)
				row = append(row, exact(v, false))
			}
		}
		if len(s.Arms) == 2 {
			row = append(row, ratioCell(r.ThroughputRatio, exact))
		}
		rows = append(rows, row)
	}
	return rows
}

// table renders one row per value and one column group per arm, with a spanning
// arm-name line over each group.
func (s *sweep) table() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: sweep of %s, seed %d, measured %d-%d ms\n", s.Scenario, s.Vary, s.base.Seed, s.base.WarmupMs, s.base.DurationMs)
	if len(s.Set) > 0 {
		fmt.Fprintf(&b, "set: %s\n", strings.Join(s.Set, " "))
	}
	for _, x := range s.Arms {
		fmt.Fprintf(&b, "arm %s: %s\n", x.Name, orNone(strings.Join(x.Set, " ")))
	}
	b.WriteByte('\n')

	two := len(s.Arms) == 2
	// Numeric vary values read best right-aligned like the numbers beside them.
	first := "r"
	for _, r := range s.Rows {
		if _, err := strconv.ParseFloat(r.Value, 64); err != nil {
			first = "l"
		}
	}
	align := first + strings.Repeat("r", len(s.Arms)*len(sweepColumns)+1)
	t := table{align: align}
	head := []string{s.Vary}
	for range s.Arms {
		for _, c := range sweepColumns {
			head = append(head, c.head)
		}
	}
	if two {
		head = append(head, s.Arms[1].Name+"/"+s.Arms[0].Name)
	}
	t.add(head...)
	for _, r := range s.Rows {
		row := []string{r.Value}
		for _, res := range r.Results {
			for _, c := range sweepColumns {
				v, _ := metricValue(res, c.metric)
				row = append(row, num(v, false))
			}
		}
		if two {
			row = append(row, ratioCell(r.ThroughputRatio, func(v float64, _ bool) string {
				return strconv.FormatFloat(v, 'f', 2, 64) + "x"
			}))
		}
		t.add(row...)
	}

	// The group line: each arm's name centred in rules over its columns.
	widths := t.widths()
	var g strings.Builder
	g.WriteString(strings.Repeat(" ", widths[0]))
	for i, x := range s.Arms {
		span := -len(colGap)
		for _, w := range widths[1+i*len(sweepColumns) : 1+(i+1)*len(sweepColumns)] {
			span += w + len(colGap)
		}
		g.WriteString(colGap + centre(x.Name, span))
	}
	b.WriteString(strings.TrimRight(g.String(), " ") + "\n")
	t.write(&b)
	return b.String()
}

// centre puts " label " in the middle of a rule of width runes.
func centre(label string, width int) string {
	label = " " + label + " "
	fill := max(0, width-utf8.RuneCountInString(label))
	return strings.Repeat("─", fill/2) + label + strings.Repeat("─", fill-fill/2)
}

func ratioCell(r *float64, f func(float64, bool) string) string {
	if r == nil {
		return "n/a"
	}
	return f(*r, false)
}

// ratio is b/a, NaN when a is zero (no meaningful change).
func ratio(b, a float64) float64 {
	if a == 0 {
		return math.NaN()
	}
	return b / a
}

func orNone(s string) string {
	if s == "" {
		return "(no overrides)"
	}
	return s
}

// parseList splits "path=v1,v2,..." and checks the path is a knob and every value
// parses as its type, so a typo fails before any run with the path named.
func parseList(flagName, s string) (string, []string, error) {
	path, list, ok := strings.Cut(s, "=")
	if !ok || path == "" || list == "" {
		return "", nil, fmt.Errorf("%s %q: want path=v1,v2,...", flagName, s)
	}
	var vals []string
	for _, v := range strings.Split(list, ",") {
		v = strings.TrimSpace(v)
		if v == "" {
			return "", nil, fmt.Errorf("%s %q: empty value", flagName, s)
		}
		if _, err := engine.KnobValue(path, v); err != nil {
			return "", nil, fmt.Errorf("%s: %w", flagName, err)
		}
		vals = append(vals, v)
	}
	return path, vals, nil
}

// knobList renders a knob map as "path=value" in path order.
func knobList(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, k+"="+m[k])
	}
	return out
}

// shortKnob is a knob path's last element ("sched.wake_pull" -> "wake_pull").
func shortKnob(path string) string {
	return path[strings.LastIndexByte(path, '.')+1:]
}

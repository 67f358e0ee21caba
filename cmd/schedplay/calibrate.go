package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"schedplay/engine"
)

// The hit/miss rule of docs/calibration.md (stated in the document's header too).
// The model is not the measured system, so an absolute figure only has to be of the
// right size; an A/B change is the evidence that the mechanism is modelled, so it
// must go the same way and be of roughly the same size.
const (
	// figureBand: a figure hits when model/published is within [1/figureBand, figureBand].
	figureBand = 1.5
	// washBand: a change (B/A) within [1/washBand, washBand] is a wash; the engine
	// issue calls at-or-below-vCPU-count results within 15% a wash.
	washBand = 1.15
	// changeBand: a change hits when it has the published direction (up, down or
	// wash) and, unless both are washes, model change / published change is within
	// [1/changeBand, changeBand].
	changeBand = 1.5
)

// calPoint is one published point of one case and its model run.
type calPoint struct {
	index int
	pub   engine.Published
	// own is the point's own overrides, sets its arm's plus its own (the point's
	// win), both as sorted "path=value".
	own, sets []string
	res       engine.Results
}

// calCase is one example scenario with published points.
type calCase struct {
	file   string // file name in examples/
	sc     engine.Scenario
	points []*calPoint
}

// cmdCalibrate: schedplay calibrate [--out docs/calibration.md] [--check] [--jobs N]
func (a *app) cmdCalibrate(args []string) error {
	fs := a.newFlagSet("calibrate", "[--out docs/calibration.md] [--check] [--jobs N]")
	out := fs.String("out", "docs/calibration.md", "the markdown `file` to write (- for stdout)")
	check := fs.Bool("check", false, "write nothing; exit 1 if the file differs from what would be generated")
	jobs := fs.Int("jobs", runtime.NumCPU(), "run up to `N` simulations in parallel")
	pos, err := parse(fs, args, a)
	if err != nil {
		return err
	}
	if err := wantArgs(fs, pos); err != nil {
		return err
	}
	if *jobs < 1 {
		return &usageError{fs, fmt.Errorf("calibrate: --jobs %d: need at least 1", *jobs)}
	}
	start := time.Now()
	doc, err := a.calibration(*jobs)
	if err != nil {
		return err
	}
	elapsed := time.Since(start).Seconds()
	switch {
	case *check:
		onDisk, err := os.ReadFile(*out)
		if err != nil {
			return &exitError{1, fmt.Errorf("%s is missing or unreadable (%v): regenerate it with task calibrate", *out, err)}
		}
		if !bytes.Equal(onDisk, doc) {
			return &exitError{1, fmt.Errorf("%s is out of date (first difference on line %d): regenerate it with task calibrate",
				*out, firstDiffLine(onDisk, doc))}
		}
		fmt.Fprintf(a.stderr, "calibrate: %s is up to date (%.3f s)\n", *out, elapsed)
	case *out == "-":
		_, err = a.stdout.Write(doc)
		return err
	default:
		if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(*out, doc, 0o644); err != nil {
			return err
		}
		fmt.Fprintf(a.stderr, "calibrate: wrote %s in %.3f s\n", *out, elapsed)
	}
	return nil
}

// calibration runs every published point of every example and renders the document.
func (a *app) calibration(jobs int) ([]byte, error) {
	cases, err := a.calCases()
	if err != nil {
		return nil, err
	}
	var js []job
	var pts []*calPoint
	for _, c := range cases {
		for _, p := range c.points {
			data, _ := fs.ReadFile(a.examples, c.file) // read once already by calCases
			sc, err := engine.DecodeScenario(data, p.sets...)
			if err != nil {
				return nil, fmt.Errorf("examples/%s: published.%d: %w", c.file, p.index, err)
			}
			js = append(js, job{label: fmt.Sprintf("examples/%s published.%d", c.file, p.index), sc: sc})
			pts = append(pts, p)
		}
	}
	res, err := a.runAll(js, jobs)
	if err != nil {
		return nil, err
	}
	for i, p := range pts {
		p.res = res[i]
	}
	return renderCalibration(cases), nil
}

// calCases reads the examples (in file-name order) that have published points and
// resolves each point's overrides; a point naming an unknown arm or metric is an
// error naming its path, so a typo in a preset cannot silently drop a row.
func (a *app) calCases() ([]*calCase, error) {
	files, err := fs.Glob(a.examples, "*.json")
	if err != nil {
		return nil, err
	}
	slices.Sort(files)
	known := map[string]bool{}
	for _, m := range metrics(engine.Results{}) {
		known[m.name] = true
	}
	var cases []*calCase
	for _, f := range files {
		data, err := fs.ReadFile(a.examples, f)
		if err != nil {
			return nil, err
		}
		sc, err := engine.DecodeScenario(data)
		if err != nil {
			return nil, fmt.Errorf("examples/%s: %w", f, err)
		}
		if len(sc.Published) == 0 {
			continue
		}
		if sc.Name == "" {
			sc.Name = strings.TrimSuffix(f, ".json")
		}
		c := &calCase{file: f, sc: sc}
		for i, p := range sc.Published {
			var armSet map[string]string
			if p.Arm != "" || len(sc.Arms) > 0 {
				k := slices.IndexFunc(sc.Arms, func(x engine.Arm) bool { return x.Name == p.Arm })
				if k < 0 {
					return nil, fmt.Errorf("examples/%s: published.%d.arm: no arm named %q", f, i, p.Arm)
				}
				armSet = sc.Arms[k].Set
			}
			for _, name := range sortedMetricNames(p.Values) {
				if !known[name] {
					return nil, fmt.Errorf("examples/%s: published.%d.values.%s: not a metric of the results", f, i, name)
				}
			}
			merged := map[string]string{}
			for k, v := range armSet {
				merged[k] = v
			}
			for k, v := range p.Set {
				merged[k] = v
			}
			c.points = append(c.points, &calPoint{index: i, pub: p, own: knobList(p.Set), sets: knobList(merged)})
		}
		cases = append(cases, c)
	}
	return cases, nil
}

// sortedMetricNames orders a point's metrics as the results declare them, so rows
// read throughput, latency, ... in every case.
func sortedMetricNames(values map[string]float64) []string {
	var out []string
	for _, m := range metrics(engine.Results{}) {
		if _, ok := values[m.name]; ok {
			out = append(out, m.name)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(values)) {
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// verdict judges a model/published ratio of a figure.
func figureVerdict(r float64) (bool, string) {
	if math.IsNaN(r) || r < 1/figureBand || r > figureBand {
		return false, "✗ miss"
	}
	return true, "✓ hit"
}

// direction classifies a change B/A.
func direction(c float64) string {
	switch {
	case math.IsNaN(c):
		return "n/a"
	case c > washBand:
		return "up"
	case c < 1/washBand:
		return "down"
	}
	return "wash"
}

// changeVerdict judges a modelled change against the published one.
func changeVerdict(pub, model float64) (bool, string) {
	dp, dm := direction(pub), direction(model)
	hit := dp != "n/a" && dp == dm
	if hit && dp != "wash" {
		q := model / pub
		hit = q >= 1/changeBand && q <= changeBand
	}
	mark := "✗ miss"
	if hit {
		mark = "✓ hit"
	}
	return hit, fmt.Sprintf("%s (published %s, model %s)", mark, dp, dm)
}

const calibrationHeader = `<!-- Code generated by ` + "`task calibrate`" + ` (go run ./cmd/schedplay calibrate); DO NOT EDIT. -->

# Calibration: the model against the published measurements

Generated by ` + "`task calibrate`" + ` from the ` + "`published`" + ` points of every scenario in
` + "`examples/`" + `; ` + "`go run ./cmd/schedplay calibrate --check`" + ` fails when this file is stale.
Each point runs its scenario with its arm's knob overrides and then its own; the
command beside it reproduces the run. Published figures come from the sources named
under each case below; model figures come from the engine with the scenario's seed,
over its measured window (after warm-up).

How a row is judged:

- **Figures** compare one metric: ratio = model / published. ✓ hit when the ratio is
  within %s-%s (a factor of %s either way), ✗ miss otherwise. The model is not the
  measured system, so absolute figures only have to be of the right size.
- **A/B changes** compare B / A of one metric at the same point (B is the scenario's
  second arm, A its first): a change within %s-%s (±15%%) is a *wash*, above it *up*,
  below it *down*. ✓ hit when the model's change has the published direction and,
  unless both are washes, model change / published change is within %s-%s.

`

// renderCalibration writes the document. It depends only on the cases and their
// results, never on time or on --jobs, so --check is meaningful.
func renderCalibration(cases []*calCase) []byte {
	var b strings.Builder
	f2 := func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
	fmt.Fprintf(&b, calibrationHeader, f2(1/figureBand), f2(figureBand), strconv.FormatFloat(figureBand, 'f', -1, 64),
		f2(1/washBand), f2(washBand), f2(1/changeBand), f2(changeBand))

	var figs, changes strings.Builder
	nFig, hitFig, nChg, hitChg := 0, 0, 0, 0
	figs.WriteString("| case | point | metric | published | model | model/published | verdict | reproduce |\n")
	figs.WriteString("|---|---|---|--:|--:|--:|---|---|\n")
	changes.WriteString("| case | point | metric | B/A | published change | model change | verdict |\n")
	changes.WriteString("|---|---|---|---|--:|--:|---|\n")
	for _, c := range cases {
		for _, p := range c.points {
			for _, name := range sortedMetricNames(p.pub.Values) {
				pub := p.pub.Values[name]
				model, _ := metricValue(p.res, name)
				r := ratio(model, pub)
				hit, mark := figureVerdict(r)
				nFig++
				if hit {
					hitFig++
				}
				fmt.Fprintf(&figs, "| %s | %s | %s | %s | %s | %s | %s | `%s` |\n", md(c.sc.Name), md(pointLabel(p.pub.Arm, p.own)), name,
					exact(pub, false), num(model, false), ratioText(r), mark, md(reproduce(c.file, p.sets)))
			}
		}
		for _, pr := range abPairs(c) {
			for _, name := range sortedMetricNames(pr.b.pub.Values) {
				pa, okA := pr.a.pub.Values[name]
				pb := pr.b.pub.Values[name]
				if !okA {
					continue
				}
				ma, _ := metricValue(pr.a.res, name)
				mb, _ := metricValue(pr.b.res, name)
				pc, mc := ratio(pb, pa), ratio(mb, ma)
				hit, mark := changeVerdict(pc, mc)
				nChg++
				if hit {
					hitChg++
				}
				fmt.Fprintf(&changes, "| %s | %s | %s | %s | %s | %s | %s |\n", md(c.sc.Name), md(orNone(strings.Join(pr.b.own, " "))), name,
					md(pr.b.pub.Arm+" / "+pr.a.pub.Arm), ratioText(pc), ratioText(mc), mark)
			}
		}
	}
	fmt.Fprintf(&b, "Summary: %d of %d figures and %d of %d A/B changes hit.\n\n", hitFig, nFig, hitChg, nChg)
	b.WriteString("## A/B changes\n\n")
	b.WriteString(changes.String())
	b.WriteString("\n## Figures\n\n")
	b.WriteString(figs.String())
	b.WriteString("\n## Cases\n")
	for _, c := range cases {
		writeCaseDetail(&b, c)
	}
	return []byte(b.String())
}

// writeCaseDetail describes one case: what it models, its window and arms, its
// sources, and each point's throughput over time (a collapse shows there, not in
// an average).
func writeCaseDetail(b *strings.Builder, c *calCase) {
	sc := c.sc
	fmt.Fprintf(b, "\n### %s\n\n", sc.Name)
	if sc.Description != "" {
		fmt.Fprintf(b, "%s\n\n", strings.TrimSpace(sc.Description))
	}
	fmt.Fprintf(b, "- file `examples/%s`: %d vCPUs %s, policy %s, workload %s, seed %d\n",
		c.file, sc.Machine.VCPUs, sc.Machine.Platform, sc.Sched.Policy, sc.Workload.Kind, sc.Seed)
	fmt.Fprintf(b, "- measured %d-%d ms: %s simulated seconds after warm-up\n",
		sc.WarmupMs, sc.DurationMs, strconv.FormatFloat(float64(sc.DurationMs-sc.WarmupMs)/1000, 'f', -1, 64))
	for _, x := range sc.Arms {
		fmt.Fprintf(b, "- arm %s: `%s`\n", md(x.Name), md(orNone(strings.Join(knobList(x.Set), " "))))
	}
	var sources []string
	for _, p := range c.points {
		if p.pub.Source != "" && !slices.Contains(sources, p.pub.Source) {
			sources = append(sources, p.pub.Source)
		}
	}
	if len(sources) > 0 {
		b.WriteString("\nSources:\n\n")
		for _, s := range sources {
			fmt.Fprintf(b, "- %s\n", s)
		}
	}
	b.WriteString("\nModel throughput over time (each line scaled from 0 to its max):\n\n")
	b.WriteString("| point | throughput_per_s over time | min | max |\n|---|---|--:|--:|\n")
	for _, p := range c.points {
		vals := make([]float64, len(p.res.Series))
		for i, s := range p.res.Series {
			vals[i] = s.ThroughputPerS
		}
		line, lo, hi := "(no series)", 0.0, 0.0
		if len(vals) > 0 {
			line, lo, hi = sparkline(vals, (len(vals)+maxSparkWidth-1)/maxSparkWidth)
			line = "`" + line + "`"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", md(pointLabel(p.pub.Arm, p.own)), line, num(lo, false), num(hi, false))
	}
}

// abPair is the same point measured under arm A (the scenario's first) and arm B.
type abPair struct{ a, b *calPoint }

// abPairs matches each point of a non-first arm with the first arm's point that
// has the same own overrides, in published order.
func abPairs(c *calCase) []abPair {
	if len(c.sc.Arms) < 2 {
		return nil
	}
	first := c.sc.Arms[0].Name
	var out []abPair
	for _, pb := range c.points {
		if pb.pub.Arm == first {
			continue
		}
		for _, pa := range c.points {
			if pa.pub.Arm == first && slices.Equal(pa.own, pb.own) {
				out = append(out, abPair{pa, pb})
				break
			}
		}
	}
	return out
}

func pointLabel(arm string, own []string) string {
	if len(own) == 0 {
		return arm
	}
	return strings.TrimPrefix(arm+", "+strings.Join(own, " "), ", ")
}

func ratioText(r float64) string {
	if math.IsNaN(r) || math.IsInf(r, 0) {
		return "n/a"
	}
	return strconv.FormatFloat(r, 'f', 2, 64) + "x"
}

// reproduce is the command line that runs one point.
func reproduce(file string, sets []string) string {
	var b strings.Builder
	b.WriteString("go run ./cmd/schedplay run examples/" + file)
	for _, kv := range sets {
		b.WriteString(" --set " + shellQuote(kv))
	}
	return b.String()
}

// shellQuote single-quotes s unless it is made only of characters a POSIX shell
// leaves alone.
func shellQuote(s string) string {
	safe := s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-=/,:+@%", r))
	}) < 0
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// md escapes a table cell.
func md(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
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

package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/go-json-experiment/json"

	"schedplay/engine"
)

// The hit/miss rule of docs/calibration.md (stated in the document's header too).
// The model is not the measured system, so an absolute figure only has to be of the
// right size; an A/B change is the evidence that the mechanism is modelled, so it
// must go the same way and be of roughly the same size. A row counts only when it
// holds in every run: across seeds, in the example's window and a late one, and
// with each platform cost 25% lower and higher.
const (
	// figureBand: a figure hits when model/published is within [1/figureBand, figureBand].
	figureBand = 1.5
	// washBand: a change (B/A) within [1/washBand, washBand] is a wash; the engine
	// issue calls at-or-below-vCPU-count results within 15% a wash.
	washBand = 1.15
	// changeBand: a change hits when it has the published direction (up, down or
	// wash) in every run and, unless the published change is a wash, its median
	// model change / published change is within [1/changeBand, changeBand].
	changeBand = 1.5
	// lateFromMs and lateToMs are the late window: a result that is the model's
	// steady state holds there as well as in the example's own window.
	lateFromMs, lateToMs = 30_000, 60_000
	// robustSeeds is how many seeds (1..robustSeeds) every point runs with.
	robustSeeds = 5
	// costLow and costHigh scale one platform cost at a time.
	costLow, costHigh = 0.75, 1.25
)

// cmdCalibrate: schedplay calibrate [--out docs/calibration.md] [--check] [--quick] [--jobs N]
func (a *app) cmdCalibrate(args []string) error {
	fs := a.newFlagSet("calibrate", "[--out docs/calibration.md] [--check] [--quick] [--jobs N]")
	out := fs.String("out", "docs/calibration.md", "the markdown `file` to write (- for stdout)")
	check := fs.Bool("check", false, "probe the engine briefly; exit 1 if the file was not generated from the engine's current behaviour, examples and calibration code")
	quick := fs.Bool("quick", false, "one seed and no cost variations (a preview; --check refuses the result)")
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
	fp, err := a.fingerprint(*jobs)
	if err != nil {
		return err
	}
	if *check {
		return a.checkCalibration(*out, fp)
	}
	plan := fullPlan
	if *quick {
		plan = quickPlan
	}
	start := time.Now()
	doc, err := a.calibration(plan, fp, *jobs)
	if err != nil {
		return err
	}
	elapsed := time.Since(start).Seconds()
	if *out == "-" {
		_, err = a.stdout.Write(doc)
		return err
	}
	if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(*out, doc, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(a.stderr, "calibrate: wrote %s in %.1f s\n", *out, elapsed)
	return nil
}

// inputsLine finds the document's "<!-- inputs: DIGEST PLAN -->" line.
func inputsLine(doc []byte) (digest, plan string, ok bool) {
	for _, line := range strings.Split(string(doc), "\n") {
		rest, found := strings.CutPrefix(line, "<!-- inputs: ")
		if !found {
			continue
		}
		rest, found = strings.CutSuffix(rest, " -->")
		digest, plan, ok = strings.Cut(rest, " ")
		return digest, plan, found && ok
	}
	return "", "", false
}

// checkCalibration is --check: the full run takes tens of minutes, so CI checks
// that the document was generated, in full, from what it depends on now.
func (a *app) checkCalibration(out, fp string) error {
	onDisk, err := os.ReadFile(out)
	if err != nil {
		return &exitError{1, fmt.Errorf("%s is missing or unreadable (%v): regenerate it with task calibrate", out, err)}
	}
	digest, plan, ok := inputsLine(onDisk)
	switch {
	case !ok:
		return &exitError{1, fmt.Errorf("%s has no inputs line: regenerate it with task calibrate", out)}
	case plan != fullPlan.name:
		return &exitError{1, fmt.Errorf("%s comes from a --quick run: regenerate it with task calibrate", out)}
	case digest != fp:
		return &exitError{1, fmt.Errorf("%s is out of date (the engine behaves differently, or the examples or the calibration code changed, since it was generated): regenerate it with task calibrate", out)}
	}
	fmt.Fprintf(a.stderr, "calibrate: %s is up to date\n", out)
	return nil
}

// probeMs is how much simulated time each point's probe run covers.
const probeMs = 3000

// fingerprint digests what the document depends on: the calibration code (read
// from the source tree, a.sources), the examples, and the engine's behaviour,
// probed by running every published point at seed 1 for its first probeMs. A
// change that only moves comments or code leaves the probe's results, and so the
// document, as they are; a change in what the engine does changes them (every
// event is counted, so a different event order shows).
func (a *app) fingerprint(jobs int) (string, error) {
	if a.sources == nil {
		return "", errors.New("calibrate: no source tree to fingerprint")
	}
	code, err := fs.Glob(a.sources, "cmd/schedplay/cal*.go")
	if err != nil {
		return "", err
	}
	code = slices.DeleteFunc(code, func(n string) bool { return strings.HasSuffix(n, "_test.go") })
	if len(code) == 0 {
		return "", errors.New("calibrate: cmd/schedplay/cal*.go not found: run it from the repository root")
	}
	h := sha256.New()
	for _, n := range code {
		data, err := fs.ReadFile(a.sources, n)
		if err != nil {
			return "", err
		}
		// Line endings do not change what the code does.
		data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
		fmt.Fprintf(h, "%s %d\n", n, len(data))
		h.Write(data)
	}
	cases, err := a.calCases(quickPlan)
	if err != nil {
		return "", err
	}
	var js []job
	for _, c := range cases {
		fmt.Fprintf(h, "examples/%s %d\n", c.file, len(c.data))
		h.Write(c.data)
		for _, p := range c.points {
			sets := append(slices.Clone(p.sets), "seed=1", fmt.Sprintf("duration_ms=%d", min(probeMs, c.sc.DurationMs)), "warmup_ms=0")
			sc, err := engine.DecodeScenario(c.data, sets...)
			if err != nil {
				return "", fmt.Errorf("examples/%s: published.%d: %w", c.file, p.index, err)
			}
			js = append(js, job{label: fmt.Sprintf("examples/%s published.%d (probe)", c.file, p.index), sc: sc})
		}
	}
	res, err := a.runAll(js, jobs)
	if err != nil {
		return "", err
	}
	for _, r := range res {
		if err := json.MarshalWrite(h, r, json.Deterministic(true)); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// calibration runs every published point of every example under the plan and
// renders the document.
func (a *app) calibration(plan calPlan, fp string, jobs int) ([]byte, error) {
	cases, err := a.calCases(plan)
	if err != nil {
		return nil, err
	}
	if err := a.runCalibration(cases, jobs); err != nil {
		return nil, err
	}
	return renderCalibration(cases, plan, fp), nil
}

// calCases reads the examples (in file-name order) that have published points and
// resolves each point's overrides; a point naming an unknown arm or metric is an
// error naming its path, so a typo in a preset cannot silently drop a row.
func (a *app) calCases(plan calPlan) ([]*calCase, error) {
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
		c := &calCase{file: f, data: data, sc: sc}
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
			merged := maps.Clone(armSet)
			if merged == nil {
				merged = map[string]string{}
			}
			maps.Copy(merged, p.Set)
			if _, err := engine.DecodeScenario(data, knobList(merged)...); err != nil {
				return nil, fmt.Errorf("examples/%s: published.%d: %w", f, i, err)
			}
			c.points = append(c.points, &calPoint{index: i, pub: p, own: knobList(p.Set), sets: knobList(merged)})
		}
		if err := c.planRuns(plan); err != nil {
			return nil, fmt.Errorf("examples/%s: %w", f, err)
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

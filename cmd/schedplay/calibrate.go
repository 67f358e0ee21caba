package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
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
	"github.com/go-json-experiment/json/jsontext"

	"schedplay/engine"
)

// The hit/miss rule of docs/calibration.md (stated in the document's header too).
// The model is not the measured system, so an absolute figure only has to be of the
// right size; an A/B change is the evidence that the mechanism is modelled, so it
// must go the same way and be of roughly the same size. Every row runs across
// seeds, in the example's window and a late one, and with each platform cost 25%
// lower and higher: a change counts only when its direction holds in every run
// and its median is in band in each window; a figure, when its median is in band
// in each window.
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

// cmdCalibrate: schedplay calibrate [--out docs/calibration.md] [--notes static/notes] [--check | --render] [--quick] [--jobs N]
func (a *app) cmdCalibrate(args []string) error {
	fs := a.newFlagSet("calibrate", "[--out docs/calibration.md] [--notes static/notes] [--check | --render] [--quick] [--jobs N]")
	out := fs.String("out", "docs/calibration.md", "the markdown `file` to write; the runs it shows go beside it as .json, the verdict table as verdicts.json")
	notesDir := fs.String("notes", "static/notes", "the `dir` the model notes beside --out (and the documents they link to) are rendered into, as the pages the verdicts link to")
	check := fs.Bool("check", false, "run nothing long: exit 1 unless the documents are what their recorded runs render to, and the engine (probed briefly) and the examples are what they were")
	render := fs.Bool("render", false, "run nothing long: write the documents again from the recorded runs (after a change to how they are written, or to the notes), if the engine (probed briefly) and the examples are what they were")
	quick := fs.Bool("quick", false, "one seed and no cost variations (a preview; --check refuses it)")
	jobs := fs.Int("jobs", runtime.NumCPU(), "run up to `N` simulations in parallel")
	pos, err := parse(fs, args, a)
	if err != nil {
		return err
	}
	if err := wantArgs(fs, pos); err != nil {
		return err
	}
	if *check && *render {
		return &usageError{fs, fmt.Errorf("calibrate: --check and --render: choose one")}
	}
	if *jobs < 1 {
		return &usageError{fs, fmt.Errorf("calibrate: --jobs %d: need at least 1", *jobs)}
	}
	if !strings.HasSuffix(*out, ".md") {
		return &usageError{fs, fmt.Errorf("calibrate: --out %s: want a .md file (its runs are recorded beside it as .json)", *out)}
	}
	recordPath := strings.TrimSuffix(*out, ".md") + ".json"
	fp, err := a.fingerprint(*jobs)
	if err != nil {
		return err
	}
	if *check || *render {
		return a.fromRecord(*out, *notesDir, recordPath, fp, *render)
	}
	plan := fullPlan
	if *quick {
		plan = quickPlan
	}
	start := time.Now()
	cases, err := a.calCases(plan)
	if err != nil {
		return err
	}
	if err := a.runCalibration(cases, *jobs); err != nil {
		return err
	}
	rec, err := json.Marshal(recordOf(cases, plan, fp), jsontext.WithIndentPrefix(""), jsontext.WithIndent(" "), json.Deterministic(true))
	if err != nil {
		return err
	}
	files, err := calDocuments(cases, plan, fp, *out, *notesDir)
	if err != nil {
		return err
	}
	if err := writeCalFiles(append(files, calFile{path: recordPath, data: append(rec, '\n')})); err != nil {
		return err
	}
	fmt.Fprintf(a.stderr, "calibrate: wrote %s and %s (and %d more) in %.1f s\n", *out, recordPath, len(files)-1, time.Since(start).Seconds())
	return nil
}

func writeCalFiles(files []calFile) error {
	for _, f := range files {
		if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(f.path, f.data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// calRecord is docs/calibration.json: the measured values the document shows,
// so that a check can render it again without the hour of runs.
type calRecord struct {
	// Fingerprint digests the engine's behaviour and the examples (fingerprint).
	Fingerprint string       `json:"fingerprint"`
	Plan        string       `json:"plan"`
	Cases       []recordCase `json:"cases"`
}

type recordCase struct {
	File   string        `json:"file"`
	Points []recordPoint `json:"points"`
}

type recordPoint struct {
	Published int `json:"published"` // the index in the scenario's published list
	// Runs[i][w] holds the point's published metrics in config i, window w.
	Runs   [][]map[string]float64 `json:"runs"`
	Series []float64              `json:"series"`
}

func recordOf(cases []*calCase, plan calPlan, fp string) calRecord {
	rec := calRecord{Fingerprint: fp, Plan: plan.name}
	for _, c := range cases {
		rc := recordCase{File: c.file}
		for _, p := range c.points {
			rc.Points = append(rc.Points, recordPoint{Published: p.index, Runs: p.res, Series: p.series})
		}
		rec.Cases = append(rec.Cases, rc)
	}
	return rec
}

// fill gives the cases the recorded values, failing if the record does not fit
// them (a point, config or window more or less than the plan makes).
func (rec calRecord) fill(cases []*calCase) error {
	if len(rec.Cases) != len(cases) {
		return fmt.Errorf("it records %d cases, the examples have %d", len(rec.Cases), len(cases))
	}
	for i, c := range cases {
		rc := rec.Cases[i]
		if rc.File != c.file || len(rc.Points) != len(c.points) {
			return fmt.Errorf("case %d is %s with %d points, the examples have %s with %d", i, rc.File, len(rc.Points), c.file, len(c.points))
		}
		for j, p := range c.points {
			rp := rc.Points[j]
			if rp.Published != p.index || len(rp.Runs) != len(c.configs) {
				return fmt.Errorf("examples/%s published.%d: %d runs recorded, the plan makes %d", c.file, p.index, len(rp.Runs), len(c.configs))
			}
			for _, r := range rp.Runs {
				if len(r) != len(c.windows) {
					return fmt.Errorf("examples/%s published.%d: %d windows recorded, the case has %d", c.file, p.index, len(r), len(c.windows))
				}
			}
			p.res, p.series = rp.Runs, rp.Series
		}
	}
	return nil
}

// fromRecord is --check and --render. The full run takes about an hour, so CI
// checks instead that the engine still behaves as it did (the fingerprint's
// probe), that the examples are the same, and that every document is exactly
// what the recorded runs render to with the current code and notes. --render
// makes the same checks of the record and writes the documents instead.
func (a *app) fromRecord(out, notesDir, recordPath, fp string, write bool) error {
	regen := "regenerate them with task calibrate"
	if _, err := os.Stat(out); err != nil && !write {
		return &exitError{1, fmt.Errorf("%s is missing or unreadable (%v): %s", out, err, regen)}
	}
	data, err := os.ReadFile(recordPath)
	if err != nil {
		return &exitError{1, fmt.Errorf("%s is missing or unreadable (%v): %s", recordPath, err, regen)}
	}
	var rec calRecord
	if err := json.Unmarshal(data, &rec, json.RejectUnknownMembers(true)); err != nil {
		return &exitError{1, fmt.Errorf("%s: %v: %s", recordPath, err, regen)}
	}
	switch {
	case rec.Plan != fullPlan.name:
		return &exitError{1, fmt.Errorf("%s records a %s run, not a full one: %s", recordPath, rec.Plan, regen)}
	case rec.Fingerprint != fp:
		return &exitError{1, fmt.Errorf("%s is out of date (the engine behaves differently, or the examples changed, since it was generated): %s", out, regen)}
	}
	cases, err := a.calCases(fullPlan)
	if err != nil {
		return err
	}
	if err := rec.fill(cases); err != nil {
		return &exitError{1, fmt.Errorf("%s does not fit the examples (%v): %s", recordPath, err, regen)}
	}
	files, err := calDocuments(cases, fullPlan, fp, out, notesDir)
	if err != nil {
		return &exitError{1, err}
	}
	if write {
		if err := writeCalFiles(files); err != nil {
			return err
		}
		fmt.Fprintf(a.stderr, "calibrate: rendered %d documents from %s\n", len(files), recordPath)
		return nil
	}
	for _, f := range files {
		onDisk, err := os.ReadFile(f.path)
		if err != nil {
			return &exitError{1, fmt.Errorf("%s is missing or unreadable (%v): write it with calibrate --render", f.path, err)}
		}
		if !bytes.Equal(f.data, onDisk) {
			fix := "write it with calibrate --render (it is rendered from the record)"
			if f.path == out {
				fix = regen
			}
			return &exitError{1, fmt.Errorf("%s is not what its recorded runs render to (first difference on line %d): %s", f.path, firstDiffLine(onDisk, f.data), fix)}
		}
	}
	fmt.Fprintf(a.stderr, "calibrate: %s and the %d documents rendered with it are up to date\n", out, len(files)-1)
	return nil
}

// probeMs is how much simulated time each point's probe run covers.
const probeMs = 3000

// fingerprint digests what the measured values depend on: the examples and the
// engine's behaviour, probed by running every published point at seed 1 for its
// first probeMs. A change that only moves comments or code leaves the probe's
// results as they are; a change in what the engine does changes them (every event
// is counted, so a different event order shows).
func (a *app) fingerprint(jobs int) (string, error) {
	h := sha256.New()
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

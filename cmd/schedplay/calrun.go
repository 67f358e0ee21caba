package main

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"schedplay/engine"
)

// calPlan says how hard calibration looks at each point.
type calPlan struct {
	name  string // "full" or "quick", recorded in the document
	seeds int    // seeds 1..seeds
	costs bool   // also run each platform cost at costLow and costHigh
}

var (
	fullPlan  = calPlan{name: "full", seeds: robustSeeds, costs: true}
	quickPlan = calPlan{name: "quick", seeds: 1}
)

// calWindow is one measured window of a case.
type calWindow struct {
	name string // "example", "late", or "run" for a workload that finishes
	w    engine.Window
}

// calConfig is one way every point of a case is run; the points of two arms are
// compared config by config and window by window.
type calConfig struct {
	seed   uint64
	cost   string  // the cost knob scaled in this run, or ""
	value  int64   // its value in this run
	factor float64 // its scale
}

func (c calConfig) label() string {
	if c.cost == "" {
		return "seed " + strconv.FormatUint(c.seed, 10)
	}
	return fmt.Sprintf("%s x%s", shortKnob(c.cost), strconv.FormatFloat(c.factor, 'f', -1, 64))
}

// sets is the config's knob overrides, applied after the point's.
func (c calConfig) sets(horizonMs int64) []string {
	s := []string{"seed=" + strconv.FormatUint(c.seed, 10), "duration_ms=" + strconv.FormatInt(horizonMs, 10)}
	if c.cost != "" {
		s = append(s, c.cost+"="+strconv.FormatInt(c.value, 10))
	}
	return s
}

// calPoint is one published point of one case and its model runs.
type calPoint struct {
	index int
	pub   engine.Published
	// own is the point's own overrides, sets its arm's plus its own (the point's
	// win), both as sorted "path=value".
	own, sets []string
	// res[i][w] holds the published metrics of the case's config i in its
	// window w, as measured (what the document is rendered from, and what
	// docs/calibration.json records).
	res [][]map[string]float64
	// series is the throughput over time of the first config (seed 1), for the
	// document's sparkline.
	series []float64
}

// calCase is one example scenario with published points.
type calCase struct {
	file      string // file name in examples/
	data      []byte
	sc        engine.Scenario
	points    []*calPoint
	windows   []calWindow
	configs   []calConfig
	horizonMs int64
}

// finite reports whether the case's workload ends by itself (its figures are
// about the whole run, not a window of a steady state).
func (c *calCase) finite() bool { return c.sc.Workload.Kind == engine.WorkloadHackbench }

// planRuns decides the case's windows, horizon and configs.
func (c *calCase) planRuns(plan calPlan) error {
	sc := c.sc
	if c.finite() {
		c.horizonMs = sc.DurationMs
		c.windows = []calWindow{{"run", engine.Window{FromMs: sc.WarmupMs, ToMs: sc.DurationMs}}}
	} else {
		c.horizonMs = max(sc.DurationMs, lateToMs)
		c.windows = []calWindow{
			{"example", engine.Window{FromMs: sc.WarmupMs, ToMs: sc.DurationMs}},
			{"late", engine.Window{FromMs: lateFromMs, ToMs: lateToMs}},
		}
	}
	for seed := range plan.seeds {
		c.configs = append(c.configs, calConfig{seed: uint64(seed + 1)})
	}
	if !plan.costs {
		return nil
	}
	arms, err := c.sc.ArmScenarios()
	if err != nil {
		return err
	}
	for _, path := range costKnobs(arms) {
		base, err := costValue(sc, path)
		if err != nil {
			return err
		}
		if base == 0 {
			continue // a cost the platform does not have cannot be 25% off
		}
		for _, f := range []float64{costLow, costHigh} {
			v := max(1, int64(math.Round(float64(base)*f)))
			c.configs = append(c.configs, calConfig{seed: sc.Seed, cost: path, value: v, factor: f})
		}
	}
	return nil
}

// costKnobs lists the platform costs to vary for a case with these arms (their
// policies decide which costs matter): every machine.costs knob but
// cache_hot_ns (a threshold, not a cost), less those only a policy none of them
// uses reads, and the SMT yield unless a machine has SMT threads.
func costKnobs(arms []engine.ArmScenario) []string {
	policyOnly := map[string]string{
		"machine.costs.balance_pass_ns":    "osv",
		"machine.costs.newidle_balance_ns": "linux",
	}
	var out []string
	for _, p := range engine.KnobPaths() {
		if !strings.HasPrefix(p, "machine.costs.") || p == "machine.costs.cache_hot_ns" {
			continue
		}
		if pol, ok := policyOnly[p]; ok && !slices.ContainsFunc(arms, func(a engine.ArmScenario) bool { return a.Scenario.Sched.Policy == pol }) {
			continue
		}
		if p == "machine.costs.smt_yield_pct" && !slices.ContainsFunc(arms, hasSMT) {
			continue // only a machine with SMT threads reads it
		}
		out = append(out, p)
	}
	return out
}

// hasSMT says whether an arm's machine has SMT threads.
func hasSMT(a engine.ArmScenario) bool {
	t, err := engine.ParseTopology(a.Scenario.Machine.Topology)
	return err == nil && a.Scenario.Machine.Topology != "" && t.ThreadsPerCore > 1
}

// costValue reads an integer cost knob of sc.
func costValue(sc engine.Scenario, path string) (int64, error) {
	v, err := sc.Get(path)
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(v, 10, 64)
}

// runCalibration runs every point of every case under every config.
func (a *app) runCalibration(cases []*calCase, jobs int) error {
	type calJob struct {
		label string
		sc    engine.Scenario
		ws    []engine.Window
		p     *calPoint
		ci    int
	}
	var js []calJob
	for _, c := range cases {
		ws := make([]engine.Window, len(c.windows))
		for i, w := range c.windows {
			ws[i] = w.w
		}
		for _, p := range c.points {
			p.res = make([][]map[string]float64, len(c.configs))
			for ci, cfg := range c.configs {
				sc, err := engine.DecodeScenario(c.data, append(slices.Clone(p.sets), cfg.sets(c.horizonMs)...)...)
				if err != nil {
					return fmt.Errorf("examples/%s: published.%d (%s): %w", c.file, p.index, cfg.label(), err)
				}
				js = append(js, calJob{fmt.Sprintf("examples/%s published.%d (%s)", c.file, p.index, cfg.label()), sc, ws, p, ci})
			}
		}
	}
	return a.parallel(len(js), jobs, func(i int) error {
		j := js[i]
		res, err := a.measureSafe(j.label, j.sc, j.ws)
		if err != nil {
			return err
		}
		j.p.res[j.ci] = make([]map[string]float64, len(res))
		for wi, r := range res {
			vals := map[string]float64{}
			for name := range j.p.pub.Values {
				vals[name], _ = metricValue(r, name)
			}
			j.p.res[j.ci][wi] = vals
		}
		if j.ci == 0 {
			for _, s := range res[0].Series {
				j.p.series = append(j.p.series, s.ThroughputPerS)
			}
		}
		return nil
	})
}

// abPair is the same point measured under two arms, a listed before b.
type abPair struct{ a, b *calPoint }

// abPairs matches the points of every two arms that have the same own
// overrides, in published order: B / A for each later arm B against each
// earlier arm A. Relative points pair only with relative points: their values
// mean something only as ratios to each other.
func abPairs(c *calCase) []abPair {
	var out []abPair
	for ai, armA := range c.sc.Arms {
		for _, armB := range c.sc.Arms[ai+1:] {
			for _, pa := range c.points {
				if pa.pub.Arm != armA.Name {
					continue
				}
				for _, pb := range c.points {
					if pb.pub.Arm == armB.Name && slices.Equal(pa.own, pb.own) && pb.pub.Relative == pa.pub.Relative {
						out = append(out, abPair{pa, pb})
						break
					}
				}
			}
		}
	}
	return out
}

// spread summarises one metric (or ratio) over a window's runs.
type spread struct{ median, lo, hi float64 }

func spreadOf(vals []float64) spread {
	s := slices.Clone(vals)
	s = slices.DeleteFunc(s, math.IsNaN)
	if len(s) == 0 {
		return spread{math.NaN(), math.NaN(), math.NaN()}
	}
	slices.Sort(s)
	n := len(s)
	med := s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	return spread{med, s[0], s[n-1]}
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

// changeRow is one published A/B change judged over every run.
type changeRow struct {
	pub      float64  // published B/A
	byWindow []spread // model B/A per window
	runs     int      // runs compared
	wrongDir int      // runs whose direction differs from the published one
	hit      bool
	why      string
}

// judgeChange compares a published change with the model's in every config and
// window: a hit needs the published direction in every run and, unless that is
// a wash, each window's median within changeBand of the published change.
func judgeChange(c *calCase, pr abPair, name string) changeRow {
	pa, pb := pr.a.pub.Values[name], pr.b.pub.Values[name]
	row := changeRow{pub: ratio(pb, pa)}
	dp := direction(row.pub)
	for wi, w := range c.windows {
		var vals []float64
		for ci := range c.configs {
			ma, mb := pr.a.res[ci][wi][name], pr.b.res[ci][wi][name]
			v := ratio(mb, ma)
			vals = append(vals, v)
			row.runs++
			if direction(v) != dp {
				row.wrongDir++
			}
		}
		sp := spreadOf(vals)
		row.byWindow = append(row.byWindow, sp)
		if dp != "wash" && row.why == "" {
			if q := sp.median / row.pub; !(q >= 1/changeBand && q <= changeBand) {
				row.why = fmt.Sprintf("%s-window median %s, published %s", w.name, ratioText(sp.median), ratioText(row.pub))
			}
		}
	}
	if row.wrongDir > 0 {
		row.why = fmt.Sprintf("not %s in %d of %d runs", dp, row.wrongDir, row.runs)
	}
	row.hit = dp != "n/a" && row.why == ""
	return row
}

// figureNames lists the metrics of p that are published figures: none of a
// relative point, whose values are only the terms of its changes.
func figureNames(p *calPoint) []string {
	if p.pub.Relative {
		return nil
	}
	return sortedMetricNames(p.pub.Values)
}

// figureRow is one published figure judged over every run.
type figureRow struct {
	pub      float64
	byWindow []spread // model values per window
	hit      bool
	fitted   bool
	why      string
}

// judgeFigure compares a published figure with the model's median in each window.
func judgeFigure(c *calCase, p *calPoint, name string) figureRow {
	row := figureRow{pub: p.pub.Values[name], fitted: len(c.sc.Fitted) > 0}
	for wi, w := range c.windows {
		var vals []float64
		for ci := range c.configs {
			v := p.res[ci][wi][name]
			vals = append(vals, v)
		}
		sp := spreadOf(vals)
		row.byWindow = append(row.byWindow, sp)
		if r := ratio(sp.median, row.pub); row.why == "" && (math.IsNaN(r) || r < 1/figureBand || r > figureBand) {
			row.why = fmt.Sprintf("%s-window median is %s of the published figure", w.name, ratioText(r))
		}
	}
	row.hit = row.why == "" && !row.fitted
	return row
}

package preview

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"schedplay/docs"
	"schedplay/engine"
	"schedplay/view"
)

// DefaultEventBudget is the work Compute is given by default, counted in engine
// events over all arms: about 1.5 s of CPU natively and four times as long as
// wasm (web/cloudflare's BenchmarkCloudflare gives the Cloudflare Worker a quarter of it, and
// measures heavy-share-cpu-ms). Events, not wall time, so a preview is the same
// on every host and every run. A scenario's own sched_ext policy spends it too,
// by its Starlark steps (PolicyStepsPerEvent).
const DefaultEventBudget = 8_000_000

// lockSteps is how many steps of simulated time the horizon is cut into: the
// arms advance in lockstep one step at a time, the budget is checked between
// steps, so the work done past the budget is at most one step of every arm
// (an arm that runs a policy of its own is checked more often: policyChunk).
const lockSteps = 1024

// maxFrames bounds the candidate moments kept for the tiles: every step is a
// candidate until there are maxFrames, then every other one is dropped and the
// sampling interval doubles, so the candidates stay spread over the prefix.
const maxFrames = 128

// maxSeries bounds the points of each arm's stored series: enough for a chart
// 1200 pixels wide, far fewer than a 120 s run's 1 ms buckets.
const maxSeries = 240

// Compute runs the scenario's arms (the first two of sc.Arms, or sc alone when
// it has fewer than two) in lockstep until they end or have processed budget
// engine events together (a policy's steps counted in, PolicyStepsPerEvent),
// and returns what their link preview shows. The result depends only on sc and
// budget.
func Compute(sc engine.Scenario, budget int64) (Preview, error) {
	p, _, err := compute(sc, budget, false, nil)
	return p, err
}

// maxStates bounds the moments ComputeStates saves, besides the warm-up's end:
// like the tiles' candidates, every step is one until there are maxStates,
// then every other is dropped, so they stay spread over the prefix run.
const maxStates = 8

// ComputeStates is Compute, and also returns the arms' engine checkpoints
// (an engine.AppendCheckpointPack) at the end of the warm-up, at up to
// maxStates moments spread over what was run, and where the run stopped: what
// a page opening the share with t= inside that span resumes instead of
// simulating up to it. Each checkpoint keeps the measured windows the page's
// runner measures an arm with (the scenario's and [0, warm-up), as
// runner.SaveStates does). The preview itself is the one Compute returns.
func ComputeStates(sc engine.Scenario, budget int64) (Preview, []byte, error) {
	return compute(sc, budget, true, nil)
}

func compute(sc engine.Scenario, budget int64, saveStates bool, compile engine.ScxCompiler) (Preview, []byte, error) {
	if budget <= 0 {
		return Preview{}, nil, errors.New("preview: the event budget must be positive")
	}
	specs, err := armsOf(sc)
	if err != nil {
		return Preview{}, nil, err
	}
	table, err := docs.Load()
	if err != nil {
		return Preview{}, nil, err
	}
	published := view.NewPublishedSet(sc)
	froms := windowFroms(sc.WarmupMs, sc.DurationMs)
	runs := make([]*armRun, len(specs))
	var horizon int64
	for i, a := range specs {
		var pol stepper
		var refused error
		sim, err := engine.NewSimScx(a.sc, metered(compile, &pol, &refused))
		if refused != nil {
			return refusedPreview(sc, specs, refused), nil, nil
		}
		if err != nil {
			return Preview{}, nil, fmt.Errorf("preview: arm %q: %w", a.name, err)
		}
		sim.SetVisual(false) // the card draws snapshots; nothing animates the run
		r := &armRun{name: a.name, sim: sim, policy: pol, gauge: a.sc.Sched.IdleSpin.Adaptive, win: []int{0},
			published: published.FiguresOf(a.sc), calibrated: table.Lookup(a.sc)}
		for _, f := range froms[1:] {
			r.win = append(r.win, sim.AddWindow(f, a.sc.DurationMs))
		}
		r.kept = []int{0}
		if saveStates && a.sc.WarmupMs > 0 {
			r.kept = append(r.kept, sim.AddWindow(0, a.sc.WarmupMs))
		}
		runs[i] = r
		horizon = max(horizon, sim.EndNs())
	}

	step := max(horizon/lockSteps, 1)
	var frames []frame
	every := 1
	var events, steps int64
	complete := false
	var st states
	warmNs := sc.WarmupMs * 1e6
	for k := 1; ; k++ {
		t := min(int64(k)*step, horizon)
		cut := false
		if prev := t - step; saveStates && warmNs > 0 && prev < warmNs && warmNs <= t && warmNs < horizon {
			// The warm-up's end, the moment Skip warm-up jumps to, is saved as it
			// is: running there first and then on to t is the same run.
			if cut = advance(runs, warmNs, budget); !cut {
				if err := st.save(runs, -1); err != nil {
					return Preview{}, nil, err
				}
			}
		}
		if !cut {
			cut = advance(runs, t, budget)
		}
		events, steps = work(runs)
		complete = true
		for _, r := range runs {
			complete = complete && r.sim.Done()
		}
		if k%every == 0 || cut {
			// A cut leaves the arms short of t: their tiles are of where they
			// stopped.
			at := t
			if cut {
				at = reachedOf(runs)
			}
			frames = append(frames, capture(runs, at))
			if len(frames) == maxFrames {
				frames = decimate(frames)
				every *= 2
			}
		}
		if complete || cut || spent(events, steps) >= budget {
			if saveStates && (len(st.spread) == 0 || st.spread[len(st.spread)-1].k != k) {
				if err := st.save(runs, k); err != nil {
					return Preview{}, nil, err
				}
			}
			break
		}
		if saveStates && k%max(st.every, 1) == 0 {
			if err := st.save(runs, k); err != nil {
				return Preview{}, nil, err
			}
		}
	}

	reached := reachedOf(runs)
	p := Preview{
		Name: sc.Name, Policy: PolicyName(sc), VCPUs: sc.Machine.VCPUs, Workload: sc.Workload.Kind, Clients: sc.Workload.Clients,
		Seed: sc.Seed, HorizonMs: ms(horizon), ReachedMs: ms(reached), Complete: complete, Events: events, PolicySteps: steps,
		Compared: compared(sc), Platform: platformOf(specs),
	}
	wi := chooseWindow(froms, reached, complete)
	p.FromMs = float64(froms[wi])
	p.ToMs = min(float64(sc.DurationMs), p.ReachedMs)
	at := representative(frames, froms[wi]*1e6, reached)
	p.AtMs = ms(at.atNs)
	for i, r := range runs {
		res := r.sim.ResultsWindow(r.win[wi])
		series, width := downsample(res.Series, r.sim.Scenario().SeriesIntervalMs, r.sim.NowNs())
		res.Series = nil
		p.Arms = append(p.Arms, Arm{Name: r.name, Results: res, Series: series, SeriesMs: width,
			Tiles: at.tiles[i], IPIs: at.ipis[i], Gauge: r.gauge, Calibrated: r.calibrated})
		if len(r.published) > 0 {
			p.Arms[i].Published = r.published
		}
	}
	if !saveStates {
		return p, nil, nil
	}
	pack, err := st.pack()
	return p, pack, err
}

func ms(ns int64) float64 { return float64(ns) / 1e6 }

// reachedOf is the furthest moment an arm has been simulated to.
func reachedOf(runs []*armRun) int64 {
	reached := runs[0].sim.NowNs()
	for _, r := range runs {
		reached = max(reached, r.sim.NowNs())
	}
	return reached
}

// platformOf is "kvm" when an arm runs under KVM (the host's metrics then
// apply, as the page shows them when any arm does), else the first arm's.
func platformOf(specs []armSpec) string {
	for _, a := range specs {
		if a.sc.Machine.Platform == "kvm" {
			return "kvm"
		}
	}
	return specs[0].sc.Machine.Platform
}

// armRun is one arm being simulated.
type armRun struct {
	name string
	sim  *engine.Sim
	// policy is the arm's own sched_ext policy, whose steps count toward the
	// budget; nil when it runs none (or its compiler does not count them).
	policy stepper
	gauge  bool
	// win maps a candidate window (an index into windowFroms) to the sim's
	// measured window; kept lists the windows a saved state keeps (the
	// scenario's and the page's warm-up window).
	win  []int
	kept []int
	snap engine.Snapshot // reused by capture
	// published and calibrated are what the card shows beside the results
	// (Arm.Published, Arm.Calibrated).
	published  map[string]float64
	calibrated *docs.Point
}

type armSpec struct {
	name string
	sc   engine.Scenario
}

// armsOf lists the runs a preview compares, as the playground's default compare
// mode does: the first two arms as the engine resolves them (ArmScenarios); or
// the scenario itself when it has fewer than two arms.
func armsOf(sc engine.Scenario) ([]armSpec, error) {
	if len(sc.Arms) < 2 {
		return []armSpec{{sc: sc}}, nil
	}
	arms, err := sc.ArmScenarios()
	if err != nil {
		return nil, fmt.Errorf("preview: %w", err)
	}
	var out []armSpec
	for _, a := range arms[:2] {
		out = append(out, armSpec{a.Name, a.Scenario})
	}
	return out, nil
}

// compared lists the knobs whose values differ between the first two arms, in
// path order. Values are compared as the engine reads them, so "1" and "true"
// are the same.
func compared(sc engine.Scenario) []Knob {
	if len(sc.Arms) < 2 {
		return nil
	}
	a, b := sc.Arms[0].Set, sc.Arms[1].Set
	paths := slices.Sorted(maps.Keys(a))
	for _, k := range slices.Sorted(maps.Keys(b)) {
		if _, ok := a[k]; !ok {
			paths = append(paths, k)
		}
	}
	slices.Sort(paths)
	var out []Knob
	for _, k := range paths {
		va, oka := a[k]
		vb, okb := b[k]
		if oka && okb {
			x, errx := engine.KnobValue(k, va)
			y, erry := engine.KnobValue(k, vb)
			if errx == nil && erry == nil && x == y {
				continue
			}
		}
		out = append(out, Knob{Path: k, A: va, B: vb})
	}
	return out
}

// windowFroms lists where the candidate measured windows start, in ms: the
// scenario's warm-up first (the engine's window 0), then 0 and the horizon's
// halves, quarters, ... down to a 64th. Each sim measures all of them from the
// start (a window must be added before the run passes it); chooseWindow picks
// one once it is known how far the run got.
func windowFroms(warmupMs, durationMs int64) []int64 {
	froms := []int64{warmupMs, 0}
	for d := int64(64); d >= 2; d /= 2 {
		if f := durationMs / d; f > 0 && !slices.Contains(froms, f) {
			froms = append(froms, f)
		}
	}
	return froms
}

// chooseWindow picks the window the results cover. A complete run is measured as
// the scenario says (window 0: from the warm-up to the end). A run cut short at
// reachedNs is measured over at least its second half, so the start-up
// transient weighs as little as the prefix allows: from the warm-up when that
// leaves at least half the prefix, otherwise from the latest candidate start
// in the first half.
func chooseWindow(froms []int64, reachedNs int64, complete bool) int {
	half := reachedNs / 2
	if complete || froms[0]*1e6 <= half {
		return 0
	}
	best := 1 // froms[1] is 0, always in the first half
	for i, f := range froms[1:] {
		if f*1e6 <= half && f > froms[best] {
			best = i + 1
		}
	}
	return best
}

// frame is every arm's tiles at one moment.
type frame struct {
	atNs  int64
	tiles [][]Tile
	ipis  [][]IPI
	busy  []int // busy vCPUs (running or in an interrupt) by arm
	// live is true while no arm has ended: a finished arm shows only idle tiles.
	live bool
}

func capture(runs []*armRun, t int64) frame {
	f := frame{atNs: t, live: true}
	for _, r := range runs {
		if r.sim.Done() {
			f.live = false
		}
		r.sim.Snapshot(&r.snap)
		tiles, ipis, busy := tilesOf(&r.snap)
		f.tiles = append(f.tiles, tiles)
		f.ipis = append(f.ipis, ipis)
		f.busy = append(f.busy, busy)
	}
	return f
}

// decimate keeps every other frame: those at even multiples of the sampling
// interval, so the kept ones stay evenly spaced.
func decimate(frames []frame) []frame {
	out := frames[:0]
	for i := 1; i < len(frames); i += 2 {
		out = append(out, frames[i])
	}
	return out
}

// tilesOf turns a snapshot into tiles, the IPIs in flight and the busy count.
func tilesOf(sn *engine.Snapshot) ([]Tile, []IPI, int) {
	role := func(id int) byte {
		if id >= 0 && id < len(sn.Threads) && sn.Threads[id].ID == id {
			return roleLetter(sn.Threads[id].Role)
		}
		return roleLetter(engine.RoleWorker)
	}
	tiles := make([]Tile, len(sn.CPUs))
	busy := 0
	for i := range sn.CPUs {
		c := &sn.CPUs[i]
		t := Tile{State: c.State.String(), Queued: len(c.Runqueue) + len(c.Incoming)}
		if c.State == engine.CPURunning || c.State == engine.CPUIRQ {
			busy++
		}
		if c.Running >= 0 {
			t.Run = string(role(c.Running))
		}
		chips := make([]byte, 0, min(t.Queued, maxChips))
		for _, id := range c.Runqueue {
			if len(chips) < maxChips {
				chips = append(chips, role(id))
			}
		}
		for _, id := range c.Incoming {
			if len(chips) < maxChips {
				chips = append(chips, role(id)-'a'+'A')
			}
		}
		t.Chips = string(chips)
		if c.SpinCap > 0 {
			t.Spin = min(max(float64(c.SpinWindow)/float64(c.SpinCap), 0), 1)
		}
		tiles[i] = t
	}
	var ipis []IPI
	for _, x := range sn.IPIs {
		ipis = append(ipis, IPI{Kind: x.Kind.String(), From: x.From, To: x.To})
	}
	return tiles, ipis, busy
}

// representative picks the moment the tiles show: among the frames in the
// measured window [fromNs, toNs] while every arm still runs, the one where
// each arm's busy vCPUs are closest to that arm's mean over those frames. A
// typical moment, that is, rather than the last one (still ramping up when the
// budget cut the run short) or an idle one after a finite workload ended.
func representative(frames []frame, fromNs, toNs int64) frame {
	in := func(f frame) bool { return f.atNs >= fromNs && f.atNs <= toNs }
	var cand []frame
	for _, pick := range []func(frame) bool{
		func(f frame) bool { return in(f) && f.live },
		func(f frame) bool { return f.live },
		in,
		func(frame) bool { return true },
	} {
		for _, f := range frames {
			if pick(f) {
				cand = append(cand, f)
			}
		}
		if len(cand) > 0 {
			break
		}
	}
	mean := make([]float64, len(cand[0].busy))
	for _, f := range cand {
		for i, b := range f.busy {
			mean[i] += float64(b) / float64(len(cand))
		}
	}
	best, bestDev := 0, -1.0
	for j, f := range cand {
		dev := 0.0
		for i, b := range f.busy {
			d := float64(b) - mean[i]
			dev += d * d
		}
		if bestDev < 0 || dev < bestDev {
			best, bestDev = j, dev
		}
	}
	return cand[best]
}

// downsample merges the engine's series buckets (intervalMs wide; the last one
// ends at nowNs) into at most maxSeries buckets, weighting each by its width,
// and returns the throughputs and the merged bucket width in ms.
func downsample(series []engine.SeriesPoint, intervalMs, nowNs int64) ([]float64, float64) {
	g := (len(series) + maxSeries - 1) / maxSeries
	g = max(g, 1)
	out := make([]float64, 0, (len(series)+g-1)/g)
	for i := 0; i < len(series); i += g {
		var sum, width float64
		for _, pt := range series[i:min(i+g, len(series))] {
			w := min(float64(intervalMs), ms(nowNs)-pt.StartMs)
			sum += pt.ThroughputPerS * w
			width += w
		}
		v := 0.0
		if width > 0 {
			v = sum / width
		}
		out = append(out, v)
	}
	return out, float64(intervalMs * int64(g))
}

package e2e

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/performance"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// What the measurements read besides the page's state(): where the engine
// workers' time went, the arms' pace, Chromium's run-time counters of the
// page, and the CPU time of Chromium's processes.

// workerTime reads where each engine worker's wall time went so far (the
// worker's self.schedplayTime, through DevTools), by target: running the
// engine, waiting for the page's next request, yielding to its event loop.
func workerTime(t *testing.T, ctx context.Context) map[target.ID]map[string]float64 {
	t.Helper()
	targets, err := chromedp.Targets(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := map[target.ID]map[string]float64{}
	for _, ti := range targets {
		if ti.Type != "worker" {
			continue
		}
		wctx, cancel := chromedp.NewContext(ctx, chromedp.WithTargetID(ti.TargetID))
		got, err := chromedp.Run(wctx, chromedp.Evaluate[map[string]float64](`self.schedplayTime || {}`))
		cancel()
		if err != nil {
			t.Logf("  a worker: %v", err)
			continue
		}
		out[ti.TargetID] = got
	}
	return out
}

// logWorkerTime reports what each engine worker that ran since before (a
// workerTime reading) spent its wall time on.
func logWorkerTime(t *testing.T, ctx context.Context, before map[target.ID]map[string]float64) {
	t.Helper()
	for id, now := range workerTime(t, ctx) {
		was := before[id]
		d := func(k string) float64 { return (now[k] - was[k]) / 1000 }
		if d("work_ms") > 0 {
			t.Logf("  a worker: engine %.2f s, waiting for requests %.2f s, yielding %.2f s", d("work_ms"), d("idle_ms"), d("yield_ms"))
		}
	}
}

// mainThread reads Chromium's run-time metrics of the page (durations in
// seconds, counts, and Timestamp).
func mainThread(t *testing.T, ctx context.Context) map[string]float64 {
	t.Helper()
	res, err := chromedp.Call(ctx, performance.GetMetrics, cdp.Empty{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, m := range res.Metrics {
		out[m.Name] = m.Value
	}
	return out
}

// logArmPace reports each arm's engine events, the workers' time on them, and so
// the engine's pace in the worker and the share of the wall time spent elsewhere
// (waiting for the other arm, messages, the page).
func logArmPace(t *testing.T, ctx context.Context, wall time.Duration) {
	t.Helper()
	for _, a := range readRun(t, ctx).Arms {
		t.Logf("  arm %s: %d events, worker busy %.2f s (%.0f%% of the wall time): %.2f M events/s in the worker; replayed %d times",
			a.Name, a.Events, a.RunnerMs/1000, 100*a.RunnerMs/float64(wall.Milliseconds()), float64(a.Events)/a.RunnerMs/1000, a.Replays)
	}
}

// processCPU is the CPU time, in seconds, Chromium's processes have used, by
// their kind (--type: renderer, gpu-process, utility; the browser process
// has none), read from /proc (empty elsewhere).
type processCPU map[string]float64

func chromiumCPU() processCPU {
	out := processCPU{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		cmd, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !strings.Contains(string(cmd), "chrom") {
			continue
		}
		kind := "browser"
		// Chromium rewrites its children's command lines with spaces.
		for _, a := range strings.FieldsFunc(string(cmd), func(r rune) bool { return r == 0 || r == ' ' }) {
			if k, ok := strings.CutPrefix(a, "--type="); ok {
				kind = k
			}
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// Fields after the command's closing parenthesis; utime and stime are
		// the 14th and 15th of the whole line, in clock ticks (100 a second).
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(f) < 13 {
			continue
		}
		u, _ := strconv.ParseFloat(f[11], 64)
		s, _ := strconv.ParseFloat(f[12], 64)
		out[kind] += (u + s) / 100
	}
	return out
}

// since is the CPU time used after before was read.
func (c processCPU) since(before processCPU) processCPU {
	out := processCPU{}
	for k, v := range c {
		out[k] = v - before[k]
	}
	return out
}

func (c processCPU) String() string {
	if len(c) == 0 {
		return "not readable here"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(c)) {
		if c[k] >= 0.05 {
			parts = append(parts, fmt.Sprintf("%s %.2f s", k, c[k]))
		}
	}
	return strings.Join(parts, ", ")
}

package e2e

import (
	"cmp"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/profiler"
	"github.com/chromedp/chromedp"
)

// TestProfileFrame samples the page's main thread with Chromium's CPU profiler
// (the Go program's wasm functions by name) while it plays the heaviest view
// the page offers, 64 vCPUs and 256 clients in compare, and reports where a
// frame's time goes: the functions with the most time of their own and the
// most time under them. It asserts nothing and runs only with
// SCHEDPLAY_MEASURE=1:
//
//	SCHEDPLAY_MEASURE=1 go test ./e2e -run TestProfileFrame -v
func TestProfileFrame(t *testing.T) {
	if os.Getenv("SCHEDPLAY_MEASURE") != "1" {
		t.Skip("set SCHEDPLAY_MEASURE=1 to profile a frame")
	}
	for _, tc := range []struct{ desc, frag string }{
		{"64vcpu-256clients-compare", "#v=1&preset=tpcb-32vcpu&machine.vcpus=64&workload.clients=256"},
		{"64vcpu-256clients-compare-max", "#v=1&preset=tpcb-32vcpu&machine.vcpus=64&workload.clients=256&speed=max"},
		{"hackbench-compare-max", "#v=1&preset=hackbench&speed=max"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			ctx, base := browser(t, 1400, 900)
			open(t, ctx, base+"/"+tc.frag)
			eval[bool](t, ctx, `window.schedplay.play(), true`)
			time.Sleep(2 * time.Second)
			eval[bool](t, ctx, `window.schedplay.perfReset(), true`)
			if _, err := chromedp.Call(ctx, profiler.Enable, cdp.Empty{}); err != nil {
				t.Fatal(err)
			}
			if _, err := chromedp.Call(ctx, profiler.SetSamplingInterval, profiler.SetSamplingIntervalParams{Interval: 200}); err != nil {
				t.Fatal(err)
			}
			if _, err := chromedp.Call(ctx, profiler.Start, cdp.Empty{}); err != nil {
				t.Fatal(err)
			}
			time.Sleep(4 * time.Second)
			res, err := chromedp.Call(ctx, profiler.Stop, cdp.Empty{})
			if err != nil {
				t.Fatal(err)
			}
			prof := res.Profile
			st := state(t, ctx)
			t.Logf("%s: Update+Draw median %.2f ms, p95 %.2f ms over %d frames; %d vertices",
				tc.desc, st.Perf.MedianMs, st.Perf.P95Ms, st.Perf.Samples, st.Perf.Vertices)
			self, total, all := profileTimes(prof)
			t.Logf("%s: %.0f ms sampled on the main thread over 4 s", tc.desc, all/1000)
			t.Logf("most time of their own:\n%s", topTimes(self, all, 25))
			t.Logf("most time under them (Go functions):\n%s", topTimes(total, all, 40))
		})
	}
}

// profileTimes adds up a CPU profile's time (µs) per function: its own (self)
// and under it (total, each function counted once per stack however deep it
// recurses).
func profileTimes(p *profiler.Profile) (self, total map[string]float64, all float64) {
	nodes := map[int64]*profiler.ProfileNode{}
	parent := map[int64]int64{}
	for _, n := range p.Nodes {
		nodes[n.ID] = n
		for _, c := range n.Children {
			parent[c] = n.ID
		}
	}
	name := func(n *profiler.ProfileNode) string {
		f := n.CallFrame.FunctionName
		if f == "" {
			f = "(anonymous)"
		}
		if u := n.CallFrame.URL; u != "" && !strings.HasSuffix(u, ".wasm") {
			f += " [" + u[strings.LastIndex(u, "/")+1:] + "]"
		}
		return f
	}
	self, total = map[string]float64{}, map[string]float64{}
	for i, id := range p.Samples {
		if i >= len(p.TimeDeltas) {
			break
		}
		// A sample's time is the interval up to the next sample.
		dt := float64(p.TimeDeltas[min(i+1, len(p.TimeDeltas)-1)])
		n := nodes[id]
		if n == nil {
			continue
		}
		nm := name(n)
		if nm == "(idle)" || nm == "(program)" {
			continue
		}
		all += dt
		self[nm] += dt
		seen := map[string]bool{}
		for cur, ok := id, true; ok; cur, ok = parent[cur] {
			if cn := nodes[cur]; cn != nil {
				if s := name(cn); !seen[s] {
					seen[s] = true
					total[s] += dt
				}
			}
		}
	}
	return self, total, all
}

// topTimes lists the n largest entries, as ms and share of all.
func topTimes(m map[string]float64, all float64, n int) string {
	type kv struct {
		k string
		v float64
	}
	var list []kv
	for k, v := range m {
		list = append(list, kv{k, v})
	}
	slices.SortFunc(list, func(a, b kv) int { return cmp.Compare(b.v, a.v) })
	var b strings.Builder
	for i, e := range list {
		if i == n {
			break
		}
		fmt.Fprintf(&b, "  %6.0f ms %5.1f%%  %s\n", e.v/1000, 100*e.v/max(all, 1), e.k)
	}
	return b.String()
}

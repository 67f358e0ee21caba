package engine

import (
	"runtime"
	"testing"
)

// Calibration: each example's published A/B, asserted for direction and rough
// magnitude over the example's own window (10 s measured after 4 s of warm-up for
// the request-server cases). No engine constant is set per test: the scenarios
// differ only in workload parameters documented in their files. Where the model
// misses a published figure, docs/calibration.md says so; these tests assert only
// what the mechanisms are claimed to do.

func skipSlow(t *testing.T) {
	t.Helper()
	if testing.Short() || runtime.GOOS == "js" {
		t.Skip("calibration runs simulate tens of seconds; skipped in -short and under wasm (determinism is covered by the golden test)")
	}
}

func TestCalibrationTPCBPull(t *testing.T) {
	skipSlow(t)
	for _, tc := range []struct {
		desc    string
		clients string
		wash    bool
	}{
		{"well below the vCPU count pull is a wash", "8", true},
		{"below the vCPU count pull is a wash", "16", true},
		{"2x oversubscribed the off arm collapses", "64", false},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			off := runExample(t, "tpcb-32vcpu", "pull off", "workload.clients="+tc.clients)
			on := runExample(t, "tpcb-32vcpu", "pull on", "workload.clients="+tc.clients)
			ratio := on.ThroughputPerS / off.ThroughputPerS
			t.Logf("clients %s: off %.0f/s (%.1f busy), on %.0f/s (%.1f busy), ratio %.2f",
				tc.clients, off.ThroughputPerS, off.BusyVCPUsMean, on.ThroughputPerS, on.BusyVCPUsMean, ratio)
			if tc.wash {
				if ratio < 0.85 || ratio > 1.15 {
					t.Errorf("on/off throughput = %.2f, want a wash within 15%%", ratio)
				}
				return
			}
			if ratio < 2 {
				t.Errorf("on/off throughput = %.2f, want at least 2x", ratio)
			}
			if off.BusyVCPUsMean > 4 {
				t.Errorf("off arm keeps %.1f vCPUs busy, want a collapse to a few", off.BusyVCPUsMean)
			}
			if on.BusyVCPUsMean < 3*off.BusyVCPUsMean {
				t.Errorf("on arm busy %.1f vs off %.1f: want the idle vCPUs to come alive", on.BusyVCPUsMean, off.BusyVCPUsMean)
			}
			if on.LatencyUs.Mean >= off.LatencyUs.Mean/2 {
				t.Errorf("mean latency off %.0f us -> on %.0f us, want at least halved", off.LatencyUs.Mean, on.LatencyUs.Mean)
			}
			// The collapse outlasts the window: even the last second of the off arm
			// is below the on arm's mean (the model's off arm creeps up slowly,
			// where the published one stayed flat; see docs/calibration.md).
			last := off.Series[len(off.Series)-1].ThroughputPerS
			if last >= on.ThroughputPerS {
				t.Errorf("off arm recovered to %.0f/s by the end (on arm %.0f/s); the collapse should outlast the window", last, on.ThroughputPerS)
			}
		})
	}
}

// At the vCPU count the published runs were a wash (+2%). The model's off arm is
// still leaving its collapse at the end of the window (docs/calibration.md marks
// the miss); what the model does claim is that it recovers, unlike at 64 clients.
func TestCalibrationTPCBAtVCPUCountRecovers(t *testing.T) {
	skipSlow(t)
	off := runExample(t, "tpcb-32vcpu", "pull off", "workload.clients=32")
	first, last := off.Series[0].ThroughputPerS, off.Series[len(off.Series)-1].ThroughputPerS
	t.Logf("off arm at 32 clients: %.0f/s in the first second, %.0f/s in the last", first, last)
	if last < 2*first {
		t.Errorf("off arm at the vCPU count went from %.0f to %.0f/s: want it to recover from the start-up collapse", first, last)
	}
}

func TestCalibrationDurableWriteAdaptiveSpin(t *testing.T) {
	skipSlow(t)
	fixed := runExample(t, "durable-write", "fixed 10000")
	adaptive := runExample(t, "durable-write", "adaptive")
	t.Logf("fixed: %.0f ops/s, %.0f halts/s, wake-to-run %.1f us; adaptive: %.0f ops/s, %.0f halts/s, wake-to-run %.1f us",
		fixed.ThroughputPerS, fixed.HaltExitsPerS, fixed.WakeToRunUs.Mean,
		adaptive.ThroughputPerS, adaptive.HaltExitsPerS, adaptive.WakeToRunUs.Mean)
	// Published: 4x fewer halt exits and +65% throughput. The model gets the
	// direction of all three but not the size (docs/calibration.md).
	if adaptive.HaltExitsPerS >= fixed.HaltExitsPerS {
		t.Errorf("halt exits %.0f -> %.0f/s, want fewer with adaptive spin", fixed.HaltExitsPerS, adaptive.HaltExitsPerS)
	}
	if adaptive.ThroughputPerS <= fixed.ThroughputPerS {
		t.Errorf("adaptive %.0f ops/s does not beat fixed %.0f", adaptive.ThroughputPerS, fixed.ThroughputPerS)
	}
	if adaptive.WakeToRunUs.Mean >= fixed.WakeToRunUs.Mean {
		t.Errorf("wake-to-run %.1f -> %.1f us, want lower with adaptive spin", fixed.WakeToRunUs.Mean, adaptive.WakeToRunUs.Mean)
	}
}

func TestCalibrationIdleGuestWindowDecays(t *testing.T) {
	skipSlow(t)
	fixed := runExample(t, "idle-guest", "fixed 10000")
	adaptive := runExample(t, "idle-guest", "adaptive")
	t.Logf("host CPU per vCPU: fixed %.4f, adaptive %.4f; mean window adaptive %.0f", fixed.HostCPUFrac, adaptive.HostCPUFrac, adaptive.SpinWindowMean)
	if adaptive.HostCPUFrac*2 > fixed.HostCPUFrac {
		t.Errorf("host CPU %.4f -> %.4f, want clearly less (at least 2x) with adaptive", fixed.HostCPUFrac, adaptive.HostCPUFrac)
	}
	// The window starts at the 100000 cap and must decay on an idle guest.
	if adaptive.SpinWindowMean > 10000 {
		t.Errorf("mean adaptive window %.0f, want decayed far below the cap", adaptive.SpinWindowMean)
	}
}

// hackbench under scx_simple: the old WAKE_SYNC rule runs at one CPU's speed
// (several times slower than the new rule, roughly the CPU count), and the new
// rule is close to the Linux reference. Published: 2.944 s, 0.348 s, 0.345-0.352 s.
func TestCalibrationHackbenchWakeSync(t *testing.T) {
	skipSlow(t)
	old := runExample(t, "hackbench", "old rule")
	nw := runExample(t, "hackbench", "new rule")
	lx := runExample(t, "hackbench", "linux")
	t.Logf("elapsed: old %.3f s (%.1f busy), new %.3f s (%.1f busy), linux %.3f s", old.ElapsedS, old.BusyVCPUsMean, nw.ElapsedS, nw.BusyVCPUsMean, lx.ElapsedS)
	for _, r := range []Results{old, nw, lx} {
		if r.ElapsedS <= 0 {
			t.Fatal("hackbench did not finish within the horizon")
		}
	}
	if old.ElapsedS < 4*nw.ElapsedS {
		t.Errorf("old/new = %.2f, want several times slower (published 8.5x on 8 CPUs)", old.ElapsedS/nw.ElapsedS)
	}
	if old.BusyVCPUsMean > 1.5 {
		t.Errorf("old rule keeps %.1f CPUs busy; every task should pile onto the parent's CPU", old.BusyVCPUsMean)
	}
	if r := nw.ElapsedS / lx.ElapsedS; r < 0.8 || r > 1.25 {
		t.Errorf("new rule / linux = %.2f, want close to the Linux reference", r)
	}
}

package preview

import (
	"math"
	"testing"

	"schedplay/engine"
)

// compare is a two-arm preview of workload kind with results a and b.
func compare(kind string, complete bool, a, b engine.Results) *Preview {
	return &Preview{Name: "tpcb", VCPUs: 32, Workload: kind, Clients: 64, Seed: 7, HorizonMs: 24000,
		ReachedMs: 3600, Complete: complete, FromMs: 1500, ToMs: 3600,
		Compared: []Knob{{Path: "sched.wake_pull", A: "false", B: "true"}},
		Arms:     []Arm{{Name: "pull off", Results: a}, {Name: "pull on", Results: b}}}
}

func TestDescription(t *testing.T) {
	server := func(tput, latUs float64) engine.Results {
		return engine.Results{ThroughputPerS: tput, Completed: 10, LatencyUs: engine.LatencySummary{Mean: latUs}}
	}
	single := compare(engine.WorkloadRequestServer, true, server(26300, 2430), engine.Results{})
	single.Arms, single.Compared = single.Arms[:1], nil
	for _, tc := range []struct {
		desc        string
		p           *Preview
		title, want string
	}{
		{"a factor leads", compare(engine.WorkloadRequestServer, true, server(7800, 7700), server(23400, 2600)),
			"tpcb: pull off vs pull on (sched.wake_pull)",
			"pull on: 3.0x throughput, mean latency 7.70 ms → 2.60 ms (−66%)"},
		{"a small change is a percentage", compare(engine.WorkloadRequestServer, true, server(26300, 2430), server(28700, 2230)),
			"tpcb: pull off vs pull on (sched.wake_pull)",
			"pull on: throughput 26.3k → 28.7k (+9%), mean latency 2.43 ms → 2.23 ms (−8%)"},
		{"a prefix says so", compare(engine.WorkloadRequestServer, false, server(11100, 5780), server(28900, 2220)),
			"tpcb: pull off vs pull on (sched.wake_pull)",
			"pull on: 2.6x throughput, mean latency 5.78 ms → 2.22 ms (−62%) (first 3.6 s of 24 s simulated)"},
		{"an unfinished run time", compare(engine.WorkloadHackbench, false, engine.Results{BusyVCPUsMean: 1}, engine.Results{ElapsedS: 0.38, BusyVCPUsMean: 8}),
			"tpcb: pull off vs pull on (sched.wake_pull)",
			"pull on: run time > 3.6 s → 380 ms, busy vCPUs 1.00 → 8.00 (8.0x) (first 3.6 s of 24 s simulated)"},
		{"one run", single, "tpcb", "32 vCPUs · request_server · 64 clients: throughput 26.3k, mean latency 2.43 ms"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			if got := tc.p.Title(); got != tc.title {
				t.Errorf("Title() = %q, want %q", got, tc.title)
			}
			if got := tc.p.Description(); got != tc.want {
				t.Errorf("Description() =\n%q, want\n%q", got, tc.want)
			}
		})
	}
}

func TestHeadlineVerdicts(t *testing.T) {
	p := compare(engine.WorkloadRequestServer, true,
		engine.Results{ThroughputPerS: 100, Completed: 1, LatencyUs: engine.LatencySummary{Mean: 10}, BusyVCPUsMean: 2, IdleWhileOverloadedFrac: 0.5},
		engine.Results{ThroughputPerS: 101, Completed: 1, LatencyUs: engine.LatencySummary{Mean: 20}, BusyVCPUsMean: 4, IdleWhileOverloadedFrac: 0.1})
	want := []struct {
		label   string
		verdict int
	}{{"throughput /s", 0}, {"mean latency", -1}, {"busy vCPUs", 0}, {"idle while overloaded", +1}}
	got := p.Headline()
	if len(got) != len(want) {
		t.Fatalf("%d metrics, want %d", len(got), len(want))
	}
	for i, w := range want {
		if got[i].Label != w.label || got[i].Verdict != w.verdict {
			t.Errorf("metric %d: %q verdict %d, want %q verdict %d (within 2%% is no verdict)", i, got[i].Label, got[i].Verdict, w.label, w.verdict)
		}
	}
}

func TestFormat(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{num(7819), "7.82k"}, {num(22722), "22.7k"}, {num(950), "950"}, {num(0), "0"}, {num(1.5e6), "1.50M"},
		{num(math.NaN()), "–"}, {num(-1234), "−1.23k"},
		{durationUs(0.85), "850 ns"}, {durationUs(78), "78.0 µs"}, {durationUs(8500), "8.50 ms"}, {durationUs(1.25e6), "1.25 s"},
		{percent(0.71), "71%"}, {percent(0.042), "4.2%"}, {percent(0), "0%"}, {percent(0.000003), "<0.1%"},
		{change(7800, 22700), "2.9x"}, {change(100, 109), "+9%"}, {change(7.7, 2.6), "−66%"}, {change(0, 5), ""}, {change(5, 5), "±0%"},
		{seconds(3609), "3.6 s"}, {seconds(24000), "24 s"}, {seconds(332), "0.33 s"}, {seconds(12500), "12.5 s"},
		{clip("abcdef", 4), "abc…"}, {clip("abc", 4), "abc"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

// Values the headline shows alike carry no change (an idle guest's "<0.1%" in
// both arms read as "<0.1% -> <0.1% +100%"); values that differ do.
func TestHeadlineNoChangeBetweenLikeValues(t *testing.T) {
	p := Preview{Workload: engine.WorkloadIdle, Arms: []Arm{
		{Results: engine.Results{HostCPUFrac: 0.0001, SpinCPUFrac: 0.02, HaltExitsPerS: 3880}},
		{Results: engine.Results{HostCPUFrac: 0.0002, SpinCPUFrac: 0.01, HaltExitsPerS: 3970}},
	}}
	changes := map[string]string{}
	for _, m := range p.Headline() {
		changes[m.Label] = m.Change
	}
	if c := changes["host CPU"]; c != "" {
		t.Errorf("host CPU <0.1%% in both arms shows a change %q", c)
	}
	if c := changes["spin CPU"]; c != "−50%" {
		t.Errorf("spin CPU 2.0%% -> 1.0%% shows %q, want −50%%", c)
	}
}

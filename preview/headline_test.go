package preview

import (
	"testing"

	"schedplay/docs"
	"schedplay/engine"
	"schedplay/view"
)

// compare is a two-arm preview of workload kind with results a and b.
func compare(kind string, complete bool, a, b engine.Results) *Preview {
	return &Preview{Name: "tpcb", VCPUs: 32, Workload: kind, Clients: 64, Seed: 7, HorizonMs: 24000,
		ReachedMs: 3600, Complete: complete, FromMs: 1500, ToMs: 3600,
		Compared: []Knob{{Path: "sched.wake_pull", A: "false", B: "true"}},
		Arms:     []Arm{{Name: "pull off", Results: a}, {Name: "pull on", Results: b}}}
}

// published gives p's arms the TPC-B figures at 64 clients and, when
// calibrated, the calibration's points with its verdict on the change.
func published(p *Preview, calibrated bool) *Preview {
	p.Arms[0].Published = map[string]float64{"throughput_per_s": 7819}
	p.Arms[1].Published = map[string]float64{"throughput_per_s": 22722}
	if calibrated {
		model := 1.0957
		p.Arms[0].Calibrated = &docs.Point{ID: "a"}
		p.Arms[1].Calibrated = &docs.Point{ID: "b", Changes: []docs.Change{{Against: "a", Metric: "throughput_per_s",
			Published: 2.906, Direction: "up", Model: &model, Verdict: docs.Verdict{Class: docs.Miss, Why: "not up in 50 of 50 runs"}}}}
	}
	return p
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
			"In the model, pull on: 3.0x throughput, mean latency 7.70 ms → 2.60 ms (−66%)."},
		{"a small change is a percentage", compare(engine.WorkloadRequestServer, true, server(26300, 2430), server(28700, 2230)),
			"tpcb: pull off vs pull on (sched.wake_pull)",
			"In the model, pull on: throughput 26.3k → 28.7k (+9.1%), mean latency 2.43 ms → 2.23 ms (−8.2%)."},
		{"a prefix says so", compare(engine.WorkloadRequestServer, false, server(11100, 5780), server(28900, 2220)),
			"tpcb: pull off vs pull on (sched.wake_pull)",
			"In the model, pull on: 2.6x throughput, mean latency 5.78 ms → 2.22 ms (−62%) (first 3.6 s of 24 s simulated)."},
		{"an unfinished run time", compare(engine.WorkloadHackbench, false, engine.Results{BusyVCPUsMean: 1}, engine.Results{ElapsedS: 0.38, BusyVCPUsMean: 8}),
			"tpcb: pull off vs pull on (sched.wake_pull)",
			"In the model, pull on: run time > 3.60 s → 380 ms, busy vCPUs 1.0 → 8.0 (8.0x) (first 3.6 s of 24 s simulated)."},
		{"one run", single, "tpcb", "In the model, 32 vCPUs · request_server · 64 clients: throughput 26.3k, mean latency 2.43 ms."},
		{"published figures, no verdict", published(compare(engine.WorkloadRequestServer, true, server(26300, 2430), server(28700, 2230)), false),
			"tpcb: pull off vs pull on (sched.wake_pull)",
			"In the model, pull on: throughput 26.3k → 28.7k (+9.1%), mean latency 2.43 ms → 2.23 ms (−8.2%). Published for these settings: throughput 7.82k → 22.7k."},
		{"published figures and the verdict", published(compare(engine.WorkloadRequestServer, true, server(26300, 2430), server(28700, 2230)), true),
			"tpcb: pull off vs pull on (sched.wake_pull)",
			"In the model, pull on: throughput 26.3k → 28.7k (+9.1%), mean latency 2.43 ms → 2.23 ms (−8.2%). Published: throughput 7.82k → 22.7k; " +
				"the model does not reproduce this change: model 1.10x (calibration median) vs published 2.91x."},
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
		verdict view.Verdict
	}{{"throughput /s", view.NoVerdict}, {"mean latency", view.IsWorse}, {"busy vCPUs", view.NoVerdict}, {"idle while overloaded", view.IsBetter}}
	got := p.Headline()
	if len(got) != len(want) {
		t.Fatalf("%d metrics, want %d", len(got), len(want))
	}
	for i, w := range want {
		if got[i].Def.Label != w.label || got[i].Verdict != w.verdict {
			t.Errorf("metric %d: %q verdict %q, want %q verdict %q (within 2%% is no verdict)", i, got[i].Def.Label, got[i].Verdict, w.label, w.verdict)
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
		changes[m.Def.Label] = m.Change
	}
	if c := changes["host CPU"]; c != "" {
		t.Errorf("host CPU <0.1%% in both arms shows a change %q", c)
	}
	if c := changes["spin CPU"]; c != "−50%" {
		t.Errorf("spin CPU 2.0%% -> 1.0%% shows %q, want −50%%", c)
	}
}

package lesson_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"schedplay/engine"
	"schedplay/playground/lesson"
)

func TestParsePlaceholder(t *testing.T) {
	tests := []struct {
		raw  string
		want lesson.Placeholder
		err  string
	}{
		{raw: "throughput_per_s", want: lesson.Placeholder{Source: lesson.SourceResults, Metric: "throughput_per_s"}},
		{raw: "arm.B.latency_us.p99", want: lesson.Placeholder{Source: lesson.SourceResults, Arm: 1, Metric: "latency_us.p99"}},
		{raw: "arm.A.recent.busy_vcpus_host", want: lesson.Placeholder{Source: lesson.SourceRecent, Metric: "busy_vcpus_host"}},
		{raw: "arm.B.published.elapsed_s", want: lesson.Placeholder{Source: lesson.SourcePublished, Arm: 1, Metric: "elapsed_s"}},
		{raw: "ratio.elapsed_s", want: lesson.Placeholder{Source: lesson.SourceRatio, Metric: "elapsed_s"}},
		{raw: "arm.B.cpu.12.queue", want: lesson.Placeholder{Source: lesson.SourceCPUQueue, Arm: 1, CPU: 12}},
		{raw: "cpu.0.spin_window", want: lesson.Placeholder{Source: lesson.SourceCPUSpinWindow}},
		{raw: "arm.B.shared_queue", want: lesson.Placeholder{Source: lesson.SourceSharedQueue, Arm: 1}},
		{raw: "now", want: lesson.Placeholder{Source: lesson.SourceNow}},
		{raw: "arm.B.running", want: lesson.Placeholder{Source: lesson.SourceRunning, Arm: 1}},
		{raw: "arm.B.knob.sched.idle_spin.cap", want: lesson.Placeholder{Source: lesson.SourceKnob, Arm: 1, Metric: "sched.idle_spin.cap"}},
		{raw: "knob.sched.idle_spin", err: "knob. takes a knob path"},
		{raw: "running.x", err: "no fields"},
		{raw: "tps", err: "not a placeholder"},
		{raw: "", err: "not a placeholder"},
		{raw: "series", err: "not a placeholder"},
		{raw: "latency_us", err: "not a placeholder"},
		{raw: "arm.C.now", err: "the arm is A or B"},
		{raw: "arm.B.now", err: "take no arm"},
		{raw: "arm.A.ratio.elapsed_s", err: "take no arm"},
		{raw: "now.x", err: "no fields"},
		{raw: "recent.p99", err: "recent. takes one of"},
		{raw: "recent.start_ms", err: "recent. takes one of"},
		{raw: "ratio.tps", err: "not a result"},
		{raw: "cpu.01.queue", err: "takes a vCPU number"},
		{raw: "cpu.-1.queue", err: "takes a vCPU number"},
		{raw: "cpu.9999.queue", err: "takes a vCPU number"},
		{raw: "cpu.3.load", err: "queue or spin_window"},
		{raw: "shared_queue.x", err: "no fields"},
	}
	for _, tc := range tests {
		t.Run(tc.raw, func(t *testing.T) {
			got, err := lesson.ParsePlaceholder(tc.raw)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.HasPrefix(err.Error(), "{") {
					t.Errorf("got %+v, %v; want an error naming {%s} with %q", got, err, tc.raw, tc.err)
				}
				return
			}
			tc.want.Raw = tc.raw
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

// The names placeholders take are the engine's JSON names, and Value reads them.
func TestResultPaths(t *testing.T) {
	paths := lesson.ResultPaths()
	for _, p := range []string{"throughput_per_s", "latency_us.p99", "wake_to_run_us.mean", "ipis_per_s.pull", "busy_vcpus_host_mean", "elapsed_s", "completed"} {
		if !slices.Contains(paths, p) {
			t.Errorf("ResultPaths lacks %s", p)
		}
	}
	r := engine.Results{ThroughputPerS: 12.5, Completed: 7, LatencyUs: engine.LatencySummary{P99: 3.25}}
	for _, tc := range []struct {
		v    any
		path string
		want float64
		ok   bool
	}{
		{r, "throughput_per_s", 12.5, true}, {r, "completed", 7, true}, {r, "latency_us.p99", 3.25, true},
		{r, "latency_us", 0, false}, {r, "nope", 0, false}, {r, "throughput_per_s.x", 0, false},
		{engine.SeriesPoint{BusyVCPUsHost: 4.5}, "busy_vcpus_host", 4.5, true},
	} {
		if got, ok := lesson.Value(tc.v, tc.path); got != tc.want || ok != tc.ok {
			t.Errorf("Value(%s) = %v, %v; want %v, %v", tc.path, got, ok, tc.want, tc.ok)
		}
	}
}

func TestFill(t *testing.T) {
	const caption = "A {throughput_per_s}/s, B {arm.B.throughput_per_s}/s at {now}"
	l, err := lesson.Decode("x", []byte(`{"version":1,"title":"t","preset":"p","steps":[{"caption":"`+caption+`","at":"1s"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	ps := l.Steps[0].Placeholders
	segs, all := lesson.Fill(caption, ps, func(p lesson.Placeholder) (string, bool) {
		return map[string]string{"throughput_per_s": "7.8k", "now": "1 s"}[p.Raw], p.Arm == 0
	})
	want := []lesson.Segment{{Text: "A "}, {Text: "7.8k", Value: true}, {Text: "/s, B "}, {Text: lesson.Unfilled, Value: true},
		{Text: "/s at "}, {Text: "1 s", Value: true}}
	if all || !reflect.DeepEqual(segs, want) {
		t.Errorf("Fill = %+v, %v; want %+v, false", segs, all, want)
	}
}

// FuzzDecode: no input makes Decode panic or produce an unbounded message, and a
// lesson it accepts has a target for every step and parsed placeholders. (Check,
// which decodes scenarios, is left to the tests above: at ~10 ms a step it would
// slow the fuzzer a hundredfold.)
func FuzzDecode(f *testing.F) {
	f.Add([]byte(good))
	ls, _ := lesson.Builtin()
	for _, l := range ls {
		data, _ := examplesLesson(l.Name)
		f.Add(data)
	}
	f.Add([]byte(`{"version":1,"steps":[null]}`))
	f.Add([]byte(`{"version":1,"title":"t","preset":"p","steps":[{"caption":"{{}}","at":"1s"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := lesson.Decode("f", data)
		if err != nil {
			if len(err.Error()) > 600 {
				t.Fatalf("oversized error (%d bytes): %.200s", len(err.Error()), err)
			}
			return
		}
		for i, st := range l.Steps {
			if (st.At == "") == (st.Until == nil) {
				t.Fatalf("step %d has no single target", i+1)
			}
			if n := strings.Count(st.Caption, "{"); n != len(st.Placeholders) {
				t.Fatalf("step %d: %d braces, %d placeholders", i+1, n, len(st.Placeholders))
			}
			l.Setup(i)
		}
	})
}

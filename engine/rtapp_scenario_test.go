package engine

import (
	"errors"
	"strings"
	"testing"
)

// rtappScenario is the default scenario on 4 vCPUs running src for 1 s.
func rtappScenario(src string) Scenario {
	sc := DefaultScenario()
	sc.Machine.VCPUs = 4
	sc.DurationMs = 1000
	sc.WarmupMs = 0
	sc.Workload.Kind = WorkloadRTApp
	sc.Workload.RTApp = src
	return sc
}

func TestRTAppScenarioChecks(t *testing.T) {
	const valid = "" // Validate accepts it
	tests := []struct {
		name string
		src  string
		edit func(*Scenario)
		want string // the whole error message
	}{
		{"valid", `{"tasks": {"t": {"run": 1000, "sleep": 1000}}}`, nil, valid},
		{"empty", ``, nil, `workload.rtapp: is empty: workload.kind "rtapp" runs the rt-app description held there`},
		{"decode error names rtapp's path and position", "{\"tasks\": {\"t\": {\n  \"run\": \"ten\"}}}", nil,
			`workload.rtapp: tasks.t.run: line 2 col 10: `},
		{"one CPU is pinned", `{"tasks": {"t": {"cpus": [2], "run": 1000}}}`, nil, valid},
		{"all CPUs", `{"tasks": {"t": {"cpus": [3, 2, 1, 0], "run": 1000}}}`, nil, valid},
		{"a subset of CPUs", `{"tasks": {"t": {"cpus": [0, 1], "run": 1000}}}`, nil,
			`workload.rtapp: tasks.t.cpus: line 1 col 12: [0 1] is neither one CPU (pinned) nor all 4: the engine pins a thread to one CPU or to none`},
		{"a CPU the machine lacks", `{"tasks": {"t": {"cpus": [4], "run": 1000}}}`, nil,
			`workload.rtapp: tasks.t.cpus: line 1 col 12: CPU 4: the machine has 4 vCPUs (0..3)`},
		{"SCHED_FIFO", `{"tasks": {"t": {"policy": "SCHED_FIFO", "run": 1000}}}`, nil,
			`workload.rtapp: tasks.t: line 1 col 12: SCHED_FIFO is refused under sched.policy=osv: OSv's scheduler has real-time priorities of its own (thread::set_realtime_priority and set_realtime_time_slice in core/sched.cc), which the OSv policy does not model`},
		{"SCHED_FIFO under sched_ext: the RT class above it", `{"tasks": {"t": {"policy": "SCHED_FIFO", "priority": 5, "run": 1000}}}`,
			func(sc *Scenario) { sc.Sched.Policy = "scx_simple" }, valid},
		{"SCHED_DEADLINE under sched_ext", `{"tasks": {"t": {"policy": "SCHED_DEADLINE", "dl-runtime": 1000, "dl-period": 10000, "run": 500}}}`,
			func(sc *Scenario) { sc.Sched.Policy = "scx_simple" }, valid},
		{"SCHED_BATCH under sched_ext", `{"tasks": {"t": {"policy": "SCHED_BATCH", "run": 1000}}}`,
			func(sc *Scenario) { sc.Sched.Policy = "scx_simple" },
			`workload.rtapp: tasks.t: line 1 col 12: SCHED_BATCH is refused under sched.policy=scx_simple: SCHED_BATCH and SCHED_IDLE are the fair class's`},
		{"an RT priority changed in a phase under sched_ext", `{"tasks": {"t": {"policy": "SCHED_FIFO", "priority": 5, "phases": {"p": {"priority": 7, "run": 10}}}}}`,
			func(sc *Scenario) { sc.Sched.Policy = "scx_simple" },
			`workload.rtapp: tasks.t.phases.p: line 1 col 68: priority 7 is refused in a phase under sched.policy=scx_simple: a task's real-time priority is set once`},
		{"a phase turns SCHED_FIFO under sched_ext", `{"tasks": {"t": {"phases": {"p": {"policy": "SCHED_FIFO", "run": 10}}}}}`,
			func(sc *Scenario) { sc.Sched.Policy = "scx_simple" },
			`workload.rtapp: tasks.t.phases.p: line 1 col 29: changes the policy mid-run (SCHED_FIFO, the task has SCHED_OTHER): under sched.policy=scx_simple a task's policy is set once`},
		{"default policy SCHED_RR", `{"global": {"default_policy": "SCHED_RR"}, "tasks": {"t": {"run": 1000}}}`, nil,
			`workload.rtapp: tasks.t: line 1 col 54: SCHED_RR is refused`},
		{"phase turns SCHED_FIFO", `{"tasks": {"t": {"phases": {"p": {"policy": "SCHED_FIFO", "run": 10}}}}}`, nil,
			`workload.rtapp: tasks.t.phases.p: line 1 col 29: SCHED_FIFO is refused`},
		{"SCHED_IDLE", `{"tasks": {"t": {"policy": "SCHED_IDLE", "run": 1000}}}`, nil,
			`workload.rtapp: tasks.t: line 1 col 12: SCHED_IDLE is refused under sched.policy=osv: SCHED_BATCH and SCHED_IDLE are the fair class's`},
		{"nice under a built-in scheduler", `{"tasks": {"t": {"priority": -5, "run": 1000}}}`, nil,
			`workload.rtapp: tasks.t: line 1 col 12: priority (nice) -5 is refused under sched.policy=osv: that scheduler weighs no tasks`},
		{"nice under the scenario's own policy: its weight", `{"tasks": {"t": {"priority": -5, "run": 1000}}}`,
			func(sc *Scenario) { sc.Sched.Policy = "scx" }, valid},
		{"a phase with its task's nice", `{"tasks": {"t": {"priority": 3, "phases": {"p": {"priority": 3, "run": 10}}}}}`,
			func(sc *Scenario) { sc.Sched.Policy = "scx" }, valid},
		{"a phase that changes the nice", `{"tasks": {"t": {"phases": {"p": {"priority": 3, "run": 10}}}}}`,
			func(sc *Scenario) { sc.Sched.Policy = "scx" },
			`workload.rtapp: tasks.t.phases.p: line 1 col 29: priority (nice) 3 is refused in a phase: a task's nice (its weight) is set once`},
		{"global.duration agrees", `{"global": {"duration": 1}, "tasks": {"t": {"run": 1000}}}`, nil, valid},
		{"global.duration -1 leaves duration_ms", `{"global": {"duration": -1}, "tasks": {"t": {"run": 1000}}}`, nil, valid},
		{"global.duration longer than the run: its start", `{"global": {"duration": 5}, "tasks": {"t": {"run": 1000}}}`, nil, valid},
		{"global.duration 0 is no limit", `{"global": {"duration": 0}, "tasks": {"t": {"run": 1000}}}`, nil, valid},
		{"global.duration shorter than the run", `{"global": {"duration": 1}, "tasks": {"t": {"run": 1000}}}`, func(sc *Scenario) { sc.DurationMs = 3000 },
			`workload.rtapp: global.duration: rt-app stops at 1 s, before duration_ms=3000 ends the run: set duration_ms to 1000 (or less, to run its start) or remove global.duration`},
		{"too many threads", `{"tasks": {"a": {"instance": 1000, "run": 1}, "b": {"instance": 25, "run": 1}}}`, nil,
			`workload.rtapp: tasks.b.instance: line 1 col 47: 25 instances bring the threads started to 1025, above the engine's limit of 1024 in all`},
		{"too large", `{"tasks": {"t": {"run": 1000}}}` + strings.Repeat(" ", MaxRTAppBytes), nil,
			`workload.rtapp: is 32799 bytes, above the limit 32768`},
		{"description under another kind", `{"tasks": {"t": {"run": 1000}}}`, func(sc *Scenario) { sc.Workload.Kind = WorkloadIdle },
			`workload.rtapp: is set, but workload.kind is "idle": an rt-app description runs under workload.kind=rtapp`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sc := rtappScenario(tc.src)
			if tc.edit != nil {
				tc.edit(&sc)
			}
			err := sc.Validate()
			if tc.want == valid {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("Validate() = %v, want a *FieldError", err)
			}
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error\n  %s\nwant prefix\n  %s", err, tc.want)
			}
		})
	}
}

// TestRTAppKindSet: --set workload.kind=rtapp is accepted (the kind is not
// offered as a choice, since it needs a description).
func TestRTAppKindSet(t *testing.T) {
	if _, err := KnobValue("workload.kind", WorkloadRTApp); err != nil {
		t.Fatal(err)
	}
	k, _ := LookupKnob("workload.kind")
	for _, c := range k.Choices {
		if c == WorkloadRTApp {
			t.Error("workload.kind offers rtapp as a choice")
		}
	}
}

// A sched_ext policy of the scenario's own reads an rt-app task's nice as
// p.weight: the kernel's load weight scaled so nice 0 is 100.
func TestRTAppNiceIsScxWeight(t *testing.T) {
	for _, tc := range []struct {
		nice int
		want int64
	}{{0, 100}, {-5, 305}, {5, 33}, {-20, 8668}, {19, 1}} {
		if got := ScxWeightOfNice(tc.nice); got != tc.want {
			t.Errorf("ScxWeightOfNice(%d) = %d, want %d", tc.nice, got, tc.want)
		}
	}
	sc := rtappScenario(`{"tasks": {"low": {"priority": 10, "run": 1000, "sleep": 1000}, "high": {"priority": -10, "instance": 2, "run": 1000, "sleep": 1000}}}`)
	sc.Sched.Policy = "scx"
	sc.Sched.Scx.Source = "# any: the ops below stand in for its compiler\n"
	weights := map[string]int64{}
	ops := &weightProbe{seen: weights}
	s, err := NewSimScx(sc, func(name, src string, slice int64) (ScxOps, error) { return ops, nil })
	if err != nil {
		t.Fatal(err)
	}
	s.RunUntil(20e6)
	want := map[string]int64{"low": ScxWeightOfNice(10), "high": ScxWeightOfNice(-10)}
	if len(weights) != 3 {
		t.Fatalf("the policy saw %v, want the three threads", weights)
	}
	for name, w := range weights {
		task, _, _ := strings.Cut(name, "-")
		if w != want[task] {
			t.Errorf("%s: the policy saw weight %d, want %d", name, w, want[task])
		}
	}
}

// weightProbe is the kernel's default ops, noting each task's weight when
// it starts running.
type weightProbe struct {
	ScxNoOps
	seen map[string]int64
}

func (o *weightProbe) Defined() ScxOpSet { return ScxOpRunning }

func (o *weightProbe) Running(k *ScxKernel, p ScxTask) error {
	o.seen[p.Name()] = p.Weight()
	return nil
}

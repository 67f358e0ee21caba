package rtapp

import (
	"reflect"
	"strings"
	"testing"
)

func TestGrammar(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		check func(t *testing.T, d *Description)
	}{
		{"line and block comments, strings with comment markers",
			`// head
			{ /* a */ "tasks": { "t/*x*/": { "run": 1, // one
			"lock": "m//n", "unlock": "m//n" } } /* tail
			*/ }`,
			func(t *testing.T, d *Description) {
				tk := task(t, d, "t/*x*/")
				if tk.Phases[0].Events[1].Ref != "m//n" {
					t.Errorf("ref %q", tk.Phases[0].Events[1].Ref)
				}
			}},
		{"trailing commas in objects and arrays",
			doc(`"t": {"cpus": [0, 1, ], "run": 5, },`),
			func(t *testing.T, d *Description) {
				if got := task(t, d, "t").CPUs; !reflect.DeepEqual(got, []int{0, 1}) {
					t.Errorf("cpus %v", got)
				}
			}},
		{"a comma inside a string is kept",
			doc(`"t": {"lock": "a,}", "unlock": "a,}"}`),
			func(t *testing.T, d *Description) {
				if got := task(t, d, "t").Phases[0].Events[0].Ref; got != "a,}" {
					t.Errorf("ref %q", got)
				}
			}},
		{"repeated and numbered keys keep order",
			doc(`"t": {"run": 1, "sleep": 2, "run": 3, "run7": 4, "sleep": 5, "runtime12": 6}`),
			func(t *testing.T, d *Description) {
				var got []int64
				for _, e := range task(t, d, "t").Phases[0].Events {
					got = append(got, e.Duration)
				}
				if !reflect.DeepEqual(got, []int64{1, 2, 3, 4, 5, 6}) {
					t.Errorf("durations %v", got)
				}
				if k := task(t, d, "t").Phases[0].Events[5].Kind; k != Runtime {
					t.Errorf("runtime12 kind %q", k)
				}
			}},
		{"tasks and phases keep file order, repeated phase names too",
			doc(`"z": {"phases": {"b": {"run": 1}, "a": {"run": 2}, "b": {"run": 3}}}, "a": {"run": 1}, "m": {"run": 1}`),
			func(t *testing.T, d *Description) {
				var names []string
				for _, tk := range d.Tasks {
					names = append(names, tk.Name)
				}
				if !reflect.DeepEqual(names, []string{"z", "a", "m"}) {
					t.Errorf("tasks %v", names)
				}
				var phases []string
				for _, ph := range d.Tasks[0].Phases {
					phases = append(phases, ph.Name)
				}
				if !reflect.DeepEqual(phases, []string{"b", "a", "b"}) || d.Tasks[0].Phases[2].Events[0].Duration != 3 {
					t.Errorf("phases %v", phases)
				}
			}},
		{"defaults",
			doc(`"t": {"phases": {"p": {"sleep": 1}}}`),
			func(t *testing.T, d *Description) {
				tk := task(t, d, "t")
				if tk.Instance != 1 || tk.Loop != LoopForever || tk.Delay != 0 || tk.CPUs != nil || tk.Sched.Policy != SchedOther || tk.Sched.Priority != 0 || tk.Phases[0].Loop != 1 || tk.Phases[0].Sched != nil {
					t.Errorf("task %+v", tk)
				}
				if !reflect.DeepEqual(d.Global, DefaultGlobal()) {
					t.Errorf("global %+v", d.Global)
				}
			}},
		{"inline task without loop runs forever",
			doc(`"t": {"run": 1}`),
			func(t *testing.T, d *Description) {
				if tk := task(t, d, "t"); tk.Loop != LoopForever || tk.Phases[0].Loop != 1 {
					t.Errorf("loops %d/%d", tk.Loop, tk.Phases[0].Loop)
				}
			}},
		{"instance, delay, loop, cpus, policy, priority",
			doc(`"t": {"instance": 3, "delay": 2500, "loop": 7, "cpus": [2, 3], "policy": "SCHED_RR", "priority": 50, "phases": {"p": {"run": 1}}}`),
			func(t *testing.T, d *Description) {
				tk := task(t, d, "t")
				want := Sched{Policy: SchedRR, Priority: 50, PrioritySet: true}
				if tk.Instance != 3 || tk.Delay != 2500 || tk.Loop != 7 || !reflect.DeepEqual(tk.CPUs, []int{2, 3}) || tk.Sched != want {
					t.Errorf("task %+v", tk)
				}
			}},
		{"every policy except deadline",
			doc(`"a": {"policy": "SCHED_OTHER", "run": 1}, "b": {"policy": "SCHED_IDLE", "run": 1}, "c": {"policy": "SCHED_FIFO", "run": 1}, "d": {"policy": "SCHED_RR", "run": 1}, "e": {"policy": "SCHED_BATCH", "priority": 5, "run": 1}`),
			func(t *testing.T, d *Description) {
				want := []Sched{{Policy: SchedOther}, {Policy: SchedIdle}, {Policy: SchedFIFO, Priority: 10}, {Policy: SchedRR, Priority: 10}, {Policy: SchedBatch, Priority: 5, PrioritySet: true}}
				for i, tk := range d.Tasks {
					if tk.Sched != want[i] {
						t.Errorf("%s: %+v, want %+v", tk.Name, tk.Sched, want[i])
					}
				}
			}},
		{"phase-level cpus, policy and priority",
			doc(`"t": {"cpus": [0], "phases": {"a": {"cpus": [1], "policy": "SCHED_FIFO", "run": 1}, "b": {"priority": 70, "run": 1}, "c": {"run": 1}}}`),
			func(t *testing.T, d *Description) {
				ph := task(t, d, "t").Phases
				if !reflect.DeepEqual(ph[0].CPUs, []int{1}) || *ph[0].Sched != (Sched{Policy: SchedFIFO, Priority: 10}) {
					t.Errorf("a: %+v %+v", ph[0].CPUs, ph[0].Sched)
				}
				if *ph[1].Sched != (Sched{Priority: 70, PrioritySet: true}) {
					t.Errorf("b: %+v", ph[1].Sched)
				}
				if ph[2].CPUs != nil || ph[2].Sched != nil {
					t.Errorf("c: %+v", ph[2])
				}
			}},
		{"timer modes and unique",
			doc(`"t": {"timer0": {"ref": "tick", "period": 1000, "mode": "absolute"}, "timer1": {"ref": "uniqueX", "period": 2000}}, "u": {"timer": {"ref": "tick", "period": 1000, "mode": "absolute"}}`),
			func(t *testing.T, d *Description) {
				ev := task(t, d, "t").Phases[0].Events
				if ev[0].Mode != Absolute || ev[0].Unique || ev[1].Mode != Relative || !ev[1].Unique || ev[1].Duration != 2000 {
					t.Errorf("timers %+v", ev)
				}
			}},
		{"condition variables: wait, signal, broad, sync",
			doc(`"a": {"lock": "m", "wait": {"ref": "c", "mutex": "m"}, "unlock": "m"}, "b": {"lock": "m", "signal": "c", "broad": "c", "sync": {"mutex": "m", "ref": "c"}, "unlock": "m"}`),
			func(t *testing.T, d *Description) {
				ev := task(t, d, "b").Phases[0].Events
				if ev[1].Kind != Signal || ev[2].Kind != Broad || ev[3].Kind != Sync || ev[3].Ref != "c" || ev[3].Mutex != "m" {
					t.Errorf("events %+v", ev)
				}
			}},
		{"suspend, resume, yield, semaphores",
			doc(`"a": {"suspend": "a", "suspend1": "", "suspend2": null, "run": 1, "sem_wait": "s"}, "b": {"resume": "a", "yield": "", "yield1": 0, "sem_post": "s", "run": 1}`),
			func(t *testing.T, d *Description) {
				ev := task(t, d, "b").Phases[0].Events
				if ev[0].Kind != Resume || ev[0].Ref != "a" || ev[1].Kind != Yield || ev[2].Kind != Yield || ev[3].Kind != SemPost {
					t.Errorf("events %+v", ev)
				}
			}},
		{"barrier participants count instances",
			doc(`"a": {"instance": 3, "barrier": "x", "run": 1}, "b": {"barrier": "x", "run": 1}, "c": {"instance": 0, "barrier": "x", "run": 1}`),
			func(t *testing.T, d *Description) {
				if len(d.Barriers) != 1 || d.Barriers[0].Participants != 4 || len(d.Barriers[0].Tasks) != 3 {
					t.Errorf("barriers %+v", d.Barriers)
				}
			}},
		{"no-op keys are accepted and noted",
			`{"resources": {}, "frag": 1, "global": {"duration": -1, "calibration": 120, "log_size": 2, "ftrace": true, "io_device": "/dev/null", "mem_buffer_size": 10, "cumulative_slack": true, "unknown_knob": 3},
			 "tasks": {"t": {"nodes_membind": [0], "util_min": 100, "util_max": 1024, "taskgroup": "", "dl-runtime": 0, "run": 1}}}`,
			func(t *testing.T, d *Description) {
				if d.Global.CalibrationNs != 120 || d.Global.LogSize != "2" || d.Global.Ftrace != "true" || !d.Global.CumulativeSlack {
					t.Errorf("global %+v", d.Global)
				}
				paths := map[string]bool{}
				for _, n := range d.Notes {
					paths[n.Path] = true
				}
				for _, p := range []string{"resources", "frag", "global.calibration", "global.unknown_knob", "tasks.t.nodes_membind", "tasks.t.util_min", "tasks.t.taskgroup"} {
					if !paths[p] {
						t.Errorf("no note for %s in %+v", p, d.Notes)
					}
				}
			}},
		{"calibration CPU",
			`{"global": {"calibration": "CPU3"}, "tasks": {"t": {"run": 1}}}`,
			func(t *testing.T, d *Description) {
				if d.Global.CalibrationCPU != 3 {
					t.Errorf("calibration %+v", d.Global)
				}
			}},
		{"unicode and escapes in names",
			doc(`"tâche\u00e9": {"lock": "µ", "unlock": "\u00b5"}`),
			func(t *testing.T, d *Description) {
				if d.Tasks[0].Name != "tâcheé" {
					t.Errorf("name %q", d.Tasks[0].Name)
				}
			}},
		{"a bare suspend is the task's own, as workgen fills it",
			"{\"tasks\": {\n\"sf\": {\n\t\"suspend\",\n\t\"run\": 1 },\n" +
				"\"disp\": {\"phases\": {\"p\": {\"suspend\" /* c */ , \"run\": 2, \"suspend3\" }}},\n" +
				"\"ev\": {\"resume\": \"sf\", \"resume1\": \"disp\", \"suspend\": \"\", \"resume2\": \"\"}}}",
			func(t *testing.T, d *Description) {
				type ev struct {
					key, ref string
					bare     bool
				}
				var got []ev
				for _, tk := range d.Tasks {
					for _, e := range tk.Phases[0].Events {
						got = append(got, ev{e.Key, e.Ref, e.Bare})
					}
				}
				want := []ev{{"suspend", "sf", true}, {"run", "", false},
					{"suspend", "disp", true}, {"run", "", false}, {"suspend3", "disp", true},
					{"resume", "sf", false}, {"resume1", "disp", false}, {"suspend", "ev", true}, {"resume2", "ev", true}}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("events\n%v, want\n%v", got, want)
				}
				if p := task(t, d, "sf").Phases[0].Events[0].Pos; p != (Pos{3, 2}) {
					t.Errorf("bare suspend at %v, want line 3 col 2", p)
				}
			}},
		{"suspend and resume name any shared name",
			doc(`"a": {"instance": 2, "suspend": "go", "run": 1}, "b": {"suspend": "go", "run": 1}, "c": {"run": 1, "resume": "go"}`),
			func(t *testing.T, d *Description) {
				for _, n := range []string{"a", "b"} {
					if e := task(t, d, n).Phases[0].Events[0]; e.Ref != "go" || e.Bare {
						t.Errorf("%s suspends %+v", n, e)
					}
				}
				if len(d.Notes) != 0 {
					t.Errorf("notes %v", d.Notes)
				}
			}},
		{"repeated keys are noted with workgen's names",
			doc(`"t": {"phases": {"p": {"run": 1, "run": 2, "sleep": 1, "run": 3, "sleep": 4}, "p": {"run": 5}}}`),
			func(t *testing.T, d *Description) {
				var got []string
				for _, n := range d.Notes {
					got = append(got, n.Path+" "+n.Msg[:strings.Index(n.Msg, ";")])
				}
				want := []string{
					`tasks.t.phases.p.run repeated key kept as workgen keeps it (as "run1")`,
					`tasks.t.phases.p.run repeated key kept as workgen keeps it (as "run2")`,
					`tasks.t.phases.p.sleep repeated key kept as workgen keeps it (as "sleep2")`,
					`tasks.t.phases.p repeated key kept as workgen keeps it (as "p1")`,
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("notes\n%q, want\n%q", got, want)
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.check(t, mustDecode(t, tc.src))
		})
	}
}

// TestDLParams: dl-runtime, dl-period and dl-deadline default as
// parse_sched_data has them (period from runtime, deadline from period), and
// at task level the legacy runtime (also the runtime event), period and
// deadline keys stand in for them.
func TestDLParams(t *testing.T) {
	for _, tc := range []struct {
		name, task                string
		runtime, period, deadline int64
	}{
		{"runtime only", `{"dl-runtime": 300, "run": 1}`, 300, 300, 300},
		{"runtime and period", `{"dl-runtime": 300, "dl-period": 1000, "run": 1}`, 300, 1000, 1000},
		{"all three", `{"policy": "SCHED_DEADLINE", "dl-runtime": 300, "dl-deadline": 800, "dl-period": 1000, "run": 1}`, 300, 1000, 800},
		{"legacy runtime is the event's", `{"runtime": 2000, "period": 5000}`, 2000, 5000, 5000},
		{"dl- key wins over legacy", `{"dl-runtime": 300, "runtime": 2000}`, 300, 300, 300},
		{"none", `{"run": 1}`, 0, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Decode([]byte(`{"tasks": {"a": ` + tc.task + `}}`))
			if err != nil {
				t.Fatal(err)
			}
			s := d.Tasks[0].Sched
			if s.DLRuntime != tc.runtime || s.DLPeriod != tc.period || s.DLDeadline != tc.deadline {
				t.Errorf("runtime, period, deadline = %d, %d, %d µs, want %d, %d, %d", s.DLRuntime, s.DLPeriod, s.DLDeadline, tc.runtime, tc.period, tc.deadline)
			}
		})
	}
}

package rtapp

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func mustDecode(t *testing.T, src string) *Description {
	t.Helper()
	d, err := Decode([]byte(src))
	if err != nil {
		t.Fatalf("Decode: %v\n%s", err, src)
	}
	return d
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// kinds lists a phase's events as "key=kind" in order.
func kinds(t *testing.T, ph *Phase) []string {
	t.Helper()
	var out []string
	for _, e := range ph.Events {
		out = append(out, e.Key+"="+string(e.Kind))
	}
	return out
}

func task(t *testing.T, d *Description, name string) *Task {
	t.Helper()
	tk := d.Task(name)
	if tk == nil {
		t.Fatalf("no task %q", name)
	}
	return tk
}

// oneTask wraps task bodies into a description.
func doc(tasks string) string { return `{"tasks": {` + tasks + `}}` }

func TestTestdata(t *testing.T) {
	tests := []struct {
		file  string
		check func(t *testing.T, d *Description)
	}{
		{"simple_global.json", func(t *testing.T, d *Description) {
			g := d.Global
			if g.Duration != 4 || g.DefaultPolicy != SchedOther || g.LockPages || g.LogBasename != "simple" || g.Ftrace != "main,task" {
				t.Errorf("global = %+v", g)
			}
			tk := task(t, d, "thread0")
			// An inline task with "loop": its single phase loops, the task once.
			if !tk.Inline || tk.Loop != 1 || tk.Phases[0].Loop != -1 || tk.Instance != 1 {
				t.Errorf("task = %+v, phase loop %d", tk, tk.Phases[0].Loop)
			}
			if got, want := kinds(t, tk.Phases[0]), []string{"run=run", "sleep=sleep"}; !reflect.DeepEqual(got, want) {
				t.Errorf("events %v, want %v", got, want)
			}
			if len(d.Notes) == 0 {
				t.Errorf("no notes for the no-op global keys")
			}
		}},
		{"periodic_phases.json", func(t *testing.T, d *Description) {
			tk := task(t, d, "worker")
			if tk.Instance != 12 || tk.Loop != 1 || len(tk.Phases) != 2 {
				t.Fatalf("task = %+v", tk)
			}
			for i, name := range []string{"warm", "busy"} {
				ph := tk.Phases[i]
				if ph.Name != name || ph.Loop != 10 {
					t.Errorf("phase %d = %q loop %d", i, ph.Name, ph.Loop)
				}
				tm := ph.Events[1]
				if tm.Kind != Timer || !tm.Unique || tm.Duration != 20000 || tm.Mode != Relative || tm.Ref != "unique" {
					t.Errorf("timer = %+v", tm)
				}
			}
		}},
		{"repeated_keys.json", func(t *testing.T, d *Description) {
			p := task(t, d, "producer")
			if p.Sched.Priority != -10 || !reflect.DeepEqual(p.CPUs, []int{0}) {
				t.Errorf("producer = %+v", p)
			}
			want := []string{"lock=lock", "run=run", "signal=signal", "run=run", "unlock=unlock", "run=run", "resume=resume", "timer=timer"}
			if got := kinds(t, p.Phases[1]); !reflect.DeepEqual(got, want) {
				t.Errorf("make events %v, want %v", got, want)
			}
			if e := p.Phases[1].Events[3]; e.Duration != 1000 {
				t.Errorf("second run = %+v", e)
			}
			c := task(t, d, "consumer")
			want = []string{"lock=lock", "wait=wait", "unlock=unlock", "run=run", "suspend=suspend", "run=run", "suspend=suspend", "run=run"}
			if got := kinds(t, c.Phases[0]); !reflect.DeepEqual(got, want) {
				t.Errorf("consumer events %v, want %v", got, want)
			}
			if w := c.Phases[0].Events[1]; w.Ref != "items" || w.Mutex != "m" {
				t.Errorf("wait = %+v", w)
			}
			if c.Loop != 1 || c.Phases[0].Loop != 4 {
				t.Errorf("consumer loops %d/%d", c.Loop, c.Phases[0].Loop)
			}
		}},
		{"numbered_barriers.json", func(t *testing.T, d *Description) {
			want := []string{"runtime1=runtime", "sleep1=sleep", "barrier1=barrier", "runtime2=runtime", "barrier2=barrier", "runtime3=runtime", "sleep3=sleep", "barrier3=barrier"}
			if got := kinds(t, task(t, d, "left").Phases[0]); !reflect.DeepEqual(got, want) {
				t.Errorf("left events %v, want %v", got, want)
			}
			if len(d.Barriers) != 3 {
				t.Fatalf("barriers %+v", d.Barriers)
			}
			for i, name := range []string{"A", "B", "C"} {
				b := d.Barriers[i]
				if b.Name != name || b.Participants != 2 || !reflect.DeepEqual(b.Tasks, []string{"left", "right"}) {
					t.Errorf("barrier %d = %+v", i, b)
				}
			}
			if r := task(t, d, "right"); r.Sched.Policy != SchedFIFO || r.Sched.Priority != 10 {
				t.Errorf("default policy not applied: %+v", r.Sched)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			d, err := Decode(readFile(t, filepath.Join("testdata", tc.file)))
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, d)
		})
	}
}

func TestExamples(t *testing.T) {
	files, err := filepath.Glob("../examples/rtapp/*.json")
	if err != nil || len(files) != 3 {
		t.Fatalf("examples: %v %v", files, err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			d, err := Decode(readFile(t, f))
			if err != nil {
				t.Fatal(err)
			}
			switch filepath.Base(f) {
			case "barrier_group.json":
				if len(d.Barriers) != 2 || d.Barriers[0].Participants != 5 || d.Barriers[1].Participants != 5 {
					t.Errorf("barriers %+v", d.Barriers)
				}
			case "periodic.json":
				periods := map[string]int64{}
				for _, tk := range d.Tasks {
					for _, e := range tk.Phases[0].Events {
						if e.Kind == Timer {
							periods[tk.Name] = e.Duration
						}
					}
				}
				if len(periods) != 3 || periods["fast"] == periods["slow"] {
					t.Errorf("periods %v", periods)
				}
			case "producer_consumer.json":
				if task(t, d, "producer").Delay != 1000 {
					t.Errorf("delay not read")
				}
			}
		})
	}
}

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
				want := []Sched{{SchedOther, 0, false}, {SchedIdle, 0, false}, {SchedFIFO, 10, false}, {SchedRR, 10, false}, {SchedBatch, 5, true}}
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
				if !reflect.DeepEqual(ph[0].CPUs, []int{1}) || *ph[0].Sched != (Sched{SchedFIFO, 10, false}) {
					t.Errorf("a: %+v %+v", ph[0].CPUs, ph[0].Sched)
				}
				if *ph[1].Sched != (Sched{"", 70, true}) {
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
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.check(t, mustDecode(t, tc.src))
		})
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want string // the whole "path: line L col C: message" or a prefix of it
	}{
		{"not an integer duration",
			"{\n \"tasks\": {\n  \"thread0\": {\n   \"phases\": {\n    \"p1\": {\n     \"run0\": \"ten\"\n    }\n   }\n  }\n }\n}",
			`tasks.thread0.phases.p1.run0: line 6 col 14: want an integer number of µs, got "ten"`},
		{"fractional duration",
			doc(`"t": {"sleep": 1.5}`),
			`tasks.t.sleep: line 1 col 27: want an integer number of µs, got 1.5`},
		{"negative duration",
			doc(`"t": {"run": -3}`),
			`tasks.t.run: line 1 col 25: want an integer number of µs in 0..2147483647, got -3`},
		{"unknown event",
			doc(`"t": {"run": 1, "jump": 2}`),
			`tasks.t.jump: line 1 col 28: unknown event or task key`},
		{"prefix-only event name",
			doc(`"t": {"runfast": 1}`),
			`tasks.t.runfast: line 1 col 18: unknown event: rt-app would read it as "run"`},
		{"task key in a phase",
			doc(`"t": {"phases": {"p": {"instance": 2, "run": 1}}}`),
			`tasks.t.phases.p.instance: line 1 col 35: "instance" is a task key, not a phase key`},
		{"global key in a task",
			doc(`"t": {"duration": 2, "run": 1}`),
			`tasks.t.duration: line 1 col 18: "duration" is a global key`},
		{"instance beyond MaxInstances",
			doc(`"t": {"instance": 5000, "run": 1}`),
			`tasks.t.instance: line 1 col 30: want a number of threads in 0..1024, got 5000`},
		{"loop beyond MaxLoop",
			doc(`"t": {"loop": 2000000, "run": 1}`),
			`tasks.t.loop: line 1 col 26: want a loop count (-1: forever) in -1..1000000, got 2000000`},
		{"loop below -1",
			doc(`"t": {"phases": {"p": {"loop": -2, "run": 1}}}`),
			`tasks.t.phases.p.loop: line 1 col 43: want a loop count (-1: forever) in -1..1000000`},
		{"phase loop 0",
			doc(`"t": {"phases": {"p": {"loop": 0, "run": 1}}}`),
			`tasks.t.phases.p.loop: line 1 col 43: want a loop count >= 1 or -1`},
		{"too many threads",
			doc(`"a": {"instance": 1024, "run": 1}, "b": {"instance": 1024, "run": 1}, "c": {"instance": 1024, "run": 1}, "d": {"instance": 1024, "run": 1}, "e": {"instance": 1, "run": 1}`),
			`tasks.e: line 1 col 152: the tasks so far start 4097 threads`},
		{"resume of a missing task",
			doc(`"a": {"resume": "ghost", "run": 1}`),
			`tasks.a.resume: line 1 col 18: resume names "ghost", which is not a task`},
		{"suspend naming another task",
			doc(`"a": {"suspend": "b", "run": 1}, "b": {"resume": "a", "run": 1}`),
			`tasks.a.suspend: line 1 col 29: suspend names "b"`},
		{"wait without mutex",
			doc(`"a": {"lock": "m", "wait": {"ref": "c"}, "unlock": "m"}`),
			`tasks.a.wait: line 1 col 39: missing "mutex"`},
		{"wait without holding the mutex",
			doc(`"a": {"wait": {"ref": "c", "mutex": "m"}, "run": 1}`),
			`tasks.a.wait: line 1 col 18: task a waits on "c" without holding its mutex "m"`},
		{"signal without the waiters' mutex",
			doc(`"a": {"lock": "m", "wait": {"ref": "c", "mutex": "m"}, "unlock": "m"}, "b": {"signal": "c", "run": 1}`),
			`tasks.b.signal: line 1 col 89: task b signals "c" without holding its mutex "m"`},
		{"signal given as an object",
			doc(`"a": {"signal": {"ref": "c", "mutex": "m"}}`),
			`tasks.a.signal: line 1 col 28: want a condition variable name`},
		{"lock never unlocked in its phase",
			doc(`"a": {"phases": {"p": {"lock": "m", "run": 1}, "q": {"unlock": "m"}}}`),
			`tasks.a.phases.p.lock: line 1 col 35: task a locks mutex "m" and does not unlock it before the end of the phase`},
		{"lock twice",
			doc(`"a": {"lock": "m", "lock1": "m", "unlock": "m"}`),
			`tasks.a.lock1: line 1 col 31: task a locks mutex "m" again while holding it (locked at line 1 col 18)`},
		{"unlock not held",
			doc(`"a": {"unlock": "m"}`),
			`tasks.a.unlock: line 1 col 18: task a unlocks mutex "m", which it does not hold here`},
		{"condvar with two mutexes",
			doc(`"a": {"lock": "m", "wait": {"ref": "c", "mutex": "m"}, "unlock": "m"}, "b": {"lock": "n", "wait": {"ref": "c", "mutex": "n"}, "unlock": "n"}`),
			`tasks.b.wait: line 1 col 102: condition variable "c" is used with mutex "n" here and with "m"`},
		{"barrier with one participant",
			doc(`"a": {"barrier": "x", "run": 1}`),
			`tasks.a.barrier: line 1 col 18: barrier "x" has 1 participating thread(s)`},
		{"barrier named twice by one task",
			doc(`"a": {"barrier": "x", "barrier1": "x"}, "b": {"barrier": "x"}`),
			`tasks.a.barrier1: line 1 col 34: task a names barrier "x" a second time`},
		{"shared timer in two modes",
			doc(`"a": {"timer": {"ref": "t", "period": 10, "mode": "absolute"}}, "b": {"timer": {"ref": "t", "period": 10}}`),
			`tasks.b.timer: line 1 col 82: timer "t" is relative here but absolute`},
		{"timer mode misspelt",
			doc(`"a": {"timer": {"ref": "t", "period": 10, "mode": "abs"}}`),
			`tasks.a.timer.mode: line 1 col 62: want "relative" or "absolute", got "abs"`},
		{"timer without ref",
			doc(`"a": {"timer": {"period": 10}}`),
			`tasks.a.timer: line 1 col 27: missing "ref"`},
		{"deadline policy refused",
			doc(`"a": {"policy": "SCHED_DEADLINE", "run": 1}`),
			`tasks.a.policy: line 1 col 28: refused: SCHED_DEADLINE is not modelled`},
		{"dl-runtime refused",
			doc(`"a": {"dl-runtime": 100, "run": 1}`),
			`tasks.a.dl-runtime: line 1 col 18: refused`},
		{"fork refused",
			doc(`"a": {"fork": "a"}`),
			`tasks.a.fork: line 1 col 18: refused: threads created mid-run are not modelled`},
		{"mem refused",
			doc(`"a": {"mem0": 100}`),
			`tasks.a.mem0: line 1 col 18: refused: memory writes`},
		{"iorun refused",
			doc(`"a": {"iorun": 100}`),
			`tasks.a.iorun: line 1 col 18: refused: writes to a device`},
		{"taskgroup refused",
			doc(`"a": {"taskgroup": "/tg", "run": 1}`),
			`tasks.a.taskgroup: line 1 col 31: refused`},
		{"pi_enabled refused",
			`{"global": {"pi_enabled": true}, "tasks": {"a": {"run": 1}}}`,
			`global.pi_enabled: line 1 col 27: refused`},
		{"priority out of range for FIFO",
			doc(`"a": {"policy": "SCHED_FIFO", "priority": 0, "run": 1}`),
			`tasks.a.priority: line 1 col 54: want an RT priority for SCHED_FIFO in 1..99, got 0`},
		{"nice out of range",
			doc(`"a": {"priority": 20, "run": 1}`),
			`tasks.a.priority: line 1 col 30: want a nice value for SCHED_OTHER in -20..19, got 20`},
		{"cpu out of range",
			doc(`"a": {"cpus": [0, 5000], "run": 1}`),
			`tasks.a.cpus: line 1 col 30: want a CPU number in 0..1023, got 5000`},
		{"empty cpus",
			doc(`"a": {"cpus": [], "run": 1}`),
			`tasks.a.cpus: line 1 col 26: empty list`},
		{"repeated property",
			doc(`"a": {"loop": 1, "loop": 2, "run": 1}`),
			`tasks.a.loop: line 1 col 29: repeated key (first at line 1 col 18)`},
		{"repeated task",
			doc(`"a": {"run": 1}, "a": {"run": 2}`),
			`tasks.a: line 1 col 29: repeated key`},
		{"events beside phases",
			doc(`"a": {"run": 1, "phases": {"p": {"run": 1}}}`),
			`tasks.a.run: line 1 col 18: event beside "phases"`},
		{"task without events",
			doc(`"a": {"loop": 3}`),
			`tasks.a: line 1 col 12: no events`},
		{"phase without events",
			doc(`"a": {"phases": {"p": {"loop": 3}}}`),
			`tasks.a.phases.p: line 1 col 29: no events`},
		{"no tasks",
			`{"global": {}}`,
			`line 1 col 1: no "tasks" object`},
		{"empty tasks",
			`{"tasks": {}}`,
			`tasks: line 1 col 11: no tasks`},
		{"top level array",
			`[1]`,
			`line 1 col 1: want an object at the top level`},
		{"syntax error",
			"{\"tasks\": {\n \"a\": {\"run\" 1}}}",
			`tasks.a.run: line 2 col 14: invalid character '1' after object name`},
		{"unterminated comment",
			"{\"tasks\": {}}\n  /* open",
			`line 2 col 3: comment opened here is never closed`},
		{"truncated",
			`{"tasks": {"a": {"run": 1}`,
			`tasks: line 1 col 27: unexpected end of input`},
		{"trailing data",
			`{"tasks": {"a": {"run": 1}}} {}`,
			`line 1 col 31: unexpected data after the top-level object`},
		{"too deep",
			doc(`"a": {"timer": ` + strings.Repeat(`{"x": `, 20) + `1` + strings.Repeat(`}`, 20) + `}`),
			`line 1 col `},
		{"too big",
			`{"tasks": {"a": {"run": 1` + strings.Repeat(" ", MaxInputBytes) + `}}}`,
			`line 1 col 1: input is 262172 bytes; the limit is 262144 (MaxInputBytes)`},
		{"duration 0",
			`{"global": {"duration": 0}, "tasks": {"a": {"run": 1}}}`,
			`global.duration: line 1 col 25: want a number of seconds (-1: no limit), got 0`},
		{"unknown timer field",
			doc(`"a": {"timer": {"ref": "t", "period": 1, "perod": 2}}`),
			`tasks.a.timer.perod: line 1 col 53: unknown field`},
		{"huge integer",
			doc(`"a": {"run": 99999999999999999999999}`),
			`tasks.a.run: line 1 col 25: want an integer number of µs, got 99999999999999999999999 (out of range)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode([]byte(tc.src))
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T %v is not an *Error", err, err)
			}
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error\n  %s\nwant prefix\n  %s", err, tc.want)
			}
		})
	}
}

func TestKeyStatus(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range KeyStatus {
		id := k.Key + "@" + k.Where
		if seen[id] {
			t.Errorf("%s listed twice", id)
		}
		seen[id] = true
		if k.Why == "" {
			t.Errorf("%s has no reason", k.Key)
		}
	}
	// Every event name the decoder knows has a row, and the refused ones
	// are refused.
	for _, e := range eventNames {
		k, ok := keyInfo(e, "event")
		if !ok {
			t.Errorf("event %s has no KeyStatus row", e)
		}
		refused := e == "mem" || e == "memrun" || e == "iorun" || e == "fork"
		if refused != (k.Status == Refused) {
			t.Errorf("event %s status %s", e, k.Status)
		}
	}
	for _, p := range taskProps {
		if _, ok := keyInfo(p, "task"); !ok {
			t.Errorf("task key %s has no KeyStatus row", p)
		}
	}
	table := KeyTable()
	for _, k := range KeyStatus {
		if !strings.Contains(table, k.Key) {
			t.Errorf("KeyTable lacks %s", k.Key)
		}
	}
	if !strings.HasPrefix(table, "KEY") {
		t.Errorf("KeyTable header: %q", table[:20])
	}
}

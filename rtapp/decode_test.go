package rtapp

import (
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
	if err != nil || len(files) != 4 {
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
			case "four_hogs.json":
				forks := map[string]int{}
				for _, ph := range task(t, d, "main").Phases {
					for _, e := range ph.Events {
						if e.Kind == Fork {
							forks[e.Ref]++
						}
					}
				}
				if forks["hog"] != 3 || forks["worker"] != 1 || task(t, d, "hog").Instance != 0 || task(t, d, "worker").Instance != 0 {
					t.Errorf("forks %v; %d hogs and %d workers at the start", forks, task(t, d, "hog").Instance, task(t, d, "worker").Instance)
				}
			case "producer_consumer.json":
				if task(t, d, "producer").Delay != 1000 {
					t.Errorf("delay not read")
				}
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
		refused := e == "mem" || e == "memrun" || e == "iorun"
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

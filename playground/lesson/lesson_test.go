package lesson_test

import (
	"io/fs"
	"reflect"
	"strings"
	"testing"

	"schedplay/examples"
	"schedplay/examples/lessons"
	"schedplay/playground/lesson"
	"schedplay/playground/urlstate"
)

// presetData reads a preset of examples/ by name.
func presetData(name string) ([]byte, bool) {
	data, err := fs.ReadFile(examples.FS, name+".json")
	return data, err == nil
}

// Every lesson shipped decodes and runs as written on the presets it names,
// and each story the product tells has one.
func TestBuiltin(t *testing.T) {
	ls, errs := lesson.Builtin()
	for _, err := range errs {
		t.Error(err)
	}
	for _, l := range ls {
		if err := l.Check(presetData); err != nil {
			t.Errorf("%s: %v", l.Name, err)
		}
	}
	for _, story := range []struct{ name, preset string }{
		{"fan-out", "tpcb-32vcpu"}, {"spin-or-halt", "durable-write"}, {"wake-sync", "hackbench"}, {"spread", "thread-per-conn"},
		{"cores-and-caches", "saturated-sync"},
	} {
		if l, ok := lesson.Find(ls, story.name); !ok || l.Preset != story.preset || len(l.Steps) < 3 {
			t.Errorf("lesson %s: found %v, preset %q, %d steps", story.name, ok, l.Preset, len(l.Steps))
		}
	}
}

// good is a valid lesson; the error cases each break one thing in it.
const good = `{"version":1,"title":"t","summary":"s","preset":"tpcb-32vcpu","set":{"workload.clients":"64"},
 "steps":[{"caption":"at {now}: {throughput_per_s} vs {arm.B.throughput_per_s}","at":"1s","highlight":{"arm":"B","cpu":3}},
          {"caption":"pull","until":{"event":"pull_ipi","arm":"B","after":"100ms","within":"1s"},"set":{"sched.wake_pull":"1"},"speed":"2us"}]}`

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		desc, old, new string
		want           string // the error's beginning: where, then what
	}{
		{"not JSON", `{"version"`, `{"version"]`, "version: malformed JSON"},
		{"unknown field at the top", `"summary"`, `"sumary"`, "sumary: unknown field"},
		{"unknown field in a step", `"highlight":{"arm":"B"`, `"hilight":{"arm":"B"`, "step 1: hilight: unknown field"},
		{"negative vCPU", `"cpu":3`, `"cpu":-1`, "step 1: highlight.cpu: -1 is not a vCPU"},
		{"wrong type", `"at":"1s"`, `"at":1`, "step 1: at: want a string"},
		{"wrong type deep", `"cpu":3`, `"cpu":"3"`, "step 1: highlight.cpu: want a whole number, not a string"},
		{"unknown field, with the fields there are", `"at":"1s"`, `"when":"1s"`,
			"step 1: when: unknown field (the fields here are caption, preset, set, compare, at, until, highlight, speed, policy, workload)"},
		{"fraction for a vCPU", `"cpu":3`, `"cpu":1.5`, "step 1: highlight.cpu: 1.5 is not a whole number"},
		{"exponent for a vCPU", `"cpu":3`, `"cpu":3e0`, "step 1: highlight.cpu: 3e0 is not in plain digits: write 3"},
		{"huge vCPU", `"cpu":3`, `"cpu":1e30`, "step 1: highlight.cpu: 1e30 is out of range: want a whole number from"},
		{"number for a knob value", `"workload.clients":"64"`, `"workload.clients":64`, "set.workload.clients: want a string, not a number"},
		{"number for a knob value in a step", `"sched.wake_pull":"1"`, `"sched.wake_pull":true`, "step 2: set.sched.wake_pull: want a string, not a boolean"},
		{"object for a step", `{"caption":"pull"`, `7,{"caption":"pull"`, "step 2: want an object, not a number"},
		{"string for the steps", `"steps":[`, `"steps":"none","x":[`, "steps: want an array, not a string"},
		{"future version", `"version":1`, `"version":2`, "version: is 2"},
		{"no title", `"title":"t"`, `"title":" "`, "title: want 1 to"},
		{"no preset", `"preset":"tpcb-32vcpu",`, ``, "preset: is missing"},
		{"no steps", `"steps":[`, `"steps":[],"x":[`, "x: unknown field"},
		{"empty caption", `"caption":"pull"`, `"caption":""`, "step 2: caption: want 1 to"},
		{"long caption", `"caption":"pull"`, `"caption":"` + strings.Repeat("x", lesson.MaxCaptionBytes+1) + `"`, "step 2: caption: want 1 to"},
		{"unknown placeholder", `{now}`, `{tps}`, "step 1: caption: {tps}: not a placeholder"},
		{"unclosed placeholder", `{now}:`, `{now:`, "step 1: caption: a { without its }"},
		{"placeholder with a bad arm", `{arm.B.throughput_per_s}`, `{arm.C.throughput_per_s}`, "step 1: caption: {arm.C.throughput_per_s}: the arm is A or B"},
		{"both at and until", `"at":"1s"`, `"at":"1s","until":{"event":"halt"}`, `step 1: give either "at"`},
		{"neither", `"at":"1s",`, ``, `step 1: give either "at"`},
		{"bad moment", `"at":"1s"`, `"at":"1 s"`, "step 1: at: "},
		{"bad event", `"pull_ipi"`, `"pull"`, `step 2: until.event: "pull" is not one of pull_ipi, donation`},
		{"bad arm", `"arm":"B","after"`, `"arm":"C","after"`, `step 2: until.arm: "C" is not A or B`},
		{"zero within", `"within":"1s"`, `"within":"0s"`, "step 2: until.within:"},
		{"bad knob", `"sched.wake_pull":"1"`, `"sched.wake_pul":"1"`, "step 2: set: sched.wake_pul"},
		{"bad knob value", `"workload.clients":"64"`, `"workload.clients":"many"`, "set: workload.clients"},
		{"bad speed", `"speed":"2us"`, `"speed":"fast"`, "step 2: speed:"},
		{"bad compare", `"set":{"workload`, `"compare":"nope","set":{"workload`, "compare:"},
		{"two highlight targets", `"cpu":3`, `"cpu":3,"role":"waker"`, `step 1: highlight: give one of`},
		{"bad role", `"cpu":3`, `"role":"king"`, `step 1: highlight.role: "king" is not`},
		{"duplicate field", `"title":"t"`, `"title":"t","title":"u"`, "title: the field appears twice"},
		{"duplicate field in a step", `"at":"1s"`, `"at":"1s","at":"2s"`, "step 1: at: the field appears twice"},
		{"unknown example policy", `"at":"1s"`, `"at":"1s","policy":{"example":"scx_magic"}`, `step 1: policy.example: "scx_magic" is not one of the example policies (scx_simple, `},
		{"an edit not in the policy", `"at":"1s"`, `"at":"1s","policy":{"example":"scx_simple","replace":[["LIFO = True","LIFO = False"]]}`, `step 1: policy.replace.0: "LIFO = True" is not in the policy`},
		{"an edit that applies twice", `"at":"1s"`, `"at":"1s","policy":{"example":"scx_simple","replace":[["FIFO","fifo"]]}`, `step 1: policy.replace.0: "FIFO" appears more than once`},
		{"unknown example workload", `"at":"1s"`, `"at":"1s","workload":{"example":"hogs"}`, `step 1: workload.example: "hogs" is not one of the example rt-app workloads (barrier_group, four_hogs, `},
		{"workload without its example", `"at":"1s"`, `"at":"1s","workload":{"name":"four_hogs"}`, `step 1: workload.name: unknown field`},
		{"an edit of three strings", `"at":"1s"`, `"at":"1s","policy":{"example":"scx_simple","replace":[["a","b","c"]]}`, `step 1: policy.replace.0: `},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			data := strings.Replace(good, tc.old, tc.new, 1)
			if data == good {
				t.Fatalf("the case changes nothing: %q not in the lesson", tc.old)
			}
			_, err := lesson.Decode("x", []byte(data))
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("Decode: %v, want an error starting %q", err, tc.want)
			}
		})
	}
	if _, err := lesson.Decode("good", []byte(good)); err != nil {
		t.Fatalf("the valid lesson: %v", err)
	}
}

// Check names the step that would not run on its scenario.
func TestCheckErrors(t *testing.T) {
	tests := []struct {
		desc, old, new string
		want           string
	}{
		{"no such preset", `"preset":"tpcb-32vcpu"`, `"preset":"nope"`, `step 1: preset: there is no preset "nope"`},
		{"knob the engine refuses", `"workload.clients":"64"`, `"workload.clients":"100000"`, "step 1: set: workload.clients"},
		{"no vCPU 40", `"cpu":3`, `"cpu":40`, "step 1: highlight.cpu: the machine has 32 vCPUs"},
		{"moment past the end", `"at":"1s"`, `"at":"30s"`, "step 1: at: 30s is after the run's end"},
		{"arm B of one run", `"set":{"workload`, `"compare":"off","set":{"workload`, "step 1: highlight.arm: there is no arm B"},
		{"arm B in a caption of one run", `"highlight":{"arm":"B","cpu":3}`, `"compare":"off"`, "step 1: caption: {arm.B.throughput_per_s} needs two arms"},
		{"a compared value the scenario refuses", `"set":{"workload`, `"compare":"workload.waker_cpu:0,40","set":{"workload`,
			`step 1: compare: arm "workload.waker_cpu=40" sets workload.waker_cpu=40: 40 is above the maximum 31`},
		{"a compared value that conflicts with the lesson's knobs", `"set":{"workload.clients":"64"}`,
			`"set":{"workload.clients":"64","workload.waker_cpu":"3"},"compare":"machine.vcpus:2,32"`,
			`step 1: compare: arm "machine.vcpus=2" sets machine.vcpus=2, which conflicts with the scenario: workload.waker_cpu: 3 is above the maximum 1`},
		{"a compared value that conflicts with a step's knobs", `"set":{"sched.wake_pull":"1"}`,
			`"set":{"sched.wake_pull":"1","workload.spawn_cpu":"5"},"compare":"machine.vcpus:2,32"`,
			`step 2: compare: arm "machine.vcpus=2" sets machine.vcpus=2, which conflicts with the scenario: workload.spawn_cpu: 5 is above the maximum 1`},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			data := strings.Replace(good, tc.old, tc.new, 1)
			l, err := lesson.Decode("x", []byte(data))
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if err := l.Check(presetData); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("Check: %v, want an error starting %q", err, tc.want)
			}
		})
	}
}

// Knobs, compare and speed carry over; a step naming a preset starts afresh.
func TestSetup(t *testing.T) {
	l, err := lesson.Decode("x", []byte(`{"version":1,"title":"t","preset":"tpcb-32vcpu","set":{"seed":"3"},"compare":"arms","steps":[
		{"caption":"a","at":"1s","set":{"workload.clients":"16"},"speed":"2us"},
		{"caption":"b","at":"2s","set":{"workload.clients":"32","sched.wake_pull":"1"},"compare":"off"},
		{"caption":"c","at":"1s","preset":"idle-guest","set":{"warmup_ms":"100"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []lesson.Setup{
		{Preset: "tpcb-32vcpu", Knobs: []urlstate.Knob{{Path: "seed", Value: "3"}, {Path: "workload.clients", Value: "16"}}, Compare: "arms", Speed: "2us"},
		{Preset: "tpcb-32vcpu", Knobs: []urlstate.Knob{{Path: "seed", Value: "3"}, {Path: "sched.wake_pull", Value: "1"}, {Path: "workload.clients", Value: "32"}}, Compare: "off", Speed: "2us"},
		{Preset: "idle-guest", Knobs: []urlstate.Knob{{Path: "warmup_ms", Value: "100"}}, Compare: "off", Speed: "2us"},
	}
	for i, w := range want {
		if got := l.Setup(i); !reflect.DeepEqual(got, w) {
			t.Errorf("step %d: %+v, want %+v", i+1, got, w)
		}
	}
}

// A step's rt-app workload carries over like its knobs, and a step naming a
// preset goes back to the preset's own workload; the arms run it as the page
// does, from zero for its global.duration, with the knobs applied after.
func TestSetupWorkload(t *testing.T) {
	l, err := lesson.Decode("x", []byte(`{"version":1,"title":"t","preset":"saturated-sync","compare":"off","steps":[
		{"caption":"a","at":"1ms","set":{"sched.policy":"linux","machine.topology":"1n1l4c2t"},"workload":{"example":"four_hogs"}},
		{"caption":"b","at":"2ms","set":{"seed":"2"}},
		{"caption":"c","at":"1s","preset":"saturated-sync"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	data, _ := presetData("saturated-sync")
	for i, want := range []struct {
		rtapp    bool
		kind     string
		duration int64
	}{{true, "rtapp", 1000}, {true, "rtapp", 1000}, {false, "sync_pairs", 2500}} {
		s := l.Setup(i)
		if (s.RTApp != "") != want.rtapp {
			t.Errorf("step %d: rt-app workload %v, want %v", i+1, s.RTApp != "", want.rtapp)
		}
		arms, err := s.Arms(data)
		if err != nil {
			t.Fatalf("step %d: %v", i+1, err)
		}
		if sc := arms[0]; sc.Workload.Kind != want.kind || sc.DurationMs != want.duration || want.rtapp && (sc.WarmupMs != 0 || sc.Machine.VCPUs != 8) {
			t.Errorf("step %d: %s for %d ms (warm-up %d) on %d CPUs, want %s for %d ms", i+1, sc.Workload.Kind, sc.DurationMs, sc.WarmupMs, sc.Machine.VCPUs, want.kind, want.duration)
		}
	}
}

// examplesLesson reads a lesson file of examples/lessons.
func examplesLesson(name string) ([]byte, error) {
	return fs.ReadFile(lessons.FS, name+".json")
}

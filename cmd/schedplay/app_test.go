package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"schedplay/engine"
)

// TestExitCodes runs whole command lines and checks status, that errors are one
// "schedplay: " line naming the problem (usage after bad flags), and that nothing
// looks like a stack trace.
func TestExitCodes(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		code    int
		errHas  []string // substrings of stderr
		outHas  []string // substrings of stdout
		noUsage bool     // stderr must not contain usage
	}{
		{"no command", nil, 2, []string{"usage: schedplay COMMAND"}, nil, false},
		{"help", []string{"help"}, 0, nil, []string{"usage: schedplay COMMAND", "sweep"}, true},
		{"unknown command", []string{"frobnicate"}, 2, []string{`schedplay: unknown command "frobnicate"`, "usage:"}, nil, false},
		{"run ok", []string{"run", "ab"}, 0, nil, []string{"throughput_per_s", "800.0"}, true},
		{"run -h", []string{"run", "-h"}, 0, nil, []string{"usage: schedplay run FILE", "--set"}, true},
		{"run missing file arg", []string{"run"}, 2, []string{"schedplay: run: missing FILE", "usage: schedplay run"}, nil, false},
		{"run two files", []string{"run", "ab", "plain"}, 2, []string{`unexpected argument "plain"`}, nil, false},
		{"run bad flag", []string{"run", "ab", "--nope"}, 2, []string{"schedplay: flag provided but not defined: -nope", "usage: schedplay run"}, nil, false},
		{"run bad format", []string{"run", "ab", "--format", "xml"}, 2, []string{`"xml" is not one of table, json, csv`}, nil, false},
		{"run no such file", []string{"run", "nope.json"}, 2, []string{"schedplay: nope.json: no such file, and no preset of that name (presets: ab, plain)"}, nil, true},
		{"knob out of range", []string{"run", "ab", "--set", "machine.vcpus=0"}, 2, []string{"schedplay: ab: machine.vcpus: 0 is below the minimum 1"}, nil, true},
		{"knob bad type", []string{"run", "ab", "--set", "workload.clients=many"}, 2, []string{`schedplay: ab: workload.clients: "many" is not a whole number`}, nil, true},
		{"knob unknown", []string{"run", "ab", "--set", "sched.nope=1"}, 2, []string{"schedplay: ab: sched.nope: unknown knob"}, nil, true},
		{"knob without value", []string{"run", "ab", "--set", "machine.vcpus"}, 2, []string{"machine.vcpus", "path=value"}, nil, true},
		{"trace window empty", []string{"run", "ab", "--trace", "out.json", "--trace-ms", "0"}, 2, []string{"schedplay: --trace-ms 0: need a positive window"}, nil, true},
		{"trace window after the end", []string{"run", "ab", "--trace", "out.json", "--trace-from-ms", "999999"}, 2, []string{"--trace-from-ms 999999: the run ends at"}, nil, true},
		{"sweep needs vary", []string{"sweep", "ab"}, 2, []string{"--vary path=v1,v2,... is required", "usage: schedplay sweep"}, nil, false},
		{"sweep bad vary value", []string{"sweep", "ab", "--vary", "workload.clients=1,two"}, 2, []string{`schedplay: --vary: workload.clients: "two" is not a whole number`}, nil, true},
		{"sweep unknown vary knob", []string{"sweep", "ab", "--vary", "workload.nope=1"}, 2, []string{"workload.nope: unknown knob"}, nil, true},
		{"sweep vary out of range", []string{"sweep", "ab", "--vary", "workload.clients=4,99999"}, 2, []string{"workload.clients=99999, arm off: ab: workload.clients: 99999 is above the maximum"}, nil, true},
		{"sweep vary empty value", []string{"sweep", "ab", "--vary", "workload.clients=4,,8"}, 2, []string{"empty value"}, nil, true},
		{"sweep vary no values", []string{"sweep", "ab", "--vary", "workload.clients"}, 2, []string{"want path=v1,v2"}, nil, true},
		{"sweep vary clashes with arm", []string{"sweep", "ab", "--vary", "sched.wake_pull=0,1"}, 2, []string{`arm "off" also sets it`}, nil, true},
		{"sweep bad arms", []string{"sweep", "ab", "--vary", "workload.clients=4", "--arms", "sched.wake_pull=maybe"}, 2, []string{`--arms: sched.wake_pull: "maybe" is not true or false`}, nil, true},
		{"sweep arms above the limit", []string{"sweep", "ab", "--vary", "workload.clients=4", "--arms", "seed=1,2,3,4,5,6,7,8,9"}, 2, []string{"schedplay: --arms: arms: has 9 arms, above the limit 8"}, nil, true},
		{"sweep arm off the machine", []string{"sweep", "ab", "--vary", "workload.clients=4", "--arms", "workload.waker_cpu=0,7"}, 2,
			[]string{`schedplay: --arms: arms.1.set.workload.waker_cpu: arm "waker_cpu=7" sets workload.waker_cpu=7: 7 is above the maximum 3`}, nil, true},
		{"sweep jobs 0", []string{"sweep", "ab", "--vary", "workload.clients=4", "--jobs", "0"}, 2, []string{"--jobs 0: need at least 1"}, nil, false},
		{"sweep ok", []string{"sweep", "ab", "--vary", "workload.clients=4,8"}, 0, []string{"sweep: 4 runs (2 values x 2 arms)"}, []string{"on/off", "2.00x"}, true},
		{"calibrate extra arg", []string{"calibrate", "x"}, 2, []string{`calibrate: unexpected argument "x"`}, nil, false},
		{"list", []string{"list"}, 0, nil, []string{"ab", "A small pull off/on A/B for the CLI tests. [arms off/on; 4 published points]", "plain"}, true},
		{"knobs", []string{"knobs"}, 0, nil, []string{"machine.vcpus", "sched.wake_pull", "bool", "default (kvm)"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newTestApp(t, fakeSim)
			code := a.main(tc.args)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tc.code, a.errOut)
			}
			errS, outS := a.errOut.String(), a.out.String()
			for _, s := range tc.errHas {
				if !strings.Contains(errS, s) {
					t.Errorf("stderr lacks %q:\n%s", s, errS)
				}
			}
			for _, s := range tc.outHas {
				if !strings.Contains(outS, s) {
					t.Errorf("stdout lacks %q:\n%s", s, outS)
				}
			}
			if tc.noUsage && strings.Contains(errS, "usage:") {
				t.Errorf("stderr has usage, want only the message:\n%s", errS)
			}
			if code == 2 && !strings.HasPrefix(errS, "schedplay: ") && !strings.HasPrefix(errS, "usage: ") {
				t.Errorf("stderr does not start with \"schedplay: \":\n%s", errS)
			}
			if strings.Contains(errS, "goroutine ") || strings.Contains(errS, ".go:") {
				t.Errorf("stderr looks like a stack trace:\n%s", errS)
			}
		})
	}
}

// TestEnginePanicIsAnError: a model bug in one run is reported as an error naming
// the run, with exit 2 and no stack trace.
func TestEnginePanicIsAnError(t *testing.T) {
	a := newTestApp(t, func(sc engine.Scenario) (engine.Results, error) {
		if sc.Workload.Clients == 8 && sc.Sched.WakePull {
			panic("runqueue corrupted")
		}
		return fakeSim(sc)
	})
	code := a.main([]string{"sweep", "ab", "--vary", "workload.clients=4,8", "--jobs", "2"})
	if code != 2 {
		t.Fatalf("exit %d, want 2", code)
	}
	want := "schedplay: ab workload.clients=8 arm on: the engine failed: runqueue corrupted\n"
	if got := a.errOut.String(); got != want {
		t.Errorf("stderr = %q, want %q", got, want)
	}
	if a.out.Len() != 0 {
		t.Errorf("stdout has output after a failed sweep:\n%s", a.out)
	}
}

// TestParse checks flags before, between and after positional arguments, "--",
// and "-" as a positional argument (stdin).
func TestParse(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		pos     []string
		sets    []string
		format  string
		wantErr string
	}{
		{[]string{"f.json"}, []string{"f.json"}, nil, "table", ""},
		{[]string{"f.json", "--set", "a=1", "--set=b=2", "-format", "csv"}, []string{"f.json"}, []string{"a=1", "b=2"}, "csv", ""},
		{[]string{"--set", "a=1", "f.json", "--format=json", "g"}, []string{"f.json", "g"}, []string{"a=1"}, "json", ""},
		{[]string{"-", "--set", "a=1"}, []string{"-"}, []string{"a=1"}, "table", ""},
		{[]string{"--set", "a=1", "--", "--set", "x"}, []string{"--set", "x"}, []string{"a=1"}, "table", ""},
		{[]string{"f.json", "--set"}, nil, nil, "", "flag needs an argument: -set"},
		{[]string{"f.json", "--format", "yaml"}, nil, nil, "", `"yaml" is not one of`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			a := newTestApp(t, fakeSim)
			fs := a.newFlagSet("t", "")
			var sets stringList
			format := formatFlag("table")
			fs.Var(&sets, "set", "")
			fs.Var(&format, "format", "")
			pos, err := parse(fs, tc.args, a.app)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(pos, "|") != strings.Join(tc.pos, "|") || strings.Join(sets, "|") != strings.Join(tc.sets, "|") || string(format) != tc.format {
				t.Errorf("pos %q sets %q format %q; want %q %q %q", pos, sets, format, tc.pos, tc.sets, tc.format)
			}
		})
	}
}

// TestLoad covers the ways to name a scenario: a path, stdin, a preset name.
func TestLoad(t *testing.T) {
	for _, tc := range []struct {
		arg, stdin, label, wantErr string
	}{
		{arg: "testdata/examples/plain.json", label: "testdata/examples/plain.json"},
		{arg: "plain", label: "plain"},
		{arg: "plain.json", label: "plain"},
		{arg: "-", stdin: `{"version":1,"name":"piped"}`, label: "stdin"},
		{arg: "../plain", wantErr: "no such file, and no preset"},
		{arg: "testdata/examples", wantErr: "testdata/examples"},
	} {
		t.Run(tc.arg, func(t *testing.T) {
			a := newTestApp(t, fakeSim)
			a.stdin = strings.NewReader(tc.stdin)
			src, err := a.load(tc.arg)
			if err == nil && tc.wantErr == "" {
				_, err = src.decode()
			}
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if src.label != tc.label {
				t.Errorf("label %q, want %q", src.label, tc.label)
			}
		})
	}
}

// TestStdinTooLarge: an endless stdin is cut at the scenario size limit and refused.
func TestStdinTooLarge(t *testing.T) {
	a := newTestApp(t, fakeSim)
	a.stdin = strings.NewReader(`{"version":1,"description":"` + strings.Repeat("x", engine.MaxScenarioBytes) + `"}`)
	if code := a.main([]string{"run", "-"}); code != 2 || !strings.Contains(a.errOut.String(), fmt.Sprintf("stdin: the scenario is larger than the limit of %d bytes", engine.MaxScenarioBytes)) {
		t.Errorf("exit %d, stderr %q", code, a.errOut)
	}
}

// TestRunTrace: --trace writes a Chrome trace of the chosen window that parses as
// the trace-event object form, and still prints the run's metrics.
func TestRunTrace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.json")
	a := newTestApp(t, fakeSim)
	code := a.main([]string{"run", "ab", "--set", "duration_ms=20", "--set", "warmup_ms=5", "--trace", path, "--trace-ms", "2", "--format", "json"})
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, a.errOut)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("trace is not JSON: %v", err)
	}
	if len(doc.TraceEvents) == 0 {
		t.Fatal("trace has no events")
	}
	if !strings.Contains(a.out.String(), "throughput_per_s") {
		t.Errorf("run output lacks the metrics:\n%s", a.out)
	}
}

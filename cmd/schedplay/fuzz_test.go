package main

import (
	"strings"
	"testing"

	"schedplay/engine"
)

// FuzzParseList: --vary/--arms parsing never panics, and what it accepts is a knob
// with at least one value that the engine parses.
func FuzzParseList(f *testing.F) {
	for _, s := range []string{"workload.clients=8,16,32", "sched.wake_pull=0,1", "x", "=1", "machine.vcpus=", "a=b=c", "seed=1,,2", "duration_ms= 5 ,6"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		path, vals, err := parseList("--vary", s)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "--vary") {
				t.Errorf("error %q does not name the flag", err)
			}
			return
		}
		if len(vals) == 0 {
			t.Fatalf("%q accepted with no values", s)
		}
		for _, v := range vals {
			if _, err := engine.KnobValue(path, v); err != nil {
				t.Errorf("%q accepted value %q the engine rejects: %v", s, v, err)
			}
		}
	})
}

// FuzzCommandLine feeds arbitrary run and sweep command lines (arguments separated
// by NUL) through main: every outcome is exit 0 or an exit-2 "schedplay: " message,
// never a panic. Commands that write files or listen (calibrate, serve, --trace)
// and arguments naming other files are left out.
func FuzzCommandLine(f *testing.F) {
	for _, s := range []string{
		"run\x00ab", "run\x00ab\x00--set\x00machine.vcpus=3\x00--format\x00csv",
		"run\x00plain\x00--format=json", "run\x00-", "run\x00--set", "run\x00ab\x00--\x00x",
		"sweep\x00ab\x00--vary\x00workload.clients=1,2", "sweep\x00plain\x00--vary\x00seed=1,2\x00--arms\x00sched.wake_pull=0,1\x00--jobs\x003",
		"sweep\x00ab\x00--vary\x00sched.wake_pull=1", "sweep\x00ab\x00--jobs\x00-1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Split(line, "\x00")
		if args[0] != "run" && args[0] != "sweep" {
			return
		}
		for _, a := range args {
			if strings.Contains(a, "trace") || strings.Contains(a, "/") {
				return
			}
		}
		a := newTestApp(t, fakeSim)
		a.stdin = strings.NewReader(`{"version":1,"duration_ms":100,"warmup_ms":10}`)
		switch code := a.main(args); code {
		case 0:
		case 2:
			if !strings.HasPrefix(a.errOut.String(), "schedplay: ") {
				t.Errorf("exit 2 without a schedplay: message: %q", a.errOut)
			}
		default:
			t.Errorf("exit %d", code)
		}
	})
}

package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"schedplay/engine"
)

const lisaTrace = "../../kerneltrace/testdata/lisa-trace.txt"

// A kernel trace given to run is detected, wrapped (linux, the trace's CPU
// count) and replayed; the table has recorded beside replayed per thread and
// per process, and the JSON everything under trace.
func TestRunKernelTrace(t *testing.T) {
	a := newTestApp(t, engine.Run)
	if code := a.main([]string{"run", lisaTrace, "--process", "sshd", "--window", "0:5000"}); code != 0 {
		t.Fatalf("exit %d: %s", code, a.errOut)
	}
	out := a.out.String()
	for _, want := range []string{"6 vCPUs native, linux, trace", "trace replay (closed loop", "cpu ms rec", "sshd", "model: "} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	a = newTestApp(t, engine.Run)
	if code := a.main([]string{"run", lisaTrace, "--set", "machine.vcpus=2", "--set", "workload.trace_all_timed=true", "--format", "json"}); code != 0 {
		t.Fatalf("exit %d: %s", code, a.errOut)
	}
	var r struct {
		Trace struct {
			AllTimed bool `json:"all_timed"`
			Threads  []struct {
				Name               string
				Tid                int32
				Recorded, Replayed struct {
					CPUMs float64 `json:"cpu_ms"`
				}
			} `json:"threads"`
			Processes []struct{ Name string } `json:"processes"`
		} `json:"trace"`
	}
	if err := json.Unmarshal(a.out.Bytes(), &r, json.RejectUnknownMembers(false)); err != nil {
		t.Fatal(err)
	}
	if !r.Trace.AllTimed || len(r.Trace.Threads) < 10 || len(r.Trace.Processes) == 0 {
		t.Fatalf("trace results: %+v", r.Trace)
	}
	for _, th := range r.Trace.Threads {
		if th.Recorded.CPUMs > 0 && th.Replayed.CPUMs == 0 {
			t.Errorf("%s (%d) ran %.3f ms recorded, none replayed", th.Name, th.Tid, th.Recorded.CPUMs)
		}
	}
}

// A trace file is streamed from disk (decodeTraceFile), stdin is read
// whole: the same trace gives the same run either way.
func TestRunKernelTraceFileAsStdin(t *testing.T) {
	lisa, err := os.ReadFile(lisaTrace)
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"--window", "100:2000", "--format", "json"}
	file := newTestApp(t, engine.Run)
	if code := file.main(append([]string{"run", lisaTrace}, args...)); code != 0 {
		t.Fatalf("exit %d: %s", code, file.errOut)
	}
	stdin := newTestApp(t, engine.Run)
	stdin.stdin = bytes.NewReader(lisa)
	if code := stdin.main(append([]string{"run", "-"}, args...)); code != 0 {
		t.Fatalf("exit %d: %s", code, stdin.errOut)
	}
	// The label (file name or stdin) names the scenario; the rest agrees.
	a := strings.ReplaceAll(file.out.String(), "lisa-trace", "stdin")
	a = strings.ReplaceAll(a, lisaTrace, "stdin")
	if b := stdin.out.String(); a != b || !strings.Contains(b, `"threads"`) {
		t.Fatalf("file and stdin runs differ:\n%.800s\n%.800s", a, b)
	}
}

// Errors name what is wrong: the flag, the file, the knob.
func TestRunKernelTraceErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", lisaTrace, "--window", "5:1"}, `--window "5:1": want FROM:TO`},
		{[]string{"run", lisaTrace, "--process", "nosuch"}, "no process matches --process nosuch"},
		{[]string{"run", "testdata/examples/ab.json", "--window", "0:1"}, "is not one (Perfetto, ftrace text or trace.dat)"},
		{[]string{"run", lisaTrace, "--set", "machine.vcpus=0"}, "machine.vcpus: 0 is below the minimum 1"},
	} {
		a := newTestApp(t, engine.Run)
		if code := a.main(tc.args); code != 2 || !strings.Contains(a.errOut.String(), tc.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 with %q", tc.args, code, a.errOut, tc.want)
		}
	}
}

// FuzzTraceSource: whatever a trace-looking input holds, decoding it as run
// does is a scenario or an error, never a panic (go test -fuzz FuzzTraceSource
// explores; the seeds run always).
func FuzzTraceSource(f *testing.F) {
	lisa, err := os.ReadFile(lisaTrace)
	if err != nil {
		f.Fatal(err)
	}
	head := lisa[:min(len(lisa), 6000)]
	f.Add(head, "")
	f.Add(head, "0:1")
	f.Add([]byte("# tracer: nop\n  <idle>-0 [000] d..2 1.000000: sched_switch: prev_comm=a prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=b next_pid=5 next_prio=-1\n"), "0:0.5")
	f.Add([]byte("\x17\x08\x44tracing6\x00"), "")
	f.Add([]byte{0x0a, 0x02, 0x08, 0x01}, "")
	f.Fuzz(func(t *testing.T, data []byte, window string) {
		if !looksTrace(data) {
			return
		}
		sc, err := source{label: "t", data: data, trace: traceOpts{window: window}}.decode()
		if err == nil && sc.Workload.Kind != engine.WorkloadTrace {
			t.Fatalf("decoded as %q", sc.Workload.Kind)
		}
		if err == nil {
			s, err := engine.NewSim(sc)
			if err != nil {
				t.Fatal(err)
			}
			s.StepN(2000)
			var b bytes.Buffer
			if err := writeRun(&b, "table", sc, s.Results()); err != nil {
				t.Fatal(err)
			}
		}
	})
}

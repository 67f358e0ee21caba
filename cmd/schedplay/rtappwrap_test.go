package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"schedplay/engine"
)

// TestRTAppWrap: an rt-app file is wrapped in a scenario with the documented
// defaults and its own description as workload.rtapp.
func TestRTAppWrap(t *testing.T) {
	for _, tc := range []struct {
		name       string
		src        string
		durationMs int64
	}{
		{"no global", `{"tasks": {"t": {"run": 1000}}}`, engine.DefaultScenario().DurationMs},
		{"global.duration", "/* c */ {\"global\": {\"duration\": 7}, \"tasks\": {\"t\": {\"run\": 1000,},},}", 7000},
		{"global.duration -1", `{"global": {"duration": -1}, "tasks": {"t": {"run": 1000}}}`, engine.DefaultScenario().DurationMs},
		{"undecodable keeps the default", `{"global": {"duration": "x"}, "tasks": {}}`, engine.DefaultScenario().DurationMs},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, err := wrapRTApp([]byte(tc.src), "my")
			if err != nil {
				t.Fatal(err)
			}
			var sc engine.Scenario
			if err := json.Unmarshal(data, &sc); err != nil {
				t.Fatal(err)
			}
			w := sc.Workload
			if w.Kind != engine.WorkloadRTApp || w.RTApp != tc.src {
				t.Errorf("workload kind %q, rtapp %q", w.Kind, w.RTApp)
			}
			if sc.Machine.VCPUs != 4 || sc.Sched.Policy != "linux" || sc.WarmupMs != 0 || sc.DurationMs != tc.durationMs || sc.Name != "my" {
				t.Errorf("vcpus %d policy %s warmup %d duration %d name %q", sc.Machine.VCPUs, sc.Sched.Policy, sc.WarmupMs, sc.DurationMs, sc.Name)
			}
		})
	}
}

// TestRunRTAppFile: "schedplay run FILE" reads an rt-app file, --set applies to
// the wrapping scenario, and problems are named with the file's line:col; a
// valid file runs.
func TestRunRTAppFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "my-rtapp.json")
	src := "{\n\t\"global\": {\"duration\": 2},\n\t\"tasks\": {\"t\": {\"cpus\": [6], \"run\": 1000}}\n}\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		err  string
	}{
		{"CPU off the default machine", nil, file + ": workload.rtapp: tasks.t.cpus: line 3 col 12: CPU 6: the machine has 4 vCPUs (0..3)"},
		{"--set duration_ms past rt-app's end", []string{"--set", "machine.vcpus=8", "--set", "duration_ms=3000"},
			file + ": workload.rtapp: global.duration: rt-app stops at 2 s, before duration_ms=3000 ends the run"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newTestApp(t, fakeSim)
			if code := a.main(append([]string{"run", file}, tc.args...)); code != 2 {
				t.Errorf("exit %d, want 2", code)
			}
			if got := a.errOut.String(); !strings.HasPrefix(got, "schedplay: "+tc.err) {
				t.Errorf("stderr\n  %s\nwant prefix\n  schedplay: %s", got, tc.err)
			}
		})
	}
	// With the CPU it names, it runs.
	a := newTestApp(t, fakeSim)
	if code := a.main([]string{"run", file, "--set", "machine.vcpus=8"}); code != 0 {
		t.Errorf("run with --set machine.vcpus=8: exit %d: %s", code, a.errOut)
	}
	// A scenario is never taken for an rt-app file.
	a = newTestApp(t, fakeSim)
	if code := a.main([]string{"run", "ab"}); code != 0 {
		t.Errorf("run ab: exit %d: %s", code, a.errOut)
	}
}

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"schedplay/engine"
)

// rtappTestFile writes a small rt-app description (a periodic thread, a
// second task with two instances) into a temporary directory.
func rtappTestFile(t *testing.T) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "periodic.json")
	src := `{"global": {"duration": 1, "log_basename": "demo"}, "tasks": {
		"tick": {"run": 1000, "timer": {"ref": "unique", "period": 10000}},
		"busy": {"instance": 2, "loop": 5, "run": 3000, "sleep": 1000}}}`
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// TestRunRTAppTable: the table output has the per-task rt-app table, and the
// JSON the rtapp results.
func TestRunRTAppTable(t *testing.T) {
	file := rtappTestFile(t)
	a := newTestApp(t, engine.Run)
	if code := a.main([]string{"run", file}); code != 0 {
		t.Fatalf("exit %d: %s", code, a.errOut)
	}
	out := a.out.String()
	for _, want := range []string{"rt-app tasks", "task  threads  done  loops", "\ntick ", "\nbusy "} {
		if !strings.Contains(out, want) {
			t.Errorf("table output lacks %q:\n%s", want, out)
		}
	}
	a = newTestApp(t, engine.Run)
	if code := a.main([]string{"run", file, "--format", "json"}); code != 0 {
		t.Fatalf("exit %d: %s", code, a.errOut)
	}
	var r engine.Results
	if err := json.Unmarshal(a.out.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.RTApp.Tasks) != 2 || r.RTApp.Tasks[0].Name != "tick" || r.RTApp.Tasks[0].TimedLoops < 99 || r.RTApp.Tasks[1].Finished != 2 {
		t.Errorf("rtapp results %+v", r.RTApp)
	}
}

// TestRunRTAppLog: --rtapp-log writes one file per thread, named as rt-app
// names them, with rt-app's header and one row per loop pass in log_timing's
// eleven columns.
func TestRunRTAppLog(t *testing.T) {
	file := rtappTestFile(t)
	dir := filepath.Join(t.TempDir(), "logs")
	a := newTestApp(t, engine.Run)
	if code := a.main([]string{"run", file, "--rtapp-log", dir}); code != 0 {
		t.Fatalf("exit %d: %s", code, a.errOut)
	}
	for _, tc := range []struct {
		name string
		rows int
	}{{"demo-tick-0.log", 99}, {"demo-busy-1.log", 5}, {"demo-busy-2.log", 5}} {
		b, err := os.ReadFile(filepath.Join(dir, tc.name))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		if lines[0] != strings.TrimSuffix(engine.RTAppLogHeader(), "\n") || !strings.HasPrefix(lines[0], "#idx     perf      run   period") {
			t.Errorf("%s header %q", tc.name, lines[0])
		}
		if len(lines)-1 != tc.rows {
			t.Errorf("%s has %d rows, want %d", tc.name, len(lines)-1, tc.rows)
		}
		for _, l := range lines[1:] {
			if n := len(strings.Fields(l)); n != 11 {
				t.Fatalf("%s row %q has %d columns", tc.name, l, n)
			}
		}
	}
	// With --from, the log would miss the run's start: refused.
	a = newTestApp(t, engine.Run)
	if code := a.main([]string{"run", file, "--rtapp-log", dir, "--from", "x.ckpt"}); code != 2 || !bytes.Contains(a.errOut.Bytes(), []byte("--rtapp-log")) {
		t.Errorf("--rtapp-log with --from: exit %d: %s", code, a.errOut)
	}
}

package main

import (
	"os"
	"path/filepath"
	"testing"

	"schedplay/engine"
	"schedplay/kerneltrace"
)

// TestTraceFlagWritesPerfetto: --trace with a Perfetto file name writes
// Perfetto's protobuf, which kerneltrace reads back as one; any other name
// keeps the Chrome JSON, which holds no kernel scheduler events for it to read.
func TestTraceFlagWritesPerfetto(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		want kerneltrace.Format
	}{{"run.pftrace", kerneltrace.FormatPerfetto}, {"run.json", kerneltrace.FormatUnknown}} {
		out := filepath.Join(dir, tc.name)
		a := newTestApp(t, engine.Run)
		if code := a.main([]string{"run", "../../examples/hackbench.json", "--set", "sched.policy=linux", "--trace", out, "--trace-ms", "2"}); code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.name, code, a.errOut)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if got := kerneltrace.Detect(data); got != tc.want {
			t.Errorf("%s: detected as %q, want %q", tc.name, got, tc.want)
		}
	}
}

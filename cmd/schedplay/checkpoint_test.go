package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"schedplay/engine"
)

// A run resumed from its checkpoint prints what the run from zero prints, in
// every format, and so does the run that saves the checkpoint on its way.
func TestRunCheckpointResumes(t *testing.T) {
	dir := t.TempDir()
	for _, format := range []string{"json", "table", "csv"} {
		t.Run(format, func(t *testing.T) {
			ck := filepath.Join(dir, format+".ckpt")
			outputs := map[string]string{}
			for _, c := range []struct {
				desc string
				args []string
			}{
				{"from zero", nil},
				{"saving at 120ms", []string{"--checkpoint-at", "120ms", "--checkpoint-out", ck}},
				{"resumed", []string{"--from", ck}},
			} {
				a := newTestApp(t, engine.Run)
				args := append([]string{"run", "ab", "--set", "sched.wake_pull=true", "--format", format}, c.args...)
				if code := a.main(args); code != 0 {
					t.Fatalf("%s: exit %d; stderr:\n%s", c.desc, code, a.errOut)
				}
				outputs[c.desc] = a.out.String()
			}
			for desc, out := range outputs {
				if out != outputs["from zero"] {
					t.Errorf("%s prints:\n%s\nthe run from zero:\n%s", desc, out, outputs["from zero"])
				}
			}
			info, err := engine.ReadCheckpointInfo(mustRead(t, ck))
			if err != nil || info.NowNs != 120e6 {
				t.Fatalf("the checkpoint file: %+v, %v", info, err)
			}
		})
	}
}

// A checkpoint that does not fit the run is refused with exit 2 and a message
// saying what differs: other --set values, another scenario, another format
// version, a damaged file.
func TestRunCheckpointRefused(t *testing.T) {
	dir := t.TempDir()
	ck := filepath.Join(dir, "ab.ckpt")
	a := newTestApp(t, engine.Run)
	if code := a.main([]string{"run", "ab", "--checkpoint-at", "100ms", "--checkpoint-out", ck}); code != 0 {
		t.Fatalf("saving: exit %d; stderr:\n%s", code, a.errOut)
	}
	data := mustRead(t, ck)
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	version := append([]byte(nil), data...)
	version[4] = engine.CheckpointVersion + 1
	truncated := write("truncated.ckpt", data[:len(data)/2])
	for _, tc := range []struct {
		desc string
		args []string
		want []string
	}{
		{"other --set", []string{"run", "ab", "--set", "workload.clients=4", "--from", ck},
			[]string{"another scenario than ab", "workload.clients is 8 there, 4 here"}},
		{"two knobs differ", []string{"run", "ab", "--set", "workload.clients=4", "--set", "seed=3", "--from", ck},
			[]string{"seed is 7 there, 3 here", "workload.clients is 8 there, 4 here"}},
		{"another preset", []string{"run", "plain", "--from", ck}, []string{"another scenario than plain: it was taken from \"ab\"; seed is 7 there, 1 here"}},
		{"another version", []string{"run", "ab", "--from", write("v.ckpt", version)},
			[]string{fmt.Sprintf("format version %d", engine.CheckpointVersion+1), fmt.Sprintf("reads version %d", engine.CheckpointVersion)}},
		{"truncated", []string{"run", "ab", "--from", truncated}, []string{"truncated"}},
		{"not a checkpoint", []string{"run", "ab", "--from", write("x.json", []byte("{}"))}, []string{"not a schedplay checkpoint"}},
		{"no such file", []string{"run", "ab", "--from", filepath.Join(dir, "nope")}, []string{"--from", "no such file"}},
		{"checkpoint after the end", []string{"run", "ab", "--checkpoint-at", "1s", "--checkpoint-out", ck}, []string{"after the run's end (200 ms)"}},
		{"checkpoint before the resume", []string{"run", "ab", "--from", ck, "--checkpoint-at", "50ms", "--checkpoint-out", filepath.Join(dir, "b")}, []string{"before 100ms, where the run resumes"}},
		{"checkpoint time without a unit", []string{"run", "ab", "--checkpoint-at", "100", "--checkpoint-out", ck}, []string{"not a moment like 12s"}},
		{"checkpoint without a file", []string{"run", "ab", "--checkpoint-at", "100ms"}, []string{"--checkpoint-at and --checkpoint-out go together"}},
		{"with a trace", []string{"run", "ab", "--from", ck, "--trace", filepath.Join(dir, "t.json")}, []string{"cannot be combined with checkpoints"}},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			a := newTestApp(t, engine.Run)
			if code := a.main(tc.args); code != 2 {
				t.Fatalf("exit %d, want 2; stderr:\n%s", code, a.errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(a.errOut.String(), w) {
					t.Errorf("stderr lacks %q:\n%s", w, a.errOut)
				}
			}
			if a.out.Len() > 0 {
				t.Errorf("a refused run printed results:\n%s", a.out)
			}
		})
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

package rtapp

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestWorkgenReadsAlike: Decode reads a file as rt-app reads what workgen
// (the script LISA and workload-automation run first) makes of it: for each
// of rt-app's example files, the file and workgen's rewrite of it decode to
// the same tasks, phases and events, bare suspends and repeated keys
// included. Debian's rt-app package installs both (.ci/run installs it).
func TestWorkgenReadsAlike(t *testing.T) {
	workgen, err := exec.LookPath("workgen")
	dir := os.Getenv("SCHEDPLAY_RTAPP_EXAMPLES")
	if dir == "" {
		dir = "/usr/share/doc/rt-app/examples"
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	more, _ := filepath.Glob(filepath.Join(dir, "tutorial", "*.json"))
	files = append(files, more...)
	if err != nil || len(files) == 0 {
		if os.Getenv("CI") != "" {
			t.Fatalf("workgen (%v) or rt-app's examples in %s are missing: .ci/run installs Debian's rt-app package", err, dir)
		}
		t.Skip("workgen and rt-app's examples come with Debian's rt-app package: apt-get install rt-app")
	}
	out := t.TempDir()
	for _, f := range files {
		name := strings.TrimPrefix(strings.ReplaceAll(strings.TrimPrefix(f, dir), "/", "_"), "_")
		t.Run(name, func(t *testing.T) {
			rewritten := filepath.Join(out, name)
			cmd := exec.Command(workgen, "-d", "-o", rewritten, f)
			cmd.Dir = out
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("workgen: %v: %s", err, b)
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			wg, err := os.ReadFile(rewritten)
			if err != nil {
				t.Fatal(err)
			}
			d1, err1 := Decode(src)
			d2, err2 := Decode(wg)
			if (err1 == nil) != (err2 == nil) {
				t.Fatalf("the file: %v; workgen's rewrite: %v", err1, err2)
			}
			if err1 != nil {
				// Refused alike (what the engine does not model): the same
				// message, at the same place.
				if err1.Error() != err2.Error() {
					t.Errorf("refused differently:\n  file:    %v\n  workgen: %v", err1, err2)
				}
				return
			}
			if got, want := shape(d1), shape(d2); !reflect.DeepEqual(got, want) {
				t.Errorf("the file reads as\n%s\nworkgen's rewrite as\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// shape lists what a description runs, without its keys' spellings and
// places (workgen renames repeated keys, phases' too): each task's phases in
// order, with their events in order.
func shape(d *Description) []string {
	var out []string
	for _, tk := range d.Tasks {
		for i, ph := range tk.Phases {
			line := fmt.Sprintf("%s phase %d loop %d:", tk.Name, i, ph.Loop)
			for _, e := range ph.Events {
				line += fmt.Sprintf(" %s(%s,%s,%s)=%d", e.Kind, e.Ref, e.Mutex, e.Mode, e.Duration)
			}
			out = append(out, line)
		}
	}
	return out
}

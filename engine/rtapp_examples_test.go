package engine

import (
	"os"
	"path/filepath"
	"testing"

	"schedplay/rtapp"
)

// TestRTAppExamplesRun: every description in examples/rtapp runs under every
// policy for its global.duration, every task makes progress, and none
// deadlocks.
func TestRTAppExamplesRun(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "examples", "rtapp", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	policies, _ := LookupKnob("sched.policy")
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		d, err := rtapp.Decode(src)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, p := range policies.Choices {
			t.Run(filepath.Base(f)+"/"+p, func(t *testing.T) {
				sc := rtappScenario(string(src))
				sc.Sched.Policy = p
				if d.Global.Duration > 0 {
					sc.DurationMs = int64(d.Global.Duration) * 1000
				}
				r, err := Run(sc)
				if err != nil {
					t.Fatal(err)
				}
				if len(r.RTApp.Deadlock.Threads) > 0 {
					t.Errorf("deadlock: %+v", r.RTApp.Deadlock)
				}
				for _, k := range r.RTApp.Tasks {
					if k.Loops == 0 {
						t.Errorf("task %s made no pass", k.Name)
					}
				}
			})
		}
	}
}

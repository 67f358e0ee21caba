package engine

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzRTAppRun: any description Validate accepts runs without a panic, within
// the horizon, and its checkpoint taken midway resumes. Seeds: the examples,
// the tests' descriptions and the decoder's testdata.
//
//	go test ./engine -run '^$' -fuzz FuzzRTAppRun -fuzztime 1m
func FuzzRTAppRun(f *testing.F) {
	for _, glob := range []string{"testdata/rtapp/*.json", "../examples/rtapp/*.json", "../rtapp/testdata/*.json"} {
		files, _ := filepath.Glob(glob)
		for _, p := range files {
			b, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(string(b))
		}
	}
	f.Add(ckRTAppMix)
	f.Add(`{"tasks": {"t": {"loop": -1, "lock": "m", "unlock": "m"}}}`)
	f.Add(`{"tasks": {"t": {"timer": {"ref": "x", "period": 1}, "yield": 1, "sleep": 0, "run": 0}}}`)
	// glibc's locks raced for, a barrier passed alone, suspend on a shared
	// name, semaphores retried, runtime chunks, log writes.
	f.Add(`{"tasks": {"a": {"loop": -1, "lock": "m", "run": 200, "unlock": "m", "barrier": "b", "suspend": "go", "sem_wait": "s"},
		"b": {"instance": 2, "loop": -1, "lock": "m", "runtime": 33, "unlock": "m", "barrier": "b", "resume": "go", "sem_post": "s", "sem_post1": "s"}}}`)
	f.Add(`{"global": {"duration": 1, "log_size": "file"}, "tasks": {"a": {"loop": -1, "lock": "m", "wait": {"ref": "c", "mutex": "m"}, "unlock": "m", "run": 10},
		"b": {"loop": -1, "lock": "m", "broad": "c", "unlock": "m", "runtime": 0}}}`)
	f.Fuzz(func(t *testing.T, src string) {
		sc := rtappScenario(src)
		sc.Machine.VCPUs = 2
		sc.DurationMs = 5
		if sc.Validate() != nil {
			return
		}
		runResumedMidway(t, sc, 2e6)
	})
}

// runResumedMidway runs sc to atNs, checkpoints it, resumes the checkpoint
// and runs it to the horizon, which it must not pass; it returns the results.
func runResumedMidway(t *testing.T, sc Scenario, atNs int64) Results {
	t.Helper()
	s, err := NewSim(sc)
	if err != nil {
		t.Fatal(err)
	}
	s.SetVisual(false)
	s.RunUntil(atNs)
	ck, err := s.AppendCheckpoint(nil, CheckpointOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := Resume(sc, ck)
	if err != nil {
		t.Fatalf("resume: %v", err)
	}
	r.SetVisual(false)
	res := r.Run()
	if r.NowNs() > r.EndNs() {
		t.Fatalf("ran to %d ns, past the horizon %d", r.NowNs(), r.EndNs())
	}
	return res
}

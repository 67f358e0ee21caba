package wasmbuild_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"schedplay/engine"
	"schedplay/internal/wasmbuild"
	"schedplay/playground"
	"schedplay/playground/lesson"
)

// statesRepo is a repository with a small preset of two arms and a lesson
// whose second step starts past the first second: what EnsureCheckpoints reads.
func statesRepo(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"examples/small.json": `{"version":1,"name":"small","seed":3,"duration_ms":1500,"warmup_ms":40,"series_interval_ms":50,
			"machine":{"vcpus":2,"platform":"kvm"},"workload":{"kind":"request_server","clients":3},
			"arms":[{"name":"off","set":{"sched.wake_pull":"false"}},{"name":"on","set":{"sched.wake_pull":"true"}}]}`,
		"examples/lessons/tour.json": `{"version":1,"title":"A tour","summary":"s","preset":"small","steps":[
			{"caption":"early","at":"10ms"},{"caption":"late","at":"1200ms"}]}`,
	}
	for _, d := range []string{"engine", "trace", "view", "playground", "wasm"} {
		files[d+"/doc.go"] = "package x\n"
	}
	writeTree(t, root, files)
	return root
}

// EnsureCheckpoints saves, for every scenario BundledStates lists, a pack of
// its checkpoints at its moments, under its key, with an index and labels;
// Bundle counts the index but no pack, Checkpoints lists the packs; an
// up-to-date set is left alone, and a pack no longer listed is removed.
func TestEnsureCheckpoints(t *testing.T) {
	root := statesRepo(t)
	var log bytes.Buffer
	if err := wasmbuild.EnsureCheckpoints(root, &log); err != nil {
		t.Fatal(err)
	}
	presets, _ := playground.LoadPresets(os.DirFS(filepath.Join(root, "examples")))
	lessons, errs := lesson.Load(os.DirFS(filepath.Join(root, "examples", "lessons")))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	want, err := playground.BundledStates(presets, lessons)
	if err != nil || len(want) != 2 {
		t.Fatalf("BundledStates: %d scenarios, %v (want the two arms)", len(want), err)
	}
	packs, err := wasmbuild.Checkpoints(root)
	if err != nil || len(packs) != len(want) {
		t.Fatalf("Checkpoints: %+v, %v", packs, err)
	}
	for _, b := range want {
		key := b.Scenario.Key().String()
		data, err := os.ReadFile(filepath.Join(root, wasmbuild.CheckpointsDir, key+".ckp"))
		if err != nil {
			t.Fatal(err)
		}
		cks, err := engine.ReadCheckpointPack(data)
		if err != nil {
			t.Fatal(err)
		}
		var at []int64
		for _, ck := range cks {
			if ck.Key.String() != key {
				t.Errorf("pack %s holds a checkpoint of %s", key, ck.Key)
			}
			if _, err := engine.Resume(b.Scenario, ck.Data); err != nil {
				t.Errorf("pack %s at %d ns: %v", key, ck.NowNs, err)
			}
			at = append(at, ck.NowNs)
		}
		if !slices.Equal(at, []int64{40e6, 1200e6}) {
			t.Errorf("pack %s is at %v, want the warm-up's end and the lesson step", key, at)
		}
		if !slices.ContainsFunc(packs, func(p wasmbuild.SavedPack) bool { return p.Key == key && p.Gzip > 0 }) {
			t.Errorf("Checkpoints does not list %s", key)
		}
	}
	labels, _ := os.ReadFile(filepath.Join(root, wasmbuild.CheckpointsLabels))
	if !strings.Contains(string(labels), "small, arm A (off); lesson tour step 2, arm A (off)") {
		t.Errorf("labels.txt:\n%s", labels)
	}
	parts, err := wasmbuild.Bundle(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) != 1 || parts[0].Name != "checkpoints/index.txt" {
		t.Errorf("the first visit counts %+v, want the index alone", parts)
	}

	// Up to date: nothing is saved again.
	log.Reset()
	if err := wasmbuild.EnsureCheckpoints(root, &log); err != nil || log.Len() != 0 {
		t.Errorf("an up-to-date set was saved again (%v): %q", err, log.String())
	}
	// The lesson goes and a preset changes: the old packs go with them.
	os.RemoveAll(filepath.Join(root, "examples", "lessons"))
	p := filepath.Join(root, "examples", "small.json")
	data, _ := os.ReadFile(p)
	os.WriteFile(p, bytes.Replace(data, []byte(`"seed":3`), []byte(`"seed":4`), 1), 0o644)
	// An edit comes after the build: within the same tick of the kernel's
	// coarse file clock the two times would be equal, and "newer" false.
	if idx, err := os.Stat(filepath.Join(root, wasmbuild.CheckpointsIndex)); err == nil {
		later := idx.ModTime().Add(time.Second)
		os.Chtimes(p, later, later)
	}
	if err := wasmbuild.EnsureCheckpoints(root, &log); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "small.json is newer") {
		t.Errorf("log %q should name the newer input", log.String())
	}
	ents, _ := os.ReadDir(filepath.Join(root, wasmbuild.CheckpointsDir))
	if len(ents) != 2+2*3 { // index, labels, and a pack with its .gz and .br for each arm
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("after the change the directory holds %v", names)
	}
}

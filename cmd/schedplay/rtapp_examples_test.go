package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"schedplay/engine"
)

// rt-app's own example descriptions (its doc/examples), as its Debian package
// installs them (.ci/run installs it): every one runs through the CLI, or is
// refused only for a mechanism the scheduling-classes issue adds, each listed
// here with that reason. The files are rt-app's, read where they are
// installed, not copied into this repository.

// rtappExamplesDir is where the rt-app package puts its examples;
// SCHEDPLAY_RTAPP_EXAMPLES points elsewhere (a checkout of rt-app's
// doc/examples, which has a few more tutorial files).
func rtappExamplesDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("SCHEDPLAY_RTAPP_EXAMPLES")
	if dir == "" {
		dir = "/usr/share/doc/rt-app/examples"
	}
	if _, err := os.Stat(filepath.Join(dir, "tutorial")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("rt-app's examples are not at %s (%v): .ci/run installs Debian's rt-app package", dir, err)
		}
		t.Skipf("rt-app's examples are not at %s: apt-get install rt-app, or set SCHEDPLAY_RTAPP_EXAMPLES", dir)
	}
	return dir
}

// rtappRefusals are the example files the engine refuses under the CLI's
// defaults (sched.policy=linux), by path below the examples directory: a
// part of the refusal's message, and the mechanism the scheduling-classes
// issue turns on for it.
var rtappRefusals = map[string]struct{ msg, mechanism string }{
	"tutorial/example6.json": {"refused: memory writes", "memory"},
}

func TestRTAppExamplesRunOrAreRefusedForAClass(t *testing.T) {
	dir := rtappExamplesDir(t)
	var files []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() && rel == "merge" {
			return filepath.SkipDir // parts of one description, for doc/merge.py
		}
		if !d.IsDir() && strings.HasSuffix(p, ".json") {
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	tutorials := 0
	for _, f := range files {
		if strings.HasPrefix(f, "tutorial/") {
			tutorials++
		}
	}
	if tutorials < 7 {
		t.Fatalf("%d tutorial files in %s, want rt-app's (7 or more): %v", tutorials, dir, files)
	}
	for _, f := range files {
		t.Run(f, func(t *testing.T) {
			path := filepath.Join(dir, f)
			a := newTestApp(t, engine.Run)
			code := a.main([]string{"run", path, "--format", "json"})
			want, refused := rtappRefusals[f]
			switch {
			case !refused && code != 0:
				t.Fatalf("exit %d, want a run: %s", code, a.errOut)
			case refused && code == 0:
				t.Fatalf("ran; it is listed as refused for %s (%q): take it off the list", want.mechanism, want.msg)
			case refused && !strings.Contains(a.errOut.String(), want.msg):
				t.Fatalf("refused for another reason than %s (%q):\n%s", want.mechanism, want.msg, a.errOut)
			case refused:
				return
			}
			var res engine.Results
			if err := json.Unmarshal(a.out.Bytes(), &res); err != nil {
				t.Fatal(err)
			}
			if len(res.RTApp.Tasks) == 0 || slices.ContainsFunc(res.RTApp.Tasks, func(k engine.RTAppTaskResults) bool { return k.Loops == 0 && k.Threads > 0 }) {
				t.Errorf("a task made no pass: %+v", res.RTApp.Tasks)
			}
			src, _ := os.ReadFile(path)
			if named := strings.Contains(string(src), `"taskgroup" : "/tg1`); named && (len(res.TaskGroups) == 0 || res.TaskGroups[0].Path != "/tg1" || res.TaskGroups[0].CPUMs == 0) {
				t.Errorf("the threads ran in no task group: %+v", res.TaskGroups)
			}
		})
	}
}

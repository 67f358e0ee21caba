package wasmbuild

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestInputDirsCoverTheBundle: every package of this module that the page or
// the engine worker links lives under one of inputDirs, so that changing any
// of its files (an embedded table included) makes EnsureBuilt rebuild the
// bundle instead of serving a stale one.
func TestInputDirsCoverTheBundle(t *testing.T) {
	if runtime.GOOS == "js" {
		t.Skip("no go command under wasm")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}} {{.Dir}}{{end}}", "./wasm", "./wasm/worker")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, dir, _ := strings.Cut(line, " ")
		rel, err := filepath.Rel(root, dir)
		if err != nil || strings.HasPrefix(rel, "..") {
			continue // a dependency outside the repository, pinned by go.sum
		}
		covered := false
		for _, d := range inputDirs() {
			if rel == filepath.FromSlash(d) || strings.HasPrefix(rel, filepath.FromSlash(d)+string(filepath.Separator)) {
				covered = true
			}
		}
		if !covered {
			t.Errorf("%s (%s) is in the bundle but not under inputDirs: a change to it would not rebuild the wasm", path, rel)
		}
	}
}

package engine

import (
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// TestImportBoundaries: the engine imports no front end (wasm, web, cmd, trace)
// and nothing that draws or serves; web never imports the browser app.
func TestImportBoundaries(t *testing.T) {
	if runtime.GOOS == "js" {
		t.Skip("no go command under wasm")
	}
	for _, tc := range []struct {
		pkg       string
		forbidden []string
	}{
		{"schedplay/engine", []string{"schedplay/wasm", "schedplay/web", "schedplay/cmd", "schedplay/trace", "syscall/js", "net/http", "github.com/hajimehoshi/ebiten"}},
		{"schedplay/web/...", []string{"schedplay/wasm", "github.com/hajimehoshi/ebiten"}},
	} {
		out, err := exec.Command("go", "list", "-deps", tc.pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", tc.pkg, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, f := range tc.forbidden {
				if dep == f || strings.HasPrefix(dep, f+"/") {
					t.Errorf("%s imports %s", tc.pkg, dep)
				}
			}
		}
	}
}

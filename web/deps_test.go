package web

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestDeps keeps the package boundaries STYLE.md sets: web (and so the Worker)
// never imports the playground's wasm packages, and the preview package, which
// both share, imports only the engine, the standard library, golang.org/x/image
// (with the x/text tables its font parser needs and the x/sys/cpu feature
// detection its rasterizer's SIMD paths use) and the engine's JSON library.
func TestDeps(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	deps := func(pkg string, env ...string) []string {
		t.Helper()
		cmd := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", pkg)
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go list %s: %v\n%s", pkg, err, out)
		}
		return strings.Fields(string(out))
	}
	// The Worker is built for js/wasm; on the host it is a stub with no imports.
	for pkg, env := range map[string][]string{"schedplay/web": nil, "schedplay/web/worker": {"GOOS=js", "GOARCH=wasm"}} {
		for _, d := range deps(pkg, env...) {
			if strings.HasPrefix(d, "schedplay/wasm") {
				t.Errorf("%s imports %s", pkg, d)
			}
		}
	}
	allowed := []string{"schedplay/engine", "schedplay/preview", "golang.org/x/image/", "golang.org/x/text/", "golang.org/x/sys/cpu", "github.com/go-json-experiment/json"}
	for _, d := range deps("schedplay/preview") {
		ok := false
		for _, a := range allowed {
			ok = ok || strings.HasPrefix(d, a)
		}
		if !ok {
			t.Errorf("schedplay/preview imports %s", d)
		}
	}
}

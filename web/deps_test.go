package web

import (
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
	deps := func(pkg string) []string {
		t.Helper()
		out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list %s: %v\n%s", pkg, err, out)
		}
		return strings.Fields(string(out))
	}
	for _, pkg := range []string{"schedplay/web", "schedplay/web/worker"} {
		for _, d := range deps(pkg) {
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

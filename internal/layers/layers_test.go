package layers

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// pkg is what go list says of one package of the module.
type pkg struct {
	ImportPath string   `json:"ImportPath"`
	Dir        string   `json:"Dir"`
	GoFiles    []string `json:"GoFiles"`
	Imports    []string `json:"Imports"`
	Deps       []string `json:"Deps"`
}

// listModule lists every package of the module as built for goos/goarch.
func listModule(t *testing.T, goos, goarch string) map[string]pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-json=ImportPath,Dir,GoFiles,Imports,Deps", "./...")
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list (%s/%s): %v", goos, goarch, err)
	}
	pkgs := map[string]pkg{}
	dec := jsontext.NewDecoder(strings.NewReader(string(out)))
	for dec.PeekKind() != 0 {
		var p pkg
		if err := json.UnmarshalDecode(dec, &p); err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkgs[p.ImportPath] = p
		// go test caches a result by the files and directories the test opened;
		// go list read the sources in another process, so open them here too.
		os.ReadDir(p.Dir)
		for _, f := range p.GoFiles {
			os.Stat(filepath.Join(p.Dir, f))
		}
	}
	if len(pkgs) == 0 {
		t.Fatal("go list found no packages")
	}
	return pkgs
}

// shells are the js/wasm shells: the only packages that may talk to the browser,
// Ebiten or the Workers runtime. web is one only in its js/wasm build (the KV
// store); on the host it is neutral.
func isShell(path, goos string) bool {
	switch {
	case path == "schedplay/wasm" || strings.HasPrefix(path, "schedplay/wasm/"):
		return true
	case path == "schedplay/web/cloudflare" || strings.HasPrefix(path, "schedplay/web/cloudflare/"):
		return true
	case path == "schedplay/web/internal/jsawait":
		return true
	case path == "schedplay/web":
		return goos == "js"
	}
	return false
}

// isHostTool says path is a program that only runs on the host (the CLI and
// the build tools), so its js/wasm build is never made.
func isHostTool(path string) bool {
	for _, p := range []string{"schedplay/cmd/", "schedplay/internal/wasmbuild", "schedplay/web/cloudflare/mkassets", "schedplay/e2e"} {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

// platformImports are what only a shell may import.
var platformImports = []string{"syscall/js", "github.com/hajimehoshi/ebiten/v2", "github.com/syumai/workers"}

func isPlatform(imp string) bool {
	for _, p := range platformImports {
		if imp == p || strings.HasPrefix(imp, p+"/") {
			return true
		}
	}
	return false
}

// TestNeutralPackagesImportNoPlatform: no neutral package imports syscall/js,
// Ebiten or the Workers runtime, directly or through a schedplay package (the
// standard library's own use of syscall/js under js/wasm does not count).
func TestNeutralPackagesImportNoPlatform(t *testing.T) {
	if runtime.GOOS == "js" {
		t.Skip("no go command under wasm")
	}
	for _, target := range [][2]string{{runtime.GOOS, runtime.GOARCH}, {"js", "wasm"}} {
		goos := target[0]
		pkgs := listModule(t, goos, target[1])
		for path, p := range pkgs {
			if isShell(path, goos) || goos == "js" && isHostTool(path) {
				continue
			}
			for _, dep := range append(slices.Clone(p.Deps), path) {
				d, ours := pkgs[dep]
				if !ours {
					continue
				}
				for _, imp := range d.Imports {
					if isPlatform(imp) {
						t.Errorf("%s/%s: neutral package %s imports %s (through %s)", goos, target[1], path, imp, dep)
					}
				}
			}
		}
	}
}

// TestLayerOrder: each layer imports only the layers below it.
func TestLayerOrder(t *testing.T) {
	if runtime.GOOS == "js" {
		t.Skip("no go command under wasm")
	}
	for _, target := range [][2]string{{runtime.GOOS, runtime.GOARCH}, {"js", "wasm"}} {
		checkLayerOrder(t, listModule(t, target[0], target[1]), target[0]+"/"+target[1])
	}
}

func checkLayerOrder(t *testing.T, pkgs map[string]pkg, target string) {
	t.Helper()
	for _, tc := range []struct {
		pkg       string
		forbidden []string
		except    []string // packages (and their subpackages) a forbidden prefix does not cover
	}{
		// The engine is pure: no front end, nothing that draws or serves. It
		// may read rt-app descriptions, through rtapp, which is as pure, and
		// replay a kernel trace's model, from kerneltrace, as pure again.
		{"schedplay/engine", []string{"schedplay/", "net/http", "go.starlark.net"}, []string{"schedplay/rtapp", "schedplay/kerneltrace"}},
		// The rt-app decoder stands alone: the engine and the CLI use it.
		{"schedplay/rtapp", []string{"schedplay/", "net/http", "go.starlark.net"}, nil},
		// So does the kernel-trace reader, for the engine to replay traces.
		{"schedplay/kerneltrace", []string{"schedplay/", "net/http", "go.starlark.net"}, nil},
		// A policy's interpreter sits on the engine only; the page's engine
		// workers and the view model do not carry it (the first-visit bundle
		// has no room for it), the CLI does.
		{"schedplay/scxstar", []string{"schedplay/view", "schedplay/playground", "schedplay/preview", "schedplay/web", "schedplay/cmd", "schedplay/wasm"}, nil},
		// (The policy worker, wasm/worker built with -tags scx, links it; this
		// check lists the default build.) The share servers, cmd/schedplay
		// (serve) and web/cloudflare, link it too: they host link previews,
		// which run a share's own policy; package web takes the compiler as an
		// option (web.WithCompiler) rather than import it.
		{"schedplay/wasm", []string{"schedplay/scxstar", "go.starlark.net"}, nil},
		{"schedplay/playground", []string{"schedplay/scxstar", "go.starlark.net"}, nil},
		// The calibration's verdicts, quoted in view's formats; view itself
		// does not carry them, as the engine worker links view.
		{"schedplay/docs", []string{"schedplay/preview", "schedplay/playground", "schedplay/web", "schedplay/cmd", "schedplay/wasm"}, nil},
		{"schedplay/view", []string{"schedplay/docs", "schedplay/playground", "schedplay/preview", "schedplay/web", "schedplay/cmd", "schedplay/wasm"}, nil},
		{"schedplay/preview", []string{"schedplay/playground", "schedplay/web", "schedplay/cmd", "schedplay/wasm"}, nil},
		{"schedplay/playground", []string{"schedplay/web", "schedplay/preview", "schedplay/cmd", "schedplay/wasm"}, nil},
		// The share server and the Cloudflare Worker serve the page; they never run
		// it.
		{"schedplay/web", []string{"schedplay/playground", "schedplay/wasm", "schedplay/cmd"}, nil},
	} {
		for path, p := range pkgs {
			if path != tc.pkg && !strings.HasPrefix(path, tc.pkg+"/") {
				continue
			}
			for _, dep := range p.Deps {
				if slices.ContainsFunc(tc.except, func(e string) bool { return dep == e || strings.HasPrefix(dep, e+"/") }) {
					continue
				}
				for _, f := range tc.forbidden {
					if strings.HasPrefix(dep, f) {
						t.Errorf("%s: %s imports %s", target, path, dep)
					}
				}
			}
		}
	}
}

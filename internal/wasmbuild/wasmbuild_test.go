package wasmbuild_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"schedplay/internal/wasmbuild"
)

// writeRepo lays out a tiny module shaped like schedplay: engine/, trace/ (the
// worker's), view/ and playground/ (the page's), wasm/ (a main package) and
// examples/.
func writeRepo(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"go.mod":                "module tiny\n\ngo 1.22\n",
		"engine/engine.go":      "package engine\n\nfunc Answer() int { return 42 }\n",
		"view/view.go":          "package view\n\nfunc Label(x int) int { return x }\n",
		"playground/model.go":   "package playground\n\nimport (\n\t\"tiny/engine\"\n\t\"tiny/view\"\n)\n\nfunc Shown() int { return view.Label(engine.Answer()) }\n",
		"wasm/main.go":          "package main\n\nimport \"tiny/playground\"\n\nfunc main() { println(playground.Shown()) }\n",
		"trace/trace.go":        "package trace\n\nfunc Negate(x int) int { return -x }\n",
		"wasm/worker/main.go":   "package main\n\nimport (\n\t\"tiny/engine\"\n\t\"tiny/trace\"\n)\n\nfunc main() { println(trace.Negate(engine.Answer())) }\n",
		"examples/default.json": "{}\n",
	}
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Inputs in the past, so a fresh build is newer than all of them.
	old := time.Now().Add(-time.Hour)
	filepath.Walk(root, func(p string, _ os.FileInfo, _ error) error { return os.Chtimes(p, old, old) })
	return root
}

func TestEnsureBuilt(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil && os.Getenv("GOROOT") == "" {
		t.Skip("no go command")
	}
	root := writeRepo(t)
	var log bytes.Buffer
	if err := wasmbuild.EnsureBuilt(root, &log); err != nil {
		t.Fatalf("first build: %v", err)
	}
	if !strings.Contains(log.String(), "missing") {
		t.Errorf("log %q should say why it built", log.String())
	}
	wasm, err := os.ReadFile(filepath.Join(root, wasmbuild.WasmPath))
	if err != nil || !bytes.HasPrefix(wasm, []byte("\x00asm")) {
		t.Fatalf("no wasm module: %v", err)
	}
	worker, err := os.ReadFile(filepath.Join(root, wasmbuild.WorkerPath))
	if err != nil || !bytes.HasPrefix(worker, []byte("\x00asm")) || bytes.Equal(worker, wasm) {
		t.Fatalf("no worker module of its own: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, wasmbuild.WorkerGzipPath)); err != nil {
		t.Fatalf("no gzip of the worker: %v", err)
	}
	gz, err := os.ReadFile(filepath.Join(root, wasmbuild.GzipPath))
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		t.Fatal(err)
	}
	if unz, _ := io.ReadAll(zr); !bytes.Equal(unz, wasm) {
		t.Error("the gzip sibling does not hold the wasm")
	}
	goroot, _ := exec.Command("go", "env", "GOROOT").Output()
	want, _ := os.ReadFile(filepath.Join(strings.TrimSpace(string(goroot)), "lib/wasm/wasm_exec.js"))
	if got, _ := os.ReadFile(filepath.Join(root, wasmbuild.WasmExecPath)); len(want) > 0 && !bytes.Equal(got, want) {
		t.Error("wasm_exec.js is not the toolchain's")
	}

	// Up to date: nothing happens.
	log.Reset()
	info, _ := os.Stat(filepath.Join(root, wasmbuild.WasmPath))
	if err := wasmbuild.EnsureBuilt(root, &log); err != nil {
		t.Fatal(err)
	}
	if log.Len() != 0 {
		t.Errorf("an up-to-date bundle was rebuilt: %q", log.String())
	}
	if after, _ := os.Stat(filepath.Join(root, wasmbuild.WasmPath)); !after.ModTime().Equal(info.ModTime()) {
		t.Error("the wasm was rewritten")
	}

	// An engine change rebuilds and says which file.
	src := filepath.Join(root, "engine", "engine.go")
	future := time.Now().Add(time.Minute)
	os.Chtimes(src, future, future)
	if err := wasmbuild.EnsureBuilt(root, &log); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), filepath.Join("engine", "engine.go")) {
		t.Errorf("log %q should name the newer input", log.String())
	}

	// A broken source fails with the compiler's message and keeps the old wasm.
	os.WriteFile(src, []byte("package engine\n\nfunc Answer() int { return \"x\" }\n"), 0o644)
	future = future.Add(time.Minute)
	os.Chtimes(src, future, future)
	err = wasmbuild.EnsureBuilt(root, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "engine.go") {
		t.Errorf("a broken build gave %v, want the compiler's error", err)
	}
	if _, serr := os.Stat(filepath.Join(root, wasmbuild.WasmPath)); serr != nil {
		t.Error("a failed build removed the previous wasm")
	}
}

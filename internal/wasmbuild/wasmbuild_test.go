package wasmbuild_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"schedplay/internal/wasmbuild"

	"github.com/andybalholm/brotli"
)

// writeRepo lays out a tiny module shaped like schedplay: engine/, trace/ (the
// worker's), view/ and playground/ (the page's), wasm/ (a main package) and
// examples/, and wasm/tracedecoder (the trace worker).
func writeRepo(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	files := map[string]string{
		"go.mod":                    "module tiny\n\ngo 1.22\n",
		"engine/engine.go":          "package engine\n\nfunc Answer() int { return 42 }\n",
		"view/view.go":              "package view\n\nfunc Label(x int) int { return x }\n",
		"playground/model.go":       "package playground\n\nimport (\n\t\"tiny/engine\"\n\t\"tiny/view\"\n)\n\nfunc Shown() int { return view.Label(engine.Answer()) }\n",
		"wasm/main.go":              "package main\n\nimport \"tiny/playground\"\n\nfunc main() { println(playground.Shown()) }\n",
		"trace/trace.go":            "package trace\n\nfunc Negate(x int) int { return -x }\n",
		"wasm/worker/main.go":       "package main\n\nimport (\n\t\"tiny/engine\"\n\t\"tiny/trace\"\n)\n\nfunc main() { println(trace.Negate(engine.Answer())) }\n",
		"examples/default.json":     "{}\n",
		"wasm/tracedecoder/main.go": "package main\n\nfunc main() { println(7) }\n",
	}
	writeTree(t, root, files)
	return root
}

// writeTree writes files (path: contents) under root, dated an hour ago, so a
// fresh build is newer than all of them.
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-time.Hour)
	filepath.Walk(root, func(p string, _ os.FileInfo, _ error) error { return os.Chtimes(p, old, old) })
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
	if tw, err := os.ReadFile(filepath.Join(root, wasmbuild.TraceWorkerPath)); err != nil || !bytes.HasPrefix(tw, []byte("\x00asm")) {
		t.Fatalf("no trace worker: %v", err)
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
	for _, p := range []string{wasmbuild.WasmPath, wasmbuild.WorkerPath} {
		br, err := os.ReadFile(filepath.Join(root, p+".br"))
		if err != nil {
			t.Fatalf("no brotli sibling of %s: %v", p, err)
		}
		orig, _ := os.ReadFile(filepath.Join(root, p))
		if unbr, err := io.ReadAll(brotli.NewReader(bytes.NewReader(br))); err != nil || !bytes.Equal(unbr, orig) {
			t.Errorf("the brotli sibling of %s does not hold it (%v)", p, err)
		}
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

// TestBundle: what a first visit downloads is each file as served, a precompressed
// sibling for the file it stands for, everything else gzipped at the best level;
// dotfiles and build leftovers are not part of it.
func TestBundle(t *testing.T) {
	script := strings.Repeat("function f() { return 1 }\n", 200)
	gzipped := func(s string) int64 {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		zw.Write([]byte(s))
		zw.Close()
		return int64(buf.Len())
	}
	cases := []struct {
		desc  string
		files map[string]string // under static/
		want  []wasmbuild.Part
	}{
		{"a wasm counts as its gzip sibling",
			map[string]string{"schedplay.wasm": strings.Repeat("\x00asm", 500), "schedplay.wasm.gz": "123456789"},
			[]wasmbuild.Part{{Name: "schedplay.wasm", Gzip: 9}}},
		{"a file without a sibling counts gzipped",
			map[string]string{"app.js": script, "img/up.svg": "<svg/>"},
			[]wasmbuild.Part{{Name: "app.js", Gzip: gzipped(script)}, {Name: "img/up.svg", Gzip: gzipped("<svg/>")}}},
		{"dotfiles and build leftovers are not served",
			map[string]string{".gitignore": "*.tmp", ".cache/x.js": script, "schedplay.wasm.77.tmp": script, "index.html": "<p>"},
			[]wasmbuild.Part{{Name: "index.html", Gzip: gzipped("<p>")}}},
		{"a gzip file of its own is served as it is",
			map[string]string{"data.json.gz": "abcd"},
			[]wasmbuild.Part{{Name: "data.json.gz", Gzip: 4}}},
		{"a wasm with both siblings sends its brotli one",
			map[string]string{"schedplay.wasm": strings.Repeat("\x00asm", 500), "schedplay.wasm.gz": "123456789", "schedplay.wasm.br": "1234567"},
			[]wasmbuild.Part{{Name: "schedplay.wasm", Gzip: 9, Brotli: 7}}},
		{"a brotli file of its own is served as it is",
			map[string]string{"data.bin.br": "abc"},
			[]wasmbuild.Part{{Name: "data.bin.br", Gzip: 3}}},
	}
	for _, tc := range cases {
		t.Run(tc.desc, func(t *testing.T) {
			root := t.TempDir()
			for name, body := range tc.files {
				p := filepath.Join(root, "static", filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := wasmbuild.Bundle(root)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("Bundle = %v, want %v", got, tc.want)
			}
			var sum int64
			for _, p := range tc.want {
				sum += p.Sent()
			}
			if total := wasmbuild.Total(got); total != sum {
				t.Errorf("Total = %d, want %d", total, sum)
			}
		})
	}
}

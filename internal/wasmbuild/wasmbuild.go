// Package wasmbuild builds the playground's browser bundle: static/schedplay.wasm
// (the page: Ebiten and the view model), static/schedplay-worker.wasm (the
// engine worker) and static/schedplay-policy-worker.wasm (the engine worker with
// the Starlark interpreter, for scenarios with their own sched_ext policy), all
// GOOS=js GOARCH=wasm and stripped, their gzip siblings for
// precompressed serving, and wasm_exec.js from the same Go toolchain (the glue must
// match the compiler). It rebuilds only what is older than an input, so `schedplay
// serve` and the browser tests can call it on every start.
package wasmbuild

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/andybalholm/brotli"
)

// Output paths, relative to the repository root.
const (
	WasmPath       = "static/schedplay.wasm"
	GzipPath       = "static/schedplay.wasm.gz"
	WorkerPath     = "static/schedplay-worker.wasm"
	WorkerGzipPath = "static/schedplay-worker.wasm.gz"
	// PolicyWorkerPath is the engine worker built with the Starlark binding
	// (-tags scx), which the page starts only for an arm whose scenario
	// carries a sched_ext policy: not part of a first visit (Bundle), with a
	// budget of its own (PolicyWorkerBudgetBytes).
	PolicyWorkerPath     = "static/schedplay-policy-worker.wasm"
	PolicyWorkerGzipPath = "static/schedplay-policy-worker.wasm.gz"
	// TraceWorkerPath is the trace decoders (wasm/tracedecoder), which the
	// page starts through TraceScriptPath when its trace panel opens a file:
	// not part of a first visit, with a budget of its own
	// (TraceWorkerBudgetBytes).
	TraceWorkerPath     = "static/schedplay-trace-worker.wasm"
	TraceWorkerGzipPath = "static/schedplay-trace-worker.wasm.gz"
	TraceScriptPath     = "static/trace-worker.js"
	WasmExecPath        = "static/wasm_exec.js"
	// EditorPath is the policy editor (CodeMirror, built by web/editor and
	// committed), which the page loads with the policy worker and never on
	// a first visit; it shares the policy worker's budget.
	EditorPath = "static/editor.js"
	// EditorStylePath is the editor's styles, fetched with it (CodeMirror's
	// own styles as a file: the page's CSP refuses them inline).
	EditorStylePath = "static/editor.css"
)

// target is one program of the bundle, its build tags and its compiler flags.
type target struct {
	pkg, wasm, gzip string
	tags            string
	gcflags         []string
	// brotli is the brotli level of its .br sibling (brotliQuality when 0).
	brotli int
}

// targets are the programs: the page, its engine worker, the policy worker
// and the trace worker.
//
// The page's dependencies (Ebiten, the JSON library, the standard library but the
// runtime) and its own packages are compiled without inlining: that takes 0.3 MB
// off its gzip size, which keeps page and worker together under the 4 MB budget
// (BudgetBytes). The page runs no simulation: a frame reads the view model's
// snapshot and draws it, work that inlining made no measurably faster, and the
// page's own packages were the last 23 KB to take off once the worker carried
// the checkpoint decoder (e2e's TestMeasure reports Update+Draw per frame). The
// worker, where the engine's hot loop runs, compiles the engine, the runner and
// what the hot loop calls into (math, math/bits, math/rand/v2) as usual, and the
// rest of the standard library and the trace writer without inlining (22 KB:
// fmt, reflect, strconv, time and syscall/js run per message or per chunk, not
// per event, and a trace job writes what a run does, not the run). So are
// the rt-app decoder, which reads a description once per run, and the view's
// latency histogram, made once per frame (4 KB of brotli off each worker).
//
// The policy worker is the engine worker with the Starlark binding (build tag
// scx), compiled alike, and the interpreter (go.starlark.net/starlark and
// starlarkstruct) inlined too: it runs a policy's callbacks at nearly every
// event. Starlark's scanner, parser, resolver and compiler run once per policy
// and are not inlined (11 KB, which keeps the policy's parts within their
// budget now that the workers also save the engine's state: runner marks).
//
// The engine worker is built with profile-guided optimisation: go build uses
// wasm/worker/default.pgo, a native CPU profile of the engine's benchmarks
// (hackbench's comparison and the TPC-B fan-out; `task pgo` makes it again).
// It inlines the hot calls of the engine's event loop and turns its hottest
// interface calls into direct ones: under js/wasm, where every call spills
// what is live to the Go stack in linear memory, that takes about 6% off
// hackbench's comparison, for 21 KB of gzip. Inlining changes no result.
// The page and the workers carry the engine's trace replay (the page checks
// a trace scenario, the workers run it; about 20 KB of brotli each), not the
// trace decoders: the trace worker (wasm/tracedecoder) reads a file and
// builds its model, fetched only when the page's trace panel opens one.
//
// The policy worker is not (-pgo=off): there a policy's Starlark callbacks
// take most of the time, and the 19 KB of brotli PGO adds would take the
// policy's parts over their budget now that the engine has Linux's
// scheduling classes. Its brotli sibling is compressed harder (policyBrotli).
func targets() []target {
	worker := []string{"-gcflags=all=-l", "-gcflags=schedplay/...=", "-gcflags=runtime=",
		"-gcflags=math=", "-gcflags=math/bits=", "-gcflags=math/rand/v2=", "-gcflags=schedplay/trace=-l",
		"-gcflags=schedplay/rtapp=-l", "-gcflags=schedplay/view=-l"}
	return []target{
		{"./wasm", WasmPath, GzipPath, "", []string{"-gcflags=all=-l", "-gcflags=runtime="}, 0},
		{"./wasm/worker", WorkerPath, WorkerGzipPath, "", worker, 0},
		{"./wasm/worker", PolicyWorkerPath, PolicyWorkerGzipPath, "scx", append(worker, "-gcflags=go.starlark.net/starlark=", "-gcflags=go.starlark.net/starlarkstruct=", "-pgo=off"), policyBrotli},
		// The decoders inlined (an import's speed is theirs), the rest not.
		{"./wasm/tracedecoder", TraceWorkerPath, TraceWorkerGzipPath, "", []string{"-gcflags=all=-l", "-gcflags=runtime=", "-gcflags=schedplay/kerneltrace="}, 0},
	}
}

// inputDirs are the directories whose files go into the wasm: the js/wasm shells,
// the view model and its drawing vocabulary, the engine and the rt-app decoder and
// kernel-trace model it links, the trace writer (the worker's trace downloads), the embedded presets and
// lessons, the calibration's verdict table (docs) and the share-states route
// (internal/shareapi); go.mod and go.sum pin the dependencies. They are the saved
// states' inputs too (EnsureCheckpoints). TestInputDirsCoverTheBundle keeps the
// list whole.
func inputDirs() []string {
	return []string{"engine", "rtapp", "kerneltrace", "trace", "view", "playground", "wasm", "examples", "docs", "internal/shareapi", "scxstar"}
}

// EnsureBuilt builds each program of the bundle under repoRoot whose wasm is
// missing or older than any input, writes its gzip sibling, refreshes
// wasm_exec.js, and saves the bundle's engine states when they are stale
// (EnsureCheckpoints). Progress goes to log. A cold build takes about a minute on two
// cores.
func EnsureBuilt(repoRoot string, log io.Writer) error {
	goBin, err := goCommand()
	if err != nil {
		return err
	}
	if err := copyWasmExec(repoRoot, goBin); err != nil {
		return err
	}
	newest, newestPath, err := newestInput(repoRoot)
	if err != nil {
		return err
	}
	for _, tg := range targets() {
		if err := ensureTarget(repoRoot, goBin, tg, newest, newestPath, log); err != nil {
			return err
		}
	}
	return EnsureCheckpoints(repoRoot, log)
}

// ensureTarget builds one program when its wasm or gzip is missing or stale.
func ensureTarget(root, goBin string, tg target, newest time.Time, newestPath string, log io.Writer) error {
	out := filepath.Join(root, tg.wasm)
	wasmInfo, werr := os.Stat(out)
	gzInfo, gerr := os.Stat(filepath.Join(root, tg.gzip))
	brInfo, berr := os.Stat(filepath.Join(root, tg.wasm+".br"))
	if werr == nil && gerr == nil && berr == nil && !wasmInfo.ModTime().Before(newest) &&
		!gzInfo.ModTime().Before(wasmInfo.ModTime()) && !brInfo.ModTime().Before(wasmInfo.ModTime()) {
		return nil
	}
	reason := "missing"
	if werr == nil {
		reason = newestPath + " is newer"
	}
	fmt.Fprintf(log, "wasmbuild: building %s (%s)\n", tg.wasm, reason)
	start := time.Now()
	if err := build(root, goBin, tg, out); err != nil {
		return err
	}
	raw, gz, br, err := writeCompressed(out, cmp.Or(tg.brotli, brotliQuality))
	if err != nil {
		return err
	}
	fmt.Fprintf(log, "wasmbuild: built in %.1fs: %.1f MB, %.2f MB gzip, %.2f MB brotli\n", time.Since(start).Seconds(), float64(raw)/1e6, float64(gz)/1e6, float64(br)/1e6)
	return nil
}

// goCommand finds the go tool: $GOROOT/bin/go of the running toolchain when set,
// else go on PATH.
func goCommand() (string, error) {
	if root := os.Getenv("GOROOT"); root != "" {
		p := filepath.Join(root, "bin", "go")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	p, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("wasmbuild: the go command is needed to build the playground: %w", err)
	}
	return p, nil
}

// newestInput returns the latest modification time among the inputs.
func newestInput(root string) (time.Time, string, error) {
	var newest time.Time
	var newestPath string
	consider := func(path string, info fs.FileInfo) {
		if info.ModTime().After(newest) {
			newest, newestPath = info.ModTime(), path
		}
	}
	for _, f := range []string{"go.mod", "go.sum"} {
		if info, err := os.Stat(filepath.Join(root, f)); err == nil {
			consider(f, info)
		}
	}
	for _, d := range inputDirs() {
		if _, err := os.Stat(filepath.Join(root, d)); errors.Is(err, fs.ErrNotExist) {
			continue // a tree without it (the tests' small module) has nothing there to build
		}
		err := filepath.WalkDir(filepath.Join(root, d), func(path string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if e.IsDir() {
				if name := e.Name(); name == "testdata" || strings.HasPrefix(name, ".") {
					return filepath.SkipDir
				}
				return nil
			}
			// Go sources (tests excluded: they are not in the binary), embedded
			// data and the worker's profile (default.pgo guides its inlining).
			name := e.Name()
			if (strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go")) || strings.HasSuffix(name, ".json") || strings.HasSuffix(name, ".pgo") {
				info, err := e.Info()
				if err != nil {
					return err
				}
				rel, _ := filepath.Rel(root, path)
				consider(rel, info)
			}
			return nil
		})
		if err != nil {
			return time.Time{}, "", fmt.Errorf("wasmbuild: scanning %s: %w", d, err)
		}
	}
	if newest.IsZero() {
		return newest, "", errors.New("wasmbuild: no sources found under " + root)
	}
	return newest, newestPath, nil
}

// build compiles tg to out via a temporary file, so a reader never sees half a
// binary and a failed build leaves the old one in place.
func build(root, goBin string, tg target, out string) error {
	// A unique name: the tests and a server may build at the same time.
	tmp := fmt.Sprintf("%s.%d.tmp", out, os.Getpid())
	args := append([]string{"build", "-trimpath", "-ldflags=-s -w"}, tg.gcflags...)
	if tg.tags != "" {
		args = append(args, "-tags="+tg.tags)
	}
	cmd := exec.Command(goBin, append(args, "-o", tmp, tg.pkg)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Stdout = &stderr
	if err := cmd.Run(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("wasmbuild: go build %s: %v\n%s", tg.pkg, err, stderr.String())
	}
	return os.Rename(tmp, out)
}

// brotliQuality is the brotli level of the precompressed siblings. Level 11
// takes the wasm pair to 2.81 MB but costs about a minute of CPU at every
// build (page and tests wait for it); level 9 gives 3.25 MB in five seconds,
// against 3.96 MB gzip (measured on this repository's bundle, 2 cores).
const brotliQuality = 9

// policyBrotli is the policy worker's brotli level: level 10 takes its 7 MB
// from 1.51 MB to 1.37 MB of brotli in 11 s where level 9 takes 1.3 s
// (measured 2026-12-05, 2 loaded cores), and a policy's first run downloads
// it; the page's pair stays at brotliQuality, which its build waits for.
const policyBrotli = 10

// writeCompressed writes src's precompressed siblings, src.gz (gzip at the
// best level) and src.br (brotli at brotliLevel, with a 16 MiB window: the
// page's wasm is 13 MB), for Content-Encoding: gzip and br, and returns the
// sizes of src and of each.
func writeCompressed(src string, brotliLevel int) (raw, gz, br int64, err error) {
	data, err := os.ReadFile(src)
	if err != nil {
		return 0, 0, 0, err
	}
	var zbuf, bbuf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&zbuf, gzip.BestCompression)
	if err != nil {
		return 0, 0, 0, err
	}
	bw := brotli.NewWriterOptions(&bbuf, brotli.WriterOptions{Quality: brotliLevel, LGWin: 24})
	for _, w := range []io.WriteCloser{zw, bw} {
		if _, err := w.Write(data); err != nil {
			return 0, 0, 0, err
		}
		if err := w.Close(); err != nil {
			return 0, 0, 0, err
		}
	}
	if err := writeAtomic(src+".gz", zbuf.Bytes()); err != nil {
		return 0, 0, 0, err
	}
	if err := writeAtomic(src+".br", bbuf.Bytes()); err != nil {
		return 0, 0, 0, err
	}
	return int64(len(data)), int64(zbuf.Len()), int64(bbuf.Len()), nil
}

// copyWasmExec refreshes static/wasm_exec.js from the toolchain's lib/wasm (or
// misc/wasm before Go 1.24) when it differs.
func copyWasmExec(root, goBin string) error {
	out, err := exec.Command(goBin, "env", "GOROOT").Output()
	if err != nil {
		return fmt.Errorf("wasmbuild: go env GOROOT: %w", err)
	}
	goroot := strings.TrimSpace(string(out))
	var src []byte
	for _, p := range []string{"lib/wasm/wasm_exec.js", "misc/wasm/wasm_exec.js"} {
		if src, err = os.ReadFile(filepath.Join(goroot, p)); err == nil {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("wasmbuild: wasm_exec.js not found in %s: %w", goroot, err)
	}
	dst := filepath.Join(root, WasmExecPath)
	if cur, err := os.ReadFile(dst); err == nil && bytes.Equal(cur, src) {
		return nil
	}
	return writeAtomic(dst, src)
}

func writeAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

//go:build unix

// Process groups (Setpgid, kill(-pgid)) are POSIX; so is wrangler dev here.

package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"schedplay/web/cloudflare/internal/assets"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The integration test builds the Cloudflare Worker exactly as Taskfile.yml's build
// task does (into a temporary directory, with testdata/static as the bundle),
// starts it under wrangler dev from node_modules with local KV persisted to a
// temporary directory, and runs the share API contract against it. It needs
// `npm ci` in this directory: without node_modules it skips, except under
// CI=true, where it fails.

// wranglerPath finds the pinned wrangler or skips (fails under CI) without it.
func wranglerPath(t testing.TB) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("node_modules", ".bin", "wrangler"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); err != nil {
		msg := "wrangler is not installed: run `npm ci` in web/cloudflare (" + err.Error() + ")"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	// wrangler dev's proxy loses requests under load unless patched
	// (patches/proxyworker-retry.mjs, which `npm ci` applies).
	proxy, err := os.ReadFile(filepath.Join("node_modules", "wrangler", "wrangler-dist", "ProxyWorker.js"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(proxy, []byte(proxyPatchMarker)) {
		t.Fatal("wrangler's ProxyWorker.js is not patched: run `npm ci` in web/cloudflare (its postinstall applies patches/proxyworker-retry.mjs)")
	}
	return p
}

// proxyPatchMarker is the comment patches/proxyworker-retry.mjs leaves in
// wrangler's ProxyWorker.js.
const proxyPatchMarker = "schedplay patch (web/cloudflare/patches/proxyworker-retry.mjs)"

// buildProject builds the Cloudflare Worker into dir/build and copies the config
// and entry module beside it, so dir is a self-contained wrangler project.
func buildProject(t testing.TB, dir string) {
	t.Helper()
	for _, name := range []string{"wrangler.toml", "entry.mjs"} {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if name == "wrangler.toml" && bytes.Contains(append([]byte("\n"), data...), []byte("\n[build]")) {
			t.Fatal("wrangler.toml has a [build] section: wrangler dev would rebuild at start (see the comment at the top of wrangler.toml)")
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	build := filepath.Join(dir, "build")
	run(t, nil, "go", "run", "github.com/syumai/workers/cmd/workers-assets-gen", "-mode=go", "-o", build)
	run(t, []string{"GOOS=js", "GOARCH=wasm"}, "go", "build", "-trimpath", "-ldflags=-s", "-o", filepath.Join(build, "app.wasm"), ".")
	if err := assets.Assemble("testdata/static", filepath.Join(build, "assets"), io.Discard); err != nil {
		t.Fatal(err)
	}
}

func run(t testing.TB, env []string, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// freePort asks the kernel for a free loopback port.
func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// devServer is one wrangler dev process group.
type devServer struct {
	base  string        // http://127.0.0.1:PORT
	ready time.Duration // from start to the first answered request
	cmd   *exec.Cmd
	out   *bytes.Buffer // wrangler's output, for failure messages
	done  chan struct{} // closed when the process has exited
}

// startDev starts wrangler dev for the wrangler project in dir, with KV persisted
// under persist and the Cloudflare Worker's variables vars ("NAME:value"), and
// waits until it answers.
func startDev(t testing.TB, wrangler, dir, persist string, vars ...string) *devServer {
	t.Helper()
	port := freePort(t)
	args := []string{"dev", "--local", "--ip", "127.0.0.1",
		"--port", fmt.Sprint(port), "--inspector-port", fmt.Sprint(freePort(t)),
		"--persist-to", persist, "--log-level", "warn", "--show-interactive-dev-session=false"}
	for _, v := range vars {
		args = append(args, "--var", v)
	}
	cmd := exec.Command(wrangler, args...)
	cmd.Dir = dir
	// Offline and quiet: no metrics, no request.cf download, no user config.
	cmd.Env = append(os.Environ(), "WRANGLER_SEND_METRICS=false", "CI=true",
		"CLOUDFLARE_CF_FETCH_ENABLED=false", "XDG_CONFIG_HOME="+filepath.Join(dir, "xdg"))
	// Its own process group: stopping only node would leave workerd running.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	d := &devServer{base: fmt.Sprintf("http://127.0.0.1:%d", port), cmd: cmd, out: &bytes.Buffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = d.out, d.out
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { cmd.Wait(); close(d.done) }()
	t.Cleanup(d.stop)

	client := &http.Client{Timeout: 2 * time.Second}
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		select {
		case <-d.done:
			t.Fatalf("wrangler dev exited before it was ready: %v\n%s", cmd.ProcessState, d.out)
		default:
		}
		if resp, err := client.Get(d.base + "/"); err == nil {
			resp.Body.Close()
			d.ready = time.Since(start)
			return d
		}
	}
	t.Fatalf("wrangler dev did not answer within a minute\n%s", d.out)
	return nil
}

// stop ends the whole process group: SIGTERM, then SIGKILL for whatever is left
// (workerd may outlive node). It may be called more than once.
func (d *devServer) stop() {
	pgid := -d.cmd.Process.Pid
	syscall.Kill(pgid, syscall.SIGTERM)
	select {
	case <-d.done:
	case <-time.After(5 * time.Second):
	}
	syscall.Kill(pgid, syscall.SIGKILL)
	<-d.done
}

package e2e

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// cli is the schedplay command, built once for the tests that need the real
// `schedplay serve` (its handler, its headers) rather than newServer's stand-in.
var cli struct {
	once sync.Once
	path string
	err  error
	out  []byte
}

// serve starts `schedplay serve` on a free loopback port with the repository's
// static/ bundle and a throwaway share database, and returns its base URL. It
// is the server a visitor of a local playground gets: web.NewServer's handler
// with the production security headers (web/headers.go: the CSP allows no
// inline styles), which newServer leaves out. The server stops with the test.
func serve(t testing.TB) string {
	t.Helper()
	root := repoRoot(t)
	cli.once.Do(func() {
		dir, err := os.MkdirTemp("", "schedplay-e2e-cli-")
		if err != nil {
			cli.err = err
			return
		}
		cli.path = filepath.Join(dir, "schedplay")
		build := exec.Command("go", "build", "-o", cli.path, "./cmd/schedplay")
		build.Dir = root
		cli.out, cli.err = build.CombinedOutput()
	})
	if cli.err != nil {
		t.Fatalf("building the CLI: %v\n%s", cli.err, cli.out)
	}
	cmd := exec.Command(cli.path, "serve", "--addr", "127.0.0.1:0", "--static", filepath.Join(root, "static"), "--data", t.TempDir())
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// SIGTERM: serve finishes what it serves and closes its database.
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	// serve prints its URL once it listens.
	announced := regexp.MustCompile(`serving (http://127\.0\.0\.1:[0-9]+)/`)
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if m := announced.FindStringSubmatch(sc.Text()); m != nil {
				lines <- m[1]
			}
		}
		close(lines)
	}()
	select {
	case base, ok := <-lines:
		if !ok {
			t.Fatalf("schedplay serve exited without serving:\n%s", stderr.String())
		}
		return base
	case <-time.After(30 * time.Second):
		t.Fatalf("schedplay serve did not announce its URL in 30 s:\n%s", stderr.String())
	}
	return ""
}

//go:build unix

// BenchmarkServe stops its server through a process group (POSIX).

package web

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
	"time"

	"schedplay/web/internal/sharetest"
)

// Latency of the share API on loopback. Run with a fixed count so the
// percentiles rest on enough samples:
//
//	go test -run '^$' -bench . -benchtime 500x ./web/
//
// BenchmarkShare is the handler with bbolt behind httptest's loopback server;
// BenchmarkServe is the real `schedplay serve` process (built first), which also
// reports its cold start and CPU per share.

func BenchmarkShare(b *testing.B) {
	ts := httptest.NewServer(newTestServer(b, openTestBolt(b, filepath.Join(b.TempDir(), "shares.db"))))
	defer ts.Close()
	client := ts.Client()
	for _, mode := range []string{"new", "repeat"} {
		b.Run(mode, func(b *testing.B) {
			lat := make([]time.Duration, 0, b.N)
			for i := 0; b.Loop(); i++ {
				n := 1_000_000 + i // a scenario not stored yet: a real write
				if mode == "repeat" {
					n = 1 // the same scenario: a lookup, no write
				}
				start := time.Now()
				if _, err := sharetest.TryShare(client, ts.URL, sharetest.Scenario(n)); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
			}
			sharetest.ReportLatency(b, lat)
		})
	}
}

func BenchmarkServe(b *testing.B) {
	dir := b.TempDir()
	bin := filepath.Join(dir, "schedplay")
	if out, err := exec.Command("go", "build", "-o", bin, "schedplay/cmd/schedplay").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--data", filepath.Join(dir, "data"), "--static", testStatic)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		cmd.Wait()
	}()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		b.Fatalf("reading the URL line: %v", err)
	}
	base := regexp.MustCompile(`http://[^/ ]+`).FindString(line)
	if base == "" {
		b.Fatalf("no URL in %q", line)
	}
	client := &http.Client{}
	var cold time.Duration
	for cold == 0 {
		if resp, err := client.Get(base + "/"); err == nil {
			resp.Body.Close()
			cold = time.Since(start)
		} else if time.Since(start) > 30*time.Second {
			b.Fatal(err)
		}
	}
	// The first share also opens the bbolt bucket's pages and warms the decoder.
	firstStart := time.Now()
	if _, err := sharetest.TryShare(client, base, sharetest.Scenario(0)); err != nil {
		b.Fatal(err)
	}
	first := time.Since(firstStart)

	cpu0, err := sharetest.GroupCPU(cmd.Process.Pid)
	if err != nil {
		b.Fatal(err)
	}
	lat := make([]time.Duration, 0, b.N)
	for i := 0; b.Loop(); i++ {
		t0 := time.Now()
		if _, err := sharetest.TryShare(client, base, sharetest.Scenario(1_000_000+i)); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	cpu1, err := sharetest.GroupCPU(cmd.Process.Pid)
	if err != nil {
		b.Fatal(err)
	}
	sharetest.ReportLatency(b, lat)
	b.ReportMetric(float64(cold)/float64(time.Millisecond), "cold-start-ms")
	b.ReportMetric(float64(first)/float64(time.Millisecond), "first-share-ms")
	b.ReportMetric(float64(cpu1-cpu0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}

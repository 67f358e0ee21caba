//go:build unix

// Process groups (Setpgid, kill(-pgid)) are POSIX; so is wrangler dev here.

package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"schedplay/engine"
	"schedplay/web"
	"schedplay/web/internal/sharetest"
)

func TestCloudflare(t *testing.T) {
	if testing.Short() {
		t.Skip("starts wrangler dev (several seconds); skipped in -short mode")
	}
	wrangler := wranglerPath(t)
	dir := t.TempDir()
	persist := filepath.Join(dir, "kv")
	buildProject(t, dir)
	checkWasmSize(t, filepath.Join(dir, "build", "app.wasm"))
	page, err := os.ReadFile("testdata/static/index.html")
	if err != nil {
		t.Fatal(err)
	}

	// The Cloudflare Worker names its public URL in share links, whatever Host a
	// request has.
	const publicURL = "https://play.example.org"
	// A small preview budget keeps the contract's many shares quick; it still
	// completes sharetest.PreviewScenario.
	budget := previewBudgetVar + ":100000"
	dev := startDev(t, wrangler, dir, persist, publicURLVar+":"+publicURL, budget)
	t.Logf("wrangler dev answered after %v", dev.ready.Round(time.Millisecond))
	client := &http.Client{Timeout: 10 * time.Second}
	// First, before anything has started Go: concurrent requests share the start
	// of the isolate's one Go instance, then interleave on it, each with its own
	// env handed over by entry.mjs.
	//
	// Each share computes its link preview, a few hundred milliseconds of CPU
	// here, and the isolate runs them one after another (a Go instance has one
	// thread), so the last of 18 concurrent shares waits for all the others.
	slow := &http.Client{Timeout: time.Minute}
	if !t.Run("concurrent on one instance", func(t *testing.T) { concurrentShares(t, slow, dev.base) }) {
		// What workerd said about the requests left unanswered (the restart
		// below replaces this output).
		t.Logf("wrangler dev output so far:\n%s", dev.out)
	}
	t.Run("contract", func(t *testing.T) {
		sharetest.Contract(t, sharetest.Host{Client: client, Base: dev.base, Page: page, PublicURL: publicURL})
	})

	t.Run("assets without Go", func(t *testing.T) {
		for _, tc := range []struct {
			path, ctype string
			status      int
		}{
			{"/", "text/html; charset=utf-8", 200},
			{"/tiny.wasm", "application/wasm", 200},
			{"/app.js", "text/javascript", 200},
			{"/style.css", "text/css", 200},                    // as static/editor.css is
			{"/favicon.ico", "text/plain; charset=utf-8", 404}, // entry.mjs, not Go
		} {
			resp, _ := sharetest.Do(t, client, "GET", dev.base+tc.path, nil)
			if resp.StatusCode != tc.status || !strings.HasPrefix(resp.Header.Get("Content-Type"), tc.ctype) {
				t.Errorf("GET %s: %s %q, want %d %q", tc.path, resp.Status, resp.Header.Get("Content-Type"), tc.status, tc.ctype)
			}
			if resp.Header.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("GET %s: no nosniff", tc.path)
			}
			// The policy `schedplay serve` sends, to the byte: the page must
			// work (or fail) alike on both.
			if csp := resp.Header.Get("Content-Security-Policy"); tc.status == 200 && csp != web.ContentSecurityPolicy() {
				t.Errorf("GET %s: Content-Security-Policy %q, want serve's %q", tc.path, csp, web.ContentSecurityPolicy())
			}
		}
	})

	// Shares survive a restart with the same KV directory.
	doc := sharetest.Scenario(7)
	r := sharetest.Share(t, client, dev.base, doc)
	stopStart := time.Now()
	dev.stop()
	t.Logf("stopped in %v", time.Since(stopStart).Round(time.Millisecond))
	dev = startDev(t, wrangler, dir, persist, publicURLVar+":"+publicURL, budget)
	t.Logf("restarted; answered after %v", dev.ready.Round(time.Millisecond))
	resp, got := sharetest.Do(t, client, "GET", dev.base+"/api/share/"+r.ID, nil)
	if resp.StatusCode != 200 || !bytes.Equal(got, sharetest.Canonical(t, doc)) {
		t.Errorf("after a restart, GET /api/share/%s: %s %s", r.ID, resp.Status, got)
	}
	if t.Failed() {
		t.Logf("wrangler dev output:\n%s", dev.out)
	}
}

// workerGzipLimit is the Workers Paid plan's limit on a Worker's size after
// gzip (the Free plan's, 3 MiB, is too small since the policy interpreter
// came in; README says the Paid plan is needed anyway).
const workerGzipLimit = 10 << 20

// checkWasmSize holds the Cloudflare Worker's wasm, gzipped, within the
// plan's limit, and logs its sizes.
func checkWasmSize(t *testing.T, path string) {
	t.Helper()
	wasm, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	zw.Write(wasm)
	zw.Close()
	t.Logf("app.wasm: %d bytes, %d gzip", len(wasm), gz.Len())
	if gz.Len() > workerGzipLimit {
		t.Errorf("app.wasm is %d bytes after gzip, over the Workers Paid plan's %d", gz.Len(), workerGzipLimit)
	}
}

// concurrentShares sends shares of a few scenarios at once, each followed by a
// GET of its ID, and checks that every scenario got one ID that reads back.
func concurrentShares(t *testing.T, client *http.Client, base string) {
	const distinct, total = 6, 18
	canonical := make([][]byte, distinct)
	for n := range distinct {
		canonical[n] = sharetest.Canonical(t, sharetest.Scenario(100+n))
	}
	ids := make([]string, total)
	var wg sync.WaitGroup
	for i := range total {
		wg.Go(func() {
			doc := sharetest.Scenario(100 + i%distinct)
			r, err := sharetest.TryShare(client, base, doc)
			if err != nil {
				t.Error(err)
				return
			}
			ids[i] = r.ID
			resp, err := client.Get(base + "/api/share/" + r.ID)
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			got, err := io.ReadAll(resp.Body)
			if err != nil || resp.StatusCode != http.StatusOK || !bytes.Equal(got, canonical[i%distinct]) {
				t.Errorf("GET /api/share/%s: %s %s %v", r.ID, resp.Status, got, err)
			}
		})
	}
	wg.Wait()
	for i, id := range ids {
		if id != ids[i%distinct] {
			t.Errorf("scenario %d got IDs %q and %q", i%distinct, ids[i%distinct], id)
		}
	}
}

// BenchmarkCloudflare measures the Cloudflare Worker under wrangler dev on
// loopback: its wasm size (raw and gzip), how long wrangler dev takes to answer,
// share latency, and the CPU time per request of the workerd thread that runs the
// Cloudflare Worker's isolate. Run it with a fixed count:
//
//	go test -run '^$' -bench Cloudflare -benchtime 300x ./web/cloudflare/
//
// Shares now compute their link preview (engine runs within the Cloudflare Worker's
// event budget, then the card): share-cpu-ms is a small scenario's,
// heavy-share-cpu-ms the largest example's, which spends the whole budget,
// policy-share-cpu-ms saturated-sync's run by a Starlark policy
// (examples/policies/scx_simple.star), which spends it on the policy. page-,
// card-, chart- and oembed-cpu-ms are the preview routes of a stored share.
//
// CPU is read per thread from /proc (sharetest.ThreadCPU, nanoseconds) around a run
// of sequential requests, and the busiest thread is reported: workerd runs every
// isolate of the process on it. That thread also runs wrangler's own routing
// scripts and the local KV simulator, so the figures bound the Cloudflare Worker's
// own CPU from above; static-cpu-ms, a static file that never reaches the
// Cloudflare Worker, is the routing floor to subtract. load-cpu-ms is the first
// request that reaches a new isolate (Workers count that start-up apart from
// requests); cold figures are the first Go request after it (the Go instance
// starts, wasm functions compile on first call, the KV simulator opens), each the
// median of coldRuns fresh wrangler dev starts; warm ones are on a running
// instance.
func BenchmarkCloudflare(b *testing.B) {
	wrangler := wranglerPath(b)
	dir := b.TempDir()
	buildProject(b, dir)
	wasm, err := os.ReadFile(filepath.Join(dir, "build", "app.wasm"))
	if err != nil {
		b.Fatal(err)
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	zw.Write(wasm)
	zw.Close()

	persist := filepath.Join(dir, "kv")
	dev := startDev(b, wrangler, dir, persist)
	client := &http.Client{Timeout: 10 * time.Second}
	slowClient := &http.Client{Timeout: time.Minute} // a policy share's preview takes seconds
	get := func(path string) {
		resp, err := client.Get(dev.base + path)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("GET %s: %s", path, resp.Status)
		}
	}
	// The first share starts the isolate's Go instance.
	first, err := sharetest.TryShare(client, dev.base, sharetest.Scenario(0))
	if err != nil {
		b.Fatal(err)
	}

	meter := &threadMeter{b: b, pgid: dev.cmd.Process.Pid}
	meter.mark()
	const n = 100
	for range n {
		get("/app.js") // Workers assets: no Go
	}
	meter.mark()
	for range n {
		get("/api/share/" + first.ID) // Go and one KV read
	}
	meter.mark()
	// The link-preview routes of a stored share (its preview and card were
	// made when it was shared): the page with its tags, the stored card, the
	// chart drawn from the stored preview, the oEmbed answer.
	previewPaths := []string{"/s/" + first.ID, "/s/" + first.ID + ".png", "/s/" + first.ID + ".svg",
		"/oembed?url=" + url.QueryEscape("/s/"+first.ID)}
	for _, path := range previewPaths {
		for range n {
			get(path)
		}
		meter.mark()
	}
	// Shares of the largest example, whose previews spend the whole budget.
	heavy := heavyScenarios(b, 3)
	for _, doc := range heavy {
		if _, err := sharetest.TryShare(client, dev.base, doc); err != nil {
			b.Fatal(err)
		}
	}
	meter.mark()
	// Shares whose own policy (Starlark) runs in the preview: the heaviest
	// example for a policy, saturated-sync under scx_simple.star, spends the
	// budget on the policy's steps (preview.PolicyStepsPerEvent).
	policy := policyScenarios(b, 2)
	for _, doc := range policy {
		if _, err := sharetest.TryShare(slowClient, dev.base, doc); err != nil {
			b.Fatal(err)
		}
	}
	meter.mark()
	lat := make([]time.Duration, 0, b.N)
	for i := 0; b.Loop(); i++ {
		t := time.Now()
		if _, err := sharetest.TryShare(client, dev.base, sharetest.Scenario(1_000_000+i)); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t))
	}
	meter.mark()
	// The isolate's thread is the busiest one while shares run.
	last := len(meter.marks) - 1
	isolate, _ := sharetest.Busiest(meter.marks[last-1], meter.marks[last])
	static, warmGet, warmShare := meter.per(isolate, 0, n), meter.per(isolate, 1, n), meter.per(isolate, last-1, len(lat))
	warmPreview := make([]time.Duration, len(previewPaths))
	for i := range previewPaths {
		warmPreview[i] = meter.per(isolate, 2+i, n)
	}
	heavyShare := meter.per(isolate, 2+len(previewPaths), len(heavy))
	policyShare := meter.per(isolate, 3+len(previewPaths), len(policy))
	ready := dev.ready
	dev.stop()

	// Cold: each run is a fresh wrangler dev (a new isolate) on the same KV. Its
	// first request that reaches the Cloudflare Worker, a path entry.mjs answers
	// without Go, loads the Cloudflare Worker (module evaluation, the wasm module's
	// compilation); the next one starts Go. A malformed ID is answered by Go
	// without KV, which separates Go's start from the KV simulator's first use.
	const coldRuns = 3
	expect := func(status int, path string) func(int) {
		return func(int) {
			if resp, body := sharetest.Do(b, client, "GET", dev.base+path, nil); resp.StatusCode != status {
				b.Fatalf("GET %s: %s %s, want %d", path, resp.Status, body, status)
			}
		}
	}
	colds := []struct {
		metric string
		do     func(run int)
		cpu    []time.Duration
	}{
		{metric: "cold-share-cpu-ms", do: func(run int) {
			if _, err := sharetest.TryShare(client, dev.base, sharetest.Scenario(2_000_000+run)); err != nil {
				b.Fatal(err)
			}
		}},
		{metric: "cold-get-cpu-ms", do: expect(http.StatusOK, "/api/share/"+first.ID)},
		{metric: "cold-nokv-cpu-ms", do: expect(http.StatusNotFound, "/api/share/not*an*id")},
		{metric: "cold-card-cpu-ms", do: expect(http.StatusOK, "/s/"+first.ID+".png")},
		{metric: "cold-chart-cpu-ms", do: expect(http.StatusOK, "/s/"+first.ID+".svg")},
	}
	var load []time.Duration
	for run := range coldRuns {
		for i := range colds {
			dev = startDev(b, wrangler, dir, persist)
			cold := &threadMeter{b: b, pgid: dev.cmd.Process.Pid}
			cold.mark()
			expect(http.StatusNotFound, "/favicon.ico")(run)
			cold.mark()
			colds[i].do(run)
			cold.mark()
			_, cpu := sharetest.Busiest(cold.marks[0], cold.marks[1])
			load = append(load, cpu)
			_, cpu = sharetest.Busiest(cold.marks[1], cold.marks[2])
			colds[i].cpu = append(colds[i].cpu, cpu)
			dev.stop()
		}
	}
	median := func(d []time.Duration) time.Duration { slices.Sort(d); return d[len(d)/2] }

	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	sharetest.ReportLatency(b, lat)
	b.ReportMetric(float64(len(wasm)), "wasm-bytes")
	b.ReportMetric(float64(gz.Len()), "wasm-gzip-bytes")
	b.ReportMetric(ms(ready), "ready-ms")
	b.ReportMetric(ms(static), "static-cpu-ms")
	b.ReportMetric(ms(warmGet), "get-cpu-ms")
	b.ReportMetric(ms(warmShare), "share-cpu-ms")
	b.ReportMetric(ms(heavyShare), "heavy-share-cpu-ms")
	b.ReportMetric(ms(policyShare), "policy-share-cpu-ms")
	for i, metric := range []string{"page-cpu-ms", "card-cpu-ms", "chart-cpu-ms", "oembed-cpu-ms"} {
		b.ReportMetric(ms(warmPreview[i]), metric)
	}
	b.ReportMetric(ms(median(load)), "load-cpu-ms")
	for _, c := range colds {
		b.ReportMetric(ms(median(c.cpu)), c.metric)
		b.Logf("%s: %v", c.metric, c.cpu)
	}
	b.Logf("isolate thread %+v; loads %v", isolate, load)
}

// heavyScenarios returns n variants (by seed) of the largest example, whose
// link previews spend the Cloudflare Worker's whole budget.
func heavyScenarios(b *testing.B, n int) [][]byte {
	data, err := os.ReadFile("../../examples/tpcb-32vcpu.json")
	if err != nil {
		b.Fatal(err)
	}
	var out [][]byte
	for i := range n {
		sc, err := engine.DecodeScenario(data, fmt.Sprintf("seed=%d", 1000+i))
		if err != nil {
			b.Fatal(err)
		}
		doc, err := sc.Canonical()
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, doc)
	}
	return out
}

// policyScenarios returns n variants (by seed) of saturated-sync run by
// examples/policies/scx_simple.star, whose link previews spend the Cloudflare
// Worker's whole budget, most of it on the policy's steps.
func policyScenarios(b *testing.B, n int) [][]byte {
	data, err := os.ReadFile("../../examples/saturated-sync.json")
	if err != nil {
		b.Fatal(err)
	}
	src, err := os.ReadFile("../../examples/policies/scx_simple.star")
	if err != nil {
		b.Fatal(err)
	}
	var out [][]byte
	for i := range n {
		sc, err := engine.DecodeScenario(data, fmt.Sprintf("seed=%d", 2000+i), "sched.policy=scx")
		if err != nil {
			b.Fatal(err)
		}
		sc.Sched.Scx.Source = string(src)
		doc, err := sc.Canonical()
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, doc)
	}
	return out
}

// threadMeter snapshots the CPU time of every thread of a process group.
type threadMeter struct {
	b     *testing.B
	pgid  int
	marks []map[sharetest.Thread]time.Duration
}

func (m *threadMeter) mark() {
	cpu, err := sharetest.ThreadCPU(m.pgid)
	if err != nil {
		m.b.Fatal(err)
	}
	m.marks = append(m.marks, cpu)
}

// per is th's CPU time between marks i and i+1, divided by the n requests made
// between them.
func (m *threadMeter) per(th sharetest.Thread, i, n int) time.Duration {
	return (m.marks[i+1][th] - m.marks[i][th]) / time.Duration(n)
}

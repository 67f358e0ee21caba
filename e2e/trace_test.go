package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"

	"schedplay/engine"
	"schedplay/trace"
)

// TestTraceDownload: the trace button of arm B saves its last 10 ms before the
// moment shown as the Chrome trace `schedplay run --trace` writes: the file the
// browser downloads is, byte for byte, trace.Write with trace.WindowOptions (the
// CLI's call) on arm B's scenario, and it passes trace/testdata/validate.mjs, the
// validator the CLI's traces pass.
func TestTraceDownload(t *testing.T) {
	ctx, base := browser(t, 1440, 900)
	open(t, ctx, base+"/#v=1&preset=tpcb-32vcpu&workload.clients=16&speed=max")
	eval[bool](t, ctx, `window.schedplay.runTo(200e6), true`)
	waitRun(t, ctx, `(s => !s.playing && s.now_ns === 200e6 && s.pending === 0)(window.schedplay.state())`, time.Minute)

	dir := t.TempDir()
	dctx, cancel := context.WithTimeout(ctx, 120*time.Second)
	defer cancel()
	progress := chromedp.Events(dctx, cdpbrowser.DownloadProgress)
	err := chromedp.Do(ctx,
		chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
			yes := true
			_, err := chromedp.Call(ctx, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
				Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllowAndName, DownloadPath: dir, EventsEnabled: &yes})
			return err
		}),
		chromedp.Click(chromedp.CSS("#trace-buttons button:nth-child(2)")))
	if err != nil {
		t.Fatal(err)
	}
	var path string
	for ev, err := range progress {
		if err != nil {
			t.Fatalf("waiting for the download: %v (page says %q)", err, eval[string](t, ctx, `document.getElementById('trace-status').textContent`))
		}
		if ev.State == cdpbrowser.DownloadProgressStateCompleted {
			path = filepath.Join(dir, ev.GUID)
			break
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const file = "schedplay-tpcb-32vcpu-pull-on-190ms-200ms.json"
	waitFor(t, ctx, `document.getElementById('trace-status').textContent.startsWith('Saved `+file+`')`, 10*time.Second)

	st := readRun(t, ctx)
	sc, err := engine.DecodeScenario(st.Scenario, st.Arms[1].Set...)
	if err != nil {
		t.Fatal(err)
	}
	sim, err := engine.NewSim(sc)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if _, err := trace.Write(&want, sim, trace.WindowOptions(190_000_000, 200_000_000)); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Errorf("the downloaded trace (%d bytes) differs from the CLI's (%d bytes)", len(got), want.Len())
	}

	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("node is not installed (CI must have it)")
		}
		t.Skip("node is not installed: the trace is not validated")
	}
	out, err := exec.Command(node, filepath.Join(repoRoot(t), "trace", "testdata", "validate.mjs"), path).CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "ok: ") {
		t.Errorf("validate.mjs: %v\n%s", err, out)
	}
	t.Logf("%s: %d bytes; validate.mjs: %s", file, len(got), bytes.TrimSpace(out))
}

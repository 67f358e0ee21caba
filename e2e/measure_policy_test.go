package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestMeasurePolicy reports how long the page takes to run hackbench to the
// end with the Starlark scx_simple (examples/policies/scx_simple.star, on the
// policy worker), against the native CLI running the same policy, and against
// the page running the engine's own Go scx_simple. It asserts nothing about
// speed:
//
//	SCHEDPLAY_MEASURE=1 go test ./e2e -run TestMeasurePolicy -v
func TestMeasurePolicy(t *testing.T) {
	if os.Getenv("SCHEDPLAY_MEASURE") != "1" {
		t.Skip("set SCHEDPLAY_MEASURE=1 to measure")
	}
	ctx, base := browser(t, 1400, 900)
	root := repoRoot(t)
	cli := filepath.Join(t.TempDir(), "schedplay")
	build := exec.Command("go", "build", "-o", cli, "./cmd/schedplay")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the CLI: %v\n%s", err, out)
	}
	start := time.Now()
	run := exec.Command(cli, "run", filepath.Join(root, "examples", "hackbench.json"),
		"--policy", filepath.Join(root, "examples", "policies", "scx_simple.star"), "--format", "json")
	if out, err := run.CombinedOutput(); err != nil {
		t.Fatalf("schedplay run: %v\n%.2000s", err, out)
	}
	native := time.Since(start)

	page := func(frag string) (time.Duration, string) {
		open(t, ctx, base+"/"+frag)
		waitFor(t, ctx, `window.schedplay.state().pending === 0`, 60*time.Second)
		start := time.Now()
		eval[bool](t, ctx, `window.schedplay.play(), true`)
		waitFor(t, ctx, `window.schedplay.state().done`, 600*time.Second)
		return time.Since(start), readRun(t, ctx).Runner
	}
	starlark, runner := page("#v=1&preset=hackbench&sched.policy=scx&compare=off&speed=max")
	goPolicy, goRunner := page("#v=1&preset=hackbench&compare=off&speed=max")
	t.Logf("hackbench to the end, one run, scx_simple:")
	t.Logf("  page, Starlark policy (%s): %.2f s; native CLI, the same policy: %.2f s (page/native %.1fx)",
		runner, starlark.Seconds(), native.Seconds(), starlark.Seconds()/native.Seconds())
	t.Logf("  page, the engine's Go scx_simple (%s): %.2f s (Starlark/Go in the page %.1fx)",
		goRunner, goPolicy.Seconds(), starlark.Seconds()/goPolicy.Seconds())
}

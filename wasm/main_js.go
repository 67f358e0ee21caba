// Command wasm is the schedplay playground in the browser: an Ebiten game that
// draws the simulations, built with GOOS=js GOARCH=wasm into static/schedplay.wasm.
// The simulations themselves run in engine workers (wasm/worker, a second and
// much smaller binary), reached through runner.Remote.
//
// The program is a thin shell: playground.Model holds all state and decides what is
// drawn, so it is tested natively; game_js.go hands Ebiten's Update and Draw to it
// and paints its mesh; bridge_js.go lets the page's JavaScript drive it;
// workers_js.go starts the workers and carries their messages. All files carry
// the _js suffix, so native builds and `go vet ./...` skip this package.
package main

import (
	"time"

	"github.com/hajimehoshi/ebiten/v2"

	"schedplay/playground"
	"schedplay/playground/lesson"
	"schedplay/playground/runner"
)

func main() {
	start := time.Now()
	// Go's monotonic clock under js/wasm is performance.now(); the model's budget
	// checks use it directly, without a JavaScript call each time.
	clock := func() float64 { return float64(time.Since(start).Nanoseconds()) / 1e6 }
	presets, probs := playground.BuiltinPresets()
	lessons, lessonErrs := lesson.Builtin()
	for _, err := range lessonErrs {
		probs = append(probs, "lesson "+err.Error())
	}
	tPresets := clock()
	// The page script leaves the URL's fragment and any shared scenario in
	// window.schedplayBoot before starting the program.
	frag, shared, shareID := bootArgs()
	// A shared scenario or a link that carries a sched_ext policy needs the
	// policy worker, which the default worker's first visit does without;
	// otherwise the page moves to it when an arm first needs it (the editor).
	policy := playground.SharedRunsPolicy(shared) || playground.FragmentHasPolicy(frag)
	answered := make(chan struct{}, 1)
	run, runName, stop := startRunner(policy, answered)
	var policyRunner func() (runner.Runner, string)
	if !policy {
		policyRunner = func() (runner.Runner, string) {
			stop()
			r, name, _ := startRunner(true, answered)
			return r, name
		}
	}
	m := playground.New(playground.Options{Presets: presets, Lessons: lessons, Clock: clock, Fragment: frag, Shared: shared,
		Runner: run, RunnerName: runName, PolicyRunner: policyRunner, Saved: newSavedStates(shareID)})
	m.NoteStartup("presets", tPresets)
	m.NoteStartup("model", clock()-tPresets)
	g := newGame(m)
	go func() {
		for range answered {
			g.service()
		}
	}()
	registerBridge(g, probs)

	ebiten.SetTPS(ebiten.SyncWithFPS) // one Update per frame; the model scales by wall time
	ebiten.SetRunnableOnUnfocused(true)
	// The game clears the screen itself, and only on a frame that paints
	// something new: a paused page, or a frame like the last, costs no GPU work
	// (Ebiten skips presenting when Draw draws nothing).
	ebiten.SetScreenClearedEveryFrame(false)
	if err := ebiten.RunGameWithOptions(g, &ebiten.RunGameOptions{ScreenTransparent: true}); err != nil {
		logError(err)
	}
}

package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"schedplay/engine"
	"schedplay/scxstar"
)

// A sched_ext policy in Starlark (docs/policies.md): the CLI links the binding
// (scxstar), which the engine does not, so sched.policy=scx with
// sched.scx.source runs here and not in the page's default engine worker.

// policyFlag is --policy FILE: a Starlark policy that replaces the scenario's
// scheduler with sched.policy=scx and the file as sched.scx.source.
type policyFlag struct{ path string }

// apply puts the policy file into sc, or leaves sc as it is without --policy.
// It reads at most one byte more than a source may hold, so that the size
// limit is reported by name rather than a huge file read whole.
func (p policyFlag) apply(sc *engine.Scenario) error {
	if p.path == "" {
		return nil
	}
	f, err := os.Open(p.path)
	if err != nil {
		return fmt.Errorf("--policy: %w", err)
	}
	defer f.Close()
	src, err := io.ReadAll(io.LimitReader(f, engine.MaxScxSourceBytes+1))
	if err != nil {
		return fmt.Errorf("--policy %s: %w", p.path, err)
	}
	sc.Sched.Policy = "scx"
	sc.Sched.Scx.Source = string(src)
	if err := sc.Validate(); err != nil {
		return fmt.Errorf("--policy %s: %w", p.path, err)
	}
	return nil
}

// compiler compiles the policy's source, its errors naming the file it came
// from: --policy's path, else the scenario's field.
func (p policyFlag) compiler() engine.ScxCompiler {
	if p.path != "" {
		return scxstar.CompilerNamed(p.path)
	}
	return scxstar.CompilerNamed("sched.scx.source")
}

// runScx runs sc to its horizon, compiling a sched.scx.source with compile.
func runScx(sc engine.Scenario, compile engine.ScxCompiler) (engine.Results, error) {
	s, err := engine.NewSimScx(sc, compile)
	if err != nil {
		return engine.Results{}, err
	}
	s.SetVisual(false)
	return s.Run(), nil
}

// starlarkGCPercent is the GC target run sets for a Starlark policy (as
// GOGC=400), unless GOGC is set. The interpreter allocates a frame for
// every callback and copies a builtin's arguments on every helper call
// (go.starlark.net's CallInternal), about 700 bytes per engine event under
// scx_simple.star, nearly all dead at once; the live heap stays at 1-2 MB.
// At the default GOGC=100 that is a collection every 10 ms or so (400 in a
// 2.5 s saturated-sync run), and on a busy machine each mark phase lasts
// milliseconds, during which every interpreter store goes through the write
// barrier: the profile put GC and barriers at a quarter of the run. Five
// times the live heap costs some 12 MB more and cuts the collections
// fivefold. A Go policy allocates little and is not affected.
const starlarkGCPercent = 400

// tuneGCForStarlark applies starlarkGCPercent to a run of sc when its
// scheduler is a Starlark policy and GOGC leaves the choice to us.
func tuneGCForStarlark(sc engine.Scenario) {
	if sc.Sched.Policy != "scx" || sc.Sched.Scx.Source == "" {
		return
	}
	if _, set := os.LookupEnv("GOGC"); set {
		return
	}
	debug.SetGCPercent(starlarkGCPercent)
}

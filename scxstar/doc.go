// Package scxstar runs sched_ext policies written in Starlark on the engine's
// sched_ext core (engine.ScxKernel; docs/policies.md has the API, and
// examples/policies/ has scx_simple, scx_central, scx_qmap and a WAKE_SYNC
// variant; testdata/selftests/ ports the kernel's sched_ext selftests).
//
// Compile turns a policy's source into engine.ScxOps: each callback the
// source defines (init, enable, select_cpu, enqueue, dispatch, runnable,
// running, stopping, quiescent, update_idle, tick, timer) is called by the
// core with the module scx for its helpers. Starlark is hermetic (no clock,
// no I/O, insertion-ordered dicts, deterministic hashing); this binding adds
// no math module, keeps DSQ ids and flags in int32 range, and bounds every
// callback with a step budget (SetMaxExecutionSteps), so a policy gives the
// same decisions natively and in js/wasm and cannot hang a run. A policy's
// state is its globals' lists and dicts, which a checkpoint saves (state.go).
//
// A policy's callbacks run at nearly every engine event, so a call allocates
// as little as the interpreter lets it: a task has one value, kept by pid
// (task.go); a callback's argument tuple is reused; helpers unpack positional
// arguments without UnpackArgs (args.go); the module and max and min have
// shortcuts (scxmodule.go, minmax.go). None of these changes what a policy
// computes or the steps it executes (TestStepsPinned).
//
// The engine does not import this package, so the page's engine worker does
// not carry an interpreter; the CLI links it (engine.NewSimScx with Compile).
package scxstar

//go:build scx

package main

import (
	"schedplay/engine"
	"schedplay/scxstar"
)

// policyCompiler is the policy worker's (built with -tags scx into
// static/schedplay-policy-worker.wasm): the Starlark binding, so that an arm
// whose scenario carries a sched_ext policy (sched.scx.source) runs it. The
// page starts this build only for such an arm; the default worker stays
// without an interpreter.
func policyCompiler() engine.ScxCompiler { return scxstar.CompilerNamed("policy.star") }

//go:build !scx

package main

import "schedplay/engine"

// policyCompiler is the default worker's: none, so the first-visit bundle
// carries no interpreter, and a scenario with a policy's source is refused by
// the field's name (the page starts the policy worker for it).
func policyCompiler() engine.ScxCompiler { return nil }

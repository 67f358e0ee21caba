package preview

import (
	"schedplay/engine"
	"schedplay/view"
)

// A scenario's own sched_ext policy in a preview: run with the server's
// compiler, and named in the link text.

// ComputeStatesWith is ComputeStates with compile for a scenario's own
// sched_ext policy (sched.scx.source): the Starlark binding where the server
// links it. Without one such a scenario has no preview.
func ComputeStatesWith(sc engine.Scenario, budget int64, compile engine.ScxCompiler) (Preview, []byte, error) {
	return compute(sc, budget, true, compile)
}

// PolicyName names the scenario's own sched_ext policy for its card and link
// text: the first line of its source that is a comment, without the "#", or
// "unnamed"; "" when the scenario runs none (any arm with sched.policy=scx and
// a source counts).
func PolicyName(sc engine.Scenario) string {
	src := sc.Sched.Scx.Source
	runs := sc.Sched.Policy == "scx"
	for _, a := range sc.Arms {
		runs = runs || a.Set["sched.policy"] == "scx"
	}
	if !runs || src == "" {
		return ""
	}
	return view.PolicyTitle(src)
}

package preview

import (
	"strings"

	"schedplay/engine"
	"schedplay/view"
)

// A scenario's own sched_ext policy in a preview: run with the server's
// compiler within the preview's budget, named in the link text, and its
// failures shown on the card (a policy that does not compile, one ejected
// during the run) rather than refused.

// ComputeStatesWith is ComputeStates with compile for a scenario's own
// sched_ext policy (sched.scx.source): the Starlark binding where the server
// links it. Without one such a scenario has no preview. A policy compile
// refuses is no error: the preview then has no arms and says why
// (Preview.PolicyError).
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

// PolicyStepsPerEvent is how many steps of a policy's Starlark count as one
// engine event against a preview's budget. The budget is in events so that a
// preview is the same on every host; a policy's work is counted the same way,
// in its steps (scxstar.Policy.Steps), which every host counts alike. Measured
// on the policy scenarios (saturated-sync and hackbench with
// examples/policies/scx_simple.star), a step takes about 40 ns natively and
// 270-300 ns as wasm in V8, an engine event about 190 ns natively and 850 ns
// in the Cloudflare Worker (DefaultEventBudget, BenchmarkCloudflare's
// heavy-share-cpu-ms): three steps cost an event in the Cloudflare Worker,
// whose CPU is billed, and four to five natively, where a policy's preview
// then stops a little early. So a budget buys about as much CPU time with a
// policy as without one.
const PolicyStepsPerEvent = 3

// policyChunk is how many events an arm that runs a policy processes between
// budget checks. An arm without one runs a whole lockstep step at a time,
// which is cheap enough; a policy's callbacks may take up to
// scxstar.CallbackSteps each, so a step of a slow policy could cost minutes of
// CPU past the budget, and a few events cannot.
const policyChunk = 16

// stepper is a compiled policy that counts its work (scxstar.Policy).
type stepper interface{ Steps() uint64 }

// metered wraps compile to keep what the preview needs of an arm's policy:
// the compiled policy, to count its steps, or compile's refusal. It is nil
// without a compiler, as engine.NewSimScx expects then.
func metered(compile engine.ScxCompiler, pol *stepper, refused *error) engine.ScxCompiler {
	if compile == nil {
		return nil
	}
	return func(name, src string, sliceDflNs int64) (engine.ScxOps, error) {
		ops, err := compile(name, src, sliceDflNs)
		*refused = err
		*pol, _ = ops.(stepper)
		return ops, err
	}
}

// work is what the arms have spent of a preview's budget: their engine events
// and their policies' steps (PolicyStepsPerEvent).
func work(runs []*armRun) (events, steps int64) {
	for _, r := range runs {
		events += r.sim.Events()
		if r.policy != nil {
			steps += int64(r.policy.Steps())
		}
	}
	return events, steps
}

func spent(events, steps int64) int64 { return events + steps/PolicyStepsPerEvent }

// advance runs every arm to t. An arm that runs a policy goes policyChunk
// events at a time, and advance stops, cut, as soon as the arms have spent
// budget: the arms are then at different moments short of t.
func advance(runs []*armRun, t, budget int64) (cut bool) {
	for _, r := range runs {
		if r.policy == nil {
			r.sim.RunUntil(t)
			continue
		}
		for r.sim.RunUntilN(t, policyChunk) == policyChunk {
			if spent(work(runs)) >= budget {
				return true
			}
		}
	}
	return false
}

// PolicyError is why the engine refused a scenario's own policy: the
// compiler's message, one line ("line 3: syntax error: got newline, want
// ':'", view.PolicyMessage), the place it names (from 1; 0 when none), and
// that line of the source, for the card to quote.
type PolicyError struct {
	Message string `json:"message"`
	Line    int    `json:"line,omitzero"`
	Col     int    `json:"col,omitzero"`
	Code    string `json:"code,omitzero"`
}

// maxCode bounds the source line a PolicyError quotes: the card shows about
// 70 characters of it.
const maxCode = 200

// refusedPreview is the preview of a scenario whose policy compile refused
// with err: no arm ran, and it says why.
func refusedPreview(sc engine.Scenario, specs []armSpec, err error) Preview {
	msg, line, col := view.PolicyMessage(err.Error())
	pe := &PolicyError{Message: view.Clip(msg, 300), Line: line, Col: col}
	if line > 0 {
		n := 0
		for l := range strings.Lines(sc.Sched.Scx.Source) {
			if n++; n == line {
				pe.Code = view.Clip(strings.TrimRight(l, "\r\n"), maxCode)
				break
			}
		}
	}
	return Preview{
		Name: sc.Name, Policy: PolicyName(sc), VCPUs: sc.Machine.VCPUs, Workload: sc.Workload.Kind, Clients: sc.Workload.Clients,
		Seed: sc.Seed, HorizonMs: float64(sc.DurationMs), Compared: compared(sc), Platform: platformOf(specs), PolicyError: pe,
	}
}

// Ejection says when and why arm i's policy was ejected during the preview's
// run, in a line: "policy ejected at 1.2 s: watchdog: runnable task stall:
// ..."; "" when it was not.
func (p *Preview) Ejection(i int) string {
	at, reason, ok := p.ejection(i)
	if !ok {
		return ""
	}
	return "policy ejected at " + at + ": " + reason
}

// ejection is when arm i's policy was ejected and why (view.PolicyMessage);
// ok is false when it was not.
func (p *Preview) ejection(i int) (at, reason string, ok bool) {
	x := p.Arms[i].Results.ScxExit
	if !x.Ejected() {
		return "", "", false
	}
	reason, _, _ = view.PolicyMessage(x.Reason)
	// Three digits, as the page's numbers: the page's clock (view.SimTime)
	// groups with a thin space, which the card's font does not have.
	at = "0 s"
	if x.AtNs > 0 {
		at = view.Duration(float64(x.AtNs))
	}
	return at, view.Clip(reason, 300), true
}

package playground

// The page's own texts in a scenario: a sched_ext policy (policy.go) and an
// rt-app workload (workload.go), each set into the source scenario the knobs
// apply to, so that a compared knob, a preset's arms and a share all carry
// them.

import (
	"schedplay/internal/shareapi"
	"schedplay/kerneltrace"
	"schedplay/playground/urlstate"
)

// withOwn is the source with the page's policy (sched.scx.source) and rt-app
// workload (workload.kind=rtapp, workload.rtapp) set into its own scenario;
// "" leaves the scenario's. An rt-app workload replaces the source's: the
// run lasts its global.duration up to a page's limit, MaxDurationMs (else
// the default scenario's), from time
// zero with no warm-up (rt-app's figures cover the whole run), and the
// source's published figures, which are about its own workload, go.
//
// A knob choosing the scheduler (sched.policy) is set into the scenario too:
// what an rt-app description may ask for depends on it (a real-time task
// runs under linux, not under OSv), and the knobs apply only after the
// scenario with the description is checked.
func (src source) withOwn(policy, rtapp string, knobs []urlstate.Knob) (source, error) {
	sc, err := shareapi.WithTrace(src.plain, src.trace)
	if err != nil {
		return src, err
	}
	if policy != "" {
		sc.Sched.Scx.Source = policy
	}
	if rtapp != "" {
		for _, k := range knobs {
			if k.Path == "sched.policy" {
				sc.Sched.Policy = k.Value
			}
		}
	}
	if rtapp != "" {
		setRTApp(&sc, rtapp)
	}
	// An rt-app workload replaces a trace's replay (the source keeps the
	// trace, paired with plain, for when the workload goes again); the
	// document holds a placeholder in the model's place.
	switch {
	case rtapp != "":
		sc.Workload.Trace = kerneltrace.Model{}
	case src.trace != nil:
		sc.Workload.Trace = shareapi.Placeholder()
	}
	data, err := sc.Canonical()
	if err != nil {
		return src, err
	}
	out := src
	out.rtapp = rtapp
	if sc, err = shareapi.WithTrace(data, out.dataTrace()); err != nil {
		return src, err
	}
	p := src.preset
	p.Data = data
	out = newSource(p, sc, src.shared)
	out.plain, out.policy, out.rtapp, out.trace, out.capacity = src.plain, policy, rtapp, src.trace, src.capacity
	return out, nil
}

// withOwn is the setup with the page's texts set (source.withOwn), the knobs
// reapplied.
func (s setup) withOwn(policy, rtapp string) (setup, []string, error) {
	src, err := s.src.withOwn(policy, rtapp, s.knobs)
	if err != nil {
		return s, nil, err
	}
	out, probs := applyKnobs(src, s.knobs)
	return out, probs, nil
}

// restartWith shows setup s from time zero (an editor's Run), noting what
// applying the knobs to it rejected.
func (m *Model) restartWith(s setup, probs []string) {
	m.problems = append(m.problems, probs...)
	m.setup = s
	m.view.AtNs = 0
	m.dropSweep()
	m.rebuild()
}

package lesson

import (
	"strconv"
	"strings"

	"schedplay/examples/policies"
	rtappex "schedplay/examples/rtapp"
)

// MaxPolicyEdits bounds a step's edits of its example policy.
const MaxPolicyEdits = 8

// Policy is a step's sched_ext policy: one of examples/policies by its stem,
// with Replace's edits applied in order, each [old, new] replacing the one
// place old appears. Writing a step's policy as an edit of an example keeps
// the lesson's file readable and shows the class the very edit the caption
// talks about (the page's editor shows the result).
type Policy struct {
	Example string      `json:"example"`
	Replace [][2]string `json:"replace,omitzero"`

	// Source is the policy with the edits made (read by Decode).
	Source string `json:"-"`
}

// check resolves the policy's source, naming the step and field of an
// example that does not exist or an edit that does not apply.
func (p *Policy) check(n int) error {
	var names []string
	for _, ex := range policies.Examples() {
		names = append(names, ex.Name)
		if ex.Name == p.Example {
			p.Source = ex.Source
		}
	}
	if p.Source == "" {
		return stepErr(n, "policy.example", "%q is not one of the example policies (%s)", p.Example, strings.Join(names, ", "))
	}
	if len(p.Replace) > MaxPolicyEdits {
		return stepErr(n, "policy.replace", "has %d edits, above the limit of %d", len(p.Replace), MaxPolicyEdits)
	}
	for i, r := range p.Replace {
		switch strings.Count(p.Source, r[0]) {
		case 1:
			p.Source = strings.Replace(p.Source, r[0], r[1], 1)
		case 0:
			return stepErr(n, "policy.replace."+strconv.Itoa(i), "%q is not in the policy (after the edits before it)", shorten(r[0], 60))
		default:
			return stepErr(n, "policy.replace."+strconv.Itoa(i), "%q appears more than once in the policy: give more of it", shorten(r[0], 60))
		}
	}
	return nil
}

// Workload is a step's rt-app workload: one of examples/rtapp by its stem,
// run as the scenario's workload (engine.Scenario.UseRTApp), as the page's
// workload editor runs one. A lesson uses it for what no preset's workload
// does, such as tasks a parent forks (rt-app's "fork" event), which the
// Linux reference places as wake_up_new_task does.
type Workload struct {
	Example string `json:"example"`

	// Source is the description (read by Decode).
	Source string `json:"-"`
}

// check resolves the workload's description, naming the step and field of
// an example that does not exist.
func (w *Workload) check(n int) error {
	var names []string
	for _, ex := range rtappex.Examples() {
		names = append(names, ex.Name)
		if ex.Name == w.Example {
			w.Source = ex.Text
		}
	}
	if w.Source == "" {
		return stepErr(n, "workload.example", "%q is not one of the example rt-app workloads (%s)", w.Example, strings.Join(names, ", "))
	}
	return nil
}

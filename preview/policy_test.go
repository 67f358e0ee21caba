package preview

import (
	"testing"

	"schedplay/engine"
)

// TestPolicyName: a scenario's own sched_ext policy is named by the first
// comment line of its source, in a single run or in any arm; a scenario that
// runs none has no name.
func TestPolicyName(t *testing.T) {
	for _, tc := range []struct {
		desc, policy, src string
		arm               string // an arm's sched.policy, "" for no arms
		want              string
	}{
		{"no policy", "osv", "", "", ""},
		{"the core's defaults", "scx", "", "", ""},
		{"first comment line", "scx", "\n  # My FIFO \n# more\ndef enqueue(p, f):\n    pass\n", "", "My FIFO"},
		{"empty comments skipped", "scx", "#\n#   \n# Vtime, weighted\n", "", "Vtime, weighted"},
		{"code before any comment", "scx", "X = 1\n# late\n", "", "unnamed"},
		{"kept but not run", "scx_simple", "# mine\n", "", ""},
		{"run by an arm", "scx_simple", "# mine\n", "scx", "mine"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			sc := engine.DefaultScenario()
			sc.Sched.Policy, sc.Sched.Scx.Source = tc.policy, tc.src
			if tc.arm != "" {
				sc.Arms = []engine.Arm{{Name: "a", Set: map[string]string{}}, {Name: "b", Set: map[string]string{"sched.policy": tc.arm}}}
			}
			if got := PolicyName(sc); got != tc.want {
				t.Errorf("PolicyName = %q, want %q", got, tc.want)
			}
		})
	}
}

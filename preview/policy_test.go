package preview

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"schedplay/engine"
	"schedplay/scxstar"
	"schedplay/view"
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

// policyScenario is a small single run of sched.policy=scx with src.
func policyScenario(t *testing.T, src string) engine.Scenario {
	t.Helper()
	sc, err := engine.DecodeScenario([]byte(`{"version":1,"name":"my policy"}`), "duration_ms=300", "warmup_ms=50",
		"machine.vcpus=4", "workload.clients=8", "sched.policy=scx")
	if err != nil {
		t.Fatal(err)
	}
	sc.Sched.Scx.Source = src
	return sc
}

// saveCard writes a card to $SCHEDPLAY_CARDS/name.png when that is set, to be
// looked at.
func saveCard(t *testing.T, name string, png []byte) {
	if dir := os.Getenv("SCHEDPLAY_CARDS"); dir != "" {
		if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPolicyRefused: a policy the compiler refuses is a preview, not an
// error: no arm ran, its card and link text say it does not compile, quoting
// the compiler's line.
func TestPolicyRefused(t *testing.T) {
	const head = "# Broken on purpose\n"
	for _, tc := range []struct {
		desc, src string
		line, col int
		message   string // in the preview's message
		code      string
	}{
		{"a syntax error", head + "LIMIT = 1 + * 2\n",
			2, 13, "line 2: syntax error", "LIMIT = 1 + * 2"},
		{"an undefined name", head + "def enqueue(p, f):\n\tscx.dsq_insert(p, DSQ_GLOBAL, scx.SLICE_DFL, f)\n",
			3, 20, "line 3: undefined: DSQ_GLOBAL", "\tscx.dsq_insert(p, DSQ_GLOBAL, scx.SLICE_DFL, f)"},
		{"far along a long line", head + "X = [" + strings.Repeat("1, ", 40) + "nope]\n",
			2, 126, "line 2: undefined: nope", "X = [" + strings.Repeat("1, ", 40) + "nope]"},
		{"the top level fails", head + "X = 1 // 0\n", 2, 7, "line 2: floored division by zero", "X = 1 // 0"},
		{"a callback that is no def", head + "enqueue = 3\n", 0, 0, "enqueue is a int, not a function", ""},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			p, states, err := ComputeStatesWith(policyScenario(t, tc.src), 100_000, scxstar.CompilerNamed("policy.star"))
			if err != nil {
				t.Fatalf("ComputeStatesWith: %v, want a preview that says the policy does not compile", err)
			}
			e := p.PolicyError
			if e == nil || len(p.Arms) != 0 || states != nil {
				t.Fatalf("PolicyError %+v, %d arms, %d bytes of states; want the refusal and nothing run", e, len(p.Arms), len(states))
			}
			if e.Line != tc.line || e.Col != tc.col || !strings.Contains(e.Message, tc.message) || e.Code != tc.code {
				t.Errorf("PolicyError = %+v, want line %d col %d, a message with %q, code %q", *e, tc.line, tc.col, tc.message, tc.code)
			}
			if title := p.Title(); title != "my policy · custom policy: Broken on purpose (does not compile)" {
				t.Errorf("Title = %q", title)
			}
			if d := p.Description(); !strings.Contains(d, "does not compile") || !strings.Contains(d, tc.message) {
				t.Errorf("Description = %q, want it to say the policy does not compile and why", d)
			}
			card, err := p.PNG()
			if err != nil {
				t.Fatal(err)
			}
			if cfg, err := png.DecodeConfig(bytes.NewReader(card)); err != nil || cfg.Width != CardW || cfg.Height != CardH {
				t.Errorf("card %dx%d (%v), want %dx%d", cfg.Width, cfg.Height, err, CardW, CardH)
			}
			if svg := string(p.SVG(view.Dark())); !strings.Contains(svg, "does not compile") {
				t.Errorf("the chart does not say the policy does not compile:\n%.400s", svg)
			}
			saveCard(t, "refused-"+strings.ReplaceAll(tc.desc, " ", "-"), card)
		})
	}
}

// TestPolicyEjected: a policy ejected during the preview's run (here its
// callback fails on the fifth task it enqueues) is shown: the card and the
// description say when and why, beside the numbers, in a single run and in
// the one arm of two that runs it.
func TestPolicyEjected(t *testing.T) {
	src := "# Fails on the fifth\nseen = {\"n\": 0}\n\ndef enqueue(p, f):\n    seen[\"n\"] += 1\n" +
		"    if seen[\"n\"] == 5:\n        fail(\"five is enough\")\n    scx.dsq_insert(p, scx.DSQ_GLOBAL, scx.SLICE_DFL, f)\n"
	for _, tc := range []struct {
		desc    string
		arms    []engine.Arm
		ejected int    // the arm whose policy is ejected
		says    string // in the description
	}{
		{"a single run", nil, 0, " Policy ejected at "},
		{"the second of two arms", []engine.Arm{{Name: "fair", Set: map[string]string{"sched.policy": "linux"}}, {Name: "mine", Set: map[string]string{}}},
			1, " mine: policy ejected at "},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			sc := policyScenario(t, src)
			sc.Arms = tc.arms
			p, _, err := ComputeStatesWith(sc, 100_000, scxstar.CompilerNamed("policy.star"))
			if err != nil {
				t.Fatal(err)
			}
			for i := range p.Arms {
				x := p.Ejection(i)
				if i != tc.ejected {
					if x != "" {
						t.Errorf("arm %d: Ejection = %q, want none", i, x)
					}
					continue
				}
				if !strings.HasPrefix(x, "policy ejected at ") || !strings.HasSuffix(x, ": enqueue: line 7: fail: five is enough") {
					t.Errorf("arm %d: Ejection = %q", i, x)
				}
			}
			if d := p.Description(); !strings.Contains(d, "throughput") || !strings.Contains(d, tc.says) || !strings.Contains(d, "five is enough") {
				t.Errorf("Description = %q, want the numbers and %q", d, tc.says)
			}
			card, err := p.PNG()
			if err != nil {
				t.Fatal(err)
			}
			saveCard(t, "ejected-"+strings.ReplaceAll(tc.desc, " ", "-"), card)
		})
	}
}

// TestPolicyBudget: a policy's steps spend the preview's budget, so a slow
// policy stops the preview early instead of running on: within a few events'
// callbacks of the budget (policyChunk), the same on every run.
func TestPolicyBudget(t *testing.T) {
	slow := "# Busy\ndef enqueue(p, f):\n    for i in range(3000):\n        pass\n    scx.dsq_insert(p, scx.DSQ_GLOBAL, scx.SLICE_DFL, f)\n"
	const budget = 200_000
	for _, tc := range []struct {
		desc string
		arms []engine.Arm
	}{
		{"a slow policy", nil},
		{"a slow policy in one arm of two", []engine.Arm{{Name: "fair", Set: map[string]string{"sched.policy": "linux"}}, {Name: "busy", Set: map[string]string{}}}},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			sc := policyScenario(t, slow)
			sc.Arms = tc.arms
			var first Preview
			for run := range 2 {
				p, _, err := ComputeStatesWith(sc, budget, scxstar.CompilerNamed("policy.star"))
				if err != nil {
					t.Fatal(err)
				}
				if p.PolicySteps == 0 || p.Complete {
					t.Fatalf("PolicySteps %d, complete %v: want a preview the policy's steps cut short", p.PolicySteps, p.Complete)
				}
				// A callback runs about 9000 steps here; an event runs a few.
				over := spent(p.Events, p.PolicySteps) - budget
				if over < 0 || over > policyChunk*4*9000/PolicyStepsPerEvent {
					t.Errorf("spent %d events and %d steps: %d past the budget", p.Events, p.PolicySteps, over)
				}
				if run == 0 {
					first = p
				} else if p.Events != first.Events || p.PolicySteps != first.PolicySteps || p.ReachedMs != first.ReachedMs {
					t.Errorf("second run spent %d events, %d steps to %v ms; first %d, %d to %v ms", p.Events, p.PolicySteps, p.ReachedMs,
						first.Events, first.PolicySteps, first.ReachedMs)
				}
			}
		})
	}
}

// TestPolicyWithoutCompiler: without a compiler a policy is the scenario's
// problem, not the policy's: an error naming the field, as before.
func TestPolicyWithoutCompiler(t *testing.T) {
	_, err := Compute(policyScenario(t, "# fine\n"), 100_000)
	if err == nil || !strings.Contains(err.Error(), "sched.scx.source") {
		t.Errorf("Compute = %v, want an error naming sched.scx.source", err)
	}
}

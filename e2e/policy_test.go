package e2e

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"

	"schedplay/engine"
	"schedplay/examples"
	"schedplay/scxstar"
)

// TestSharedPolicyRuns: a shared scenario that carries its own sched_ext
// policy (sched.policy=scx, sched.scx.source) opens on the policy worker and
// shows, at a t= moment, exactly the results the native engine computes with
// the same policy from time zero, in every arm the page compares; an arm's
// trace download runs on the policy worker too, and so does its embed.
func TestSharedPolicyRuns(t *testing.T) {
	if os.Getenv("SCHEDPLAY_E2E_URL") != "" {
		t.Skip("needs the test's own share stand-in")
	}
	ctx, base := browser(t, 1280, 860)
	data, err := fs.ReadFile(examples.FS, "saturated-sync.json")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(repoRoot(t), "examples", "policies", "scx_simple.star"))
	if err != nil {
		t.Fatal(err)
	}
	sc, err := engine.DecodeScenario(data, "duration_ms=600", "sched.policy=scx")
	if err != nil {
		t.Fatal(err)
	}
	sc.Sched.Scx.Source = string(src)
	doc, err := sc.Canonical()
	if err != nil {
		t.Fatal(err)
	}
	shared.share.mu.Lock()
	shared.share.data["policyshare"] = doc
	shared.share.mu.Unlock()

	const atNs = 300_000_000
	open(t, ctx, base+"/s/policyshare#v=1&t=300ms")
	waitRun(t, ctx, `(s => s.now_ns === 300000000 && !s.jump && s.pending === 0 && !s.playing)(window.schedplay.state())`, time.Minute)
	st := stateAs[struct {
		Runner   string   `json:"runner"`
		Problems []string `json:"problems"`
		Message  string   `json:"message"`
		Refused  string   `json:"refused"`
		Arms     []struct {
			Set     []string `json:"set"`
			Metrics struct {
				Results engine.Results `json:"results"`
			} `json:"metrics"`
		} `json:"arms"`
	}](t, ctx)
	if !strings.Contains(st.Runner, "(policy)") || len(st.Problems) > 0 || st.Refused != "" || len(st.Arms) == 0 {
		t.Fatalf("runner %q, problems %v, refused %q, message %q, %d arms", st.Runner, st.Problems, st.Refused, st.Message, len(st.Arms))
	}

	if got := eval[string](t, ctx, `(s => s.selectedOptions.length ? s.selectedOptions[0].textContent : '')(document.getElementById('policy'))`); !strings.Contains(got, "your own policy") {
		t.Errorf("the scheduler select shows %q, want the scenario's own policy named", got)
	}
	screenshot(t, ctx, viewport, "shared-policy")
	for i, a := range st.Arms {
		armSc, err := engine.DecodeScenario(doc, a.Set...)
		if err != nil {
			t.Fatal(err)
		}
		sim, err := engine.NewSimScx(armSc, scxstar.CompilerNamed("policy.star"))
		if err != nil {
			t.Fatal(err)
		}
		sim.AddWindow(0, armSc.WarmupMs)
		sim.SetVisual(false)
		sim.RunUntil(atNs)
		want, _ := json.Marshal(sim.Results())
		got, _ := json.Marshal(a.Metrics.Results)
		if string(got) != string(want) {
			t.Errorf("arm %d (%v) at %d ns:\n page   %s\n native %s", i, a.Set, atNs, got, want)
		}
	}

	// The arm's trace re-runs it from zero on a policy worker of its own.
	eval[bool](t, ctx, `document.querySelector('#trace-buttons button:nth-child(1)').click(), true`)
	waitFor(t, ctx, `(t => t.startsWith('Saved ') || t.includes('refused') || t.includes('failed'))(document.getElementById('trace-status').textContent)`, 2*time.Minute)
	if got := eval[string](t, ctx, `document.getElementById('trace-status').textContent`); !strings.HasPrefix(got, "Saved ") {
		t.Errorf("the policy arm's trace: %q", got)
	}

	// Embedded (the page's Copy embed code on a share page keeps its /s/ path),
	// it plays on the policy worker too.
	open(t, ctx, base+"/s/policyshare#v=1&embed=1&speed=20ms")
	waitRun(t, ctx, `(s => s.embed && s.playing && s.now_ns > 20000000 && s.refused === '' && s.runner.includes('(policy)'))(window.schedplay.state())`, time.Minute)
}

package scxstar

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"schedplay/engine"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// TestGoldenPolicies pins the exact results of each example policy on a short
// run, with a digest of its decision records. The same golden file is checked
// natively and under GOOS=js GOARCH=wasm (.ci/run): a Starlark policy makes
// the same decisions on both, which is what lets a shared link replay it.
func TestGoldenPolicies(t *testing.T) {
	type run struct {
		Policy    string         `json:"policy"`
		Example   string         `json:"example"`
		Results   engine.Results `json:"results"`
		Decisions string         `json:"decisions_sha256"`
	}
	var got []run
	for _, policy := range []string{"scx_simple", "scx_central", "scx_wakesync", "scx_qmap", "scx_bpfland", "scx_p2dq", "scx_cosmos"} {
		src := policySource(t, policy)
		for _, ex := range []string{"saturated-sync", "hackbench"} {
			sc := withPolicy(readExample(t, ex, "sched.policy=scx_simple", "duration_ms=120", "warmup_ms=20"), src)
			s, err := engine.NewSimScx(sc, CompilerNamed(policy+".star"))
			if err != nil {
				t.Fatal(err)
			}
			s.SetVisual(false)
			res := s.Run()
			dec, err := json.Marshal(s.Decisions(nil), json.Deterministic(true))
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(dec)
			got = append(got, run{policy, ex, res, hex.EncodeToString(sum[:])})
		}
	}
	out, err := json.Marshal(got, json.Deterministic(true))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "golden_policies.json")
	if *update {
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(out) != string(want) {
		t.Errorf("results differ from %s:\n got %.1000s\nwant %.1000s", path, out, want)
	}
}

// TestPrintGoesToDecisionRecord: print() in a callback becomes a decision
// record of the CPU the callback ran for, naming the task it was about, so
// "explain a decision" shows what the policy said.
func TestPrintGoesToDecisionRecord(t *testing.T) {
	src := policySource(t, "scx_simple") + `
def runnable(p, enq_flags):
    print("waking pid %d" % p.pid)
`
	sc := withPolicy(readExample(t, "saturated-sync", "sched.policy=scx_simple", "duration_ms=40", "warmup_ms=10"), src)
	_, s := runJSON(t, sc)
	n := 0
	for _, d := range s.Decisions(nil) {
		if d.Kind != engine.DecPolicyPrint {
			continue
		}
		n++
		if want := "waking pid "; !strings.HasPrefix(d.Reason, want) || d.Thread < 0 || d.Reason != want+strconv.Itoa(int(d.Thread)) {
			t.Fatalf("a print record says %q about thread %d on CPU %d: want the woken task's pid", d.Reason, d.Thread, d.CPU)
		}
		if d.CPU < 0 || int(d.CPU) >= sc.Machine.VCPUs {
			t.Fatalf("a print record is on CPU %d", d.CPU)
		}
	}
	if n == 0 {
		t.Fatal("no print record among the decisions")
	}
}

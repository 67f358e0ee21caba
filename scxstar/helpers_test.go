package scxstar

import (
	"os"
	"path/filepath"
	"testing"

	"schedplay/engine"
)

// readExample decodes examples/<name>.json with overrides.
func readExample(t testing.TB, name string, sets ...string) engine.Scenario {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "examples", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	sc, err := engine.DecodeScenario(data, sets...)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// policySource reads examples/policies/<name>.star.
func policySource(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "examples", "policies", name+".star"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// withPolicy returns sc under sched.policy=scx with src.
func withPolicy(sc engine.Scenario, src string) engine.Scenario {
	sc.Sched.Policy = "scx"
	sc.Sched.Scx.Source = src
	return sc
}

// runJSON runs sc to its horizon and returns its results and its retained
// decision records as JSON.
func runJSON(t *testing.T, sc engine.Scenario) ([]byte, *engine.Sim) {
	t.Helper()
	s, err := engine.NewSimScx(sc, CompilerNamed("policy.star"))
	if err != nil {
		t.Fatal(err)
	}
	s.SetVisual(false)
	return resultsJSON(t, s.Run(), s), s
}

// topoScenario is an rt-app scenario on machine topo (ktstr notation), of
// durMs with warmMs of warm-up: what the ports' tests run their promises on.
func topoScenario(t *testing.T, topo string, durMs, warmMs int64, rtapp string) engine.Scenario {
	t.Helper()
	sc := engine.DefaultScenario()
	shape, err := engine.ParseTopology(topo)
	if err != nil {
		t.Fatal(err)
	}
	sc.Machine.Topology, sc.Machine.VCPUs = topo, shape.CPUs()
	sc.DurationMs, sc.WarmupMs = durMs, warmMs
	sc.Workload.Kind = engine.WorkloadRTApp
	sc.Workload.RTApp = rtapp
	return sc
}

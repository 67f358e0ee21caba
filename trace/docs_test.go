package trace

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// exampleTrace is the small trace kept in the docs (go test ./trace -run
// TestExampleTrace -update rewrites it): 1 ms of the 32-vCPU pull scenario's busy
// steady state, everything on.
const exampleTrace = "../docs/example-trace.json"

// exampleMaxBytes keeps the committed example small.
const exampleMaxBytes = 400 << 10

func TestExampleTrace(t *testing.T) {
	if *update {
		// Half a millisecond of the busy steady state: every kind of thing the
		// package writes, in a file small enough to commit.
		sc, start, _ := pullScenario(t, 1)
		until := start + 500_000
		var buf bytes.Buffer
		if _, err := Write(&buf, newSim(t, sc), Options{StartNs: start, UntilNs: until, CompletionBucketNs: 100_000}); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(exampleTrace, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(exampleTrace)
	if err != nil {
		t.Fatalf("%v (go test ./trace -run TestExampleTrace -update makes it)", err)
	}
	if len(data) > exampleMaxBytes {
		t.Errorf("%s is %d bytes, above %d", exampleTrace, len(data), exampleMaxBytes)
	}
	p, err := parseTrace(data)
	if err != nil {
		t.Fatalf("%s: %v", exampleTrace, err)
	}
	if p.Other["scenario"] != "tpcb-32vcpu" {
		t.Errorf("example is of scenario %v, want tpcb-32vcpu", p.Other["scenario"])
	}
	// It shows every kind of thing the package writes.
	seen := map[string]bool{}
	for _, l := range p.Slices {
		for _, s := range l {
			seen["slice "+s.Cat] = true
			if s.Cat == "idle" {
				seen[s.Name] = true
			}
		}
	}
	for _, l := range p.Instants {
		for _, e := range l {
			seen["instant "+e.Cat] = true
		}
	}
	for _, f := range p.Flows {
		seen["flow "+f.Name] = true
	}
	if len(p.Counters) > 0 {
		seen["counter"] = true
	}
	for _, k := range []string{"slice thread", "slice idle", "spin", "halt", "waking", "irq", "instant decision",
		"instant migrate", "instant ipi", "flow wakeup", "flow pull", "flow donate", "counter"} {
		if !seen[k] {
			t.Errorf("%s has no %s", exampleTrace, k)
		}
	}
}

// TestNodeValidator checks traces with testdata/validate.mjs, an independent
// validator in JavaScript (Node's standard library only).
func TestNodeValidator(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("node is not installed (CI must have it)")
		}
		t.Skip("node is not installed")
	}
	dir := t.TempDir()
	two := filepath.Join(dir, "two-cpu.json")
	pull := filepath.Join(dir, "pull.json")
	sc := loadScenario(t, "testdata/two-cpu.json", "workload.clients=3", "sched.wake_pull=true")
	data, _, _ := writeTrace(t, sc, Options{CompletionBucketNs: 100_000})
	if err := os.WriteFile(two, data, 0o644); err != nil {
		t.Fatal(err)
	}
	psc, start, until := pullScenario(t, 2)
	data, _, _ = writeTrace(t, psc, Options{StartNs: start, UntilNs: until})
	if err := os.WriteFile(pull, data, 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, bytes.Replace(data, []byte(`"ph":"E"`), []byte(`"ph":"B","name":"x"`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		file string
		ok   bool
	}{{two, true}, {pull, true}, {exampleTrace, true}, {bad, false}} {
		out, err := exec.Command(node, "testdata/validate.mjs", tc.file).CombinedOutput()
		if (err == nil) != tc.ok {
			t.Errorf("node validate.mjs %s: %v\n%s", filepath.Base(tc.file), err, out)
			continue
		}
		t.Logf("%s: %s", filepath.Base(tc.file), bytes.TrimSpace(out))
	}
}

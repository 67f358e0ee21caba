package scxstar

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"schedplay/engine"
)

// stepRecorder is a policy whose every callback adds its op, the thread's
// steps after it and whether it failed to a digest: two runs with the same
// digest executed the same Starlark steps callback by callback, not just in
// total. Methods it does not override (a callback added later) still run,
// uncounted but for the total.
type stepRecorder struct {
	*Policy
	h hash.Hash
}

func (r *stepRecorder) note(op engine.ScxOp, err error) error {
	var b [17]byte
	binary.LittleEndian.PutUint64(b[:], uint64(op))
	binary.LittleEndian.PutUint64(b[8:], r.Steps())
	if err != nil {
		b[16] = 1
	}
	r.h.Write(b[:])
	return err
}

func (r *stepRecorder) Init(k *engine.ScxKernel) error {
	return r.note(engine.ScxOpInit, r.Policy.Init(k))
}

func (r *stepRecorder) Enable(k *engine.ScxKernel, t engine.ScxTask) error {
	return r.note(engine.ScxOpEnable, r.Policy.Enable(k, t))
}

func (r *stepRecorder) SelectCPU(k *engine.ScxKernel, t engine.ScxTask, prev int, flags int64) (int, error) {
	cpu, err := r.Policy.SelectCPU(k, t, prev, flags)
	return cpu, r.note(engine.ScxOpSelectCPU, err)
}

func (r *stepRecorder) Enqueue(k *engine.ScxKernel, t engine.ScxTask, flags int64) error {
	return r.note(engine.ScxOpEnqueue, r.Policy.Enqueue(k, t, flags))
}

func (r *stepRecorder) Dispatch(k *engine.ScxKernel, cpu int, prev engine.ScxTask) error {
	return r.note(engine.ScxOpDispatch, r.Policy.Dispatch(k, cpu, prev))
}

func (r *stepRecorder) Runnable(k *engine.ScxKernel, t engine.ScxTask, flags int64) error {
	return r.note(engine.ScxOpRunnable, r.Policy.Runnable(k, t, flags))
}

func (r *stepRecorder) Running(k *engine.ScxKernel, t engine.ScxTask) error {
	return r.note(engine.ScxOpRunning, r.Policy.Running(k, t))
}

func (r *stepRecorder) Stopping(k *engine.ScxKernel, t engine.ScxTask, runnable bool) error {
	return r.note(engine.ScxOpStopping, r.Policy.Stopping(k, t, runnable))
}

func (r *stepRecorder) Quiescent(k *engine.ScxKernel, t engine.ScxTask, flags int64) error {
	return r.note(engine.ScxOpQuiescent, r.Policy.Quiescent(k, t, flags))
}

func (r *stepRecorder) UpdateIdle(k *engine.ScxKernel, cpu int, idle bool) error {
	return r.note(engine.ScxOpUpdateIdle, r.Policy.UpdateIdle(k, cpu, idle))
}

func (r *stepRecorder) Tick(k *engine.ScxKernel, t engine.ScxTask) error {
	return r.note(engine.ScxOpTick, r.Policy.Tick(k, t))
}

func (r *stepRecorder) Timer(k *engine.ScxKernel) error {
	return r.note(engine.ScxOpTimer, r.Policy.Timer(k))
}

// stepsRun is what TestStepsPinned pins of one run.
type stepsRun struct {
	Policy    string `json:"policy"`
	Example   string `json:"example"`
	Steps     uint64 `json:"steps"`
	Callbacks string `json:"callbacks_sha256"` // stepRecorder's digest
	Events    int64  `json:"events"`
	Exit      string `json:"exit"`
	Decisions string `json:"decisions_sha256"`
}

// runSteps runs sc (the example named) under the policy src (named file) and
// records its steps.
func runSteps(t *testing.T, file, src, example string, sc engine.Scenario) stepsRun {
	t.Helper()
	var rec *stepRecorder
	compile := func(_, src string, sliceDflNs int64) (engine.ScxOps, error) {
		p, err := Compile(file, src, sliceDflNs)
		if err != nil {
			return nil, err
		}
		rec = &stepRecorder{Policy: p, h: sha256.New()}
		return rec, nil
	}
	s, err := engine.NewSimScx(withPolicy(sc, src), compile)
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
	return stepsRun{
		Policy: strings.TrimSuffix(file, ".star"), Example: example, Steps: rec.Steps(),
		Callbacks: hex.EncodeToString(rec.h.Sum(nil)), Events: res.Events,
		Exit: res.ScxExit.Reason, Decisions: hex.EncodeToString(sum[:]),
	}
}

// TestStepsPinned pins the Starlark steps every example policy and kernel
// selftest port executes, callback by callback, with the run's events, exit
// and decisions. Steps are what a policy's work is charged in (Steps,
// preview.Compute) and what its step budget counts, so how the binding calls
// a policy may get faster but must not change them: testdata/policy_steps.json
// was written by the binding as it was before its calls were made cheap
// (allocating a task value, an argument tuple and UnpackArgs' pointers per
// call), and every later binding must reproduce it.
func TestStepsPinned(t *testing.T) {
	var got []stepsRun
	for _, policy := range []string{"scx_simple", "scx_central", "scx_wakesync", "scx_qmap"} {
		src := policySource(t, policy)
		for _, ex := range []string{"saturated-sync", "hackbench"} {
			sc := readExample(t, ex, "sched.policy=scx_simple", "duration_ms=150", "warmup_ms=20")
			got = append(got, runSteps(t, policy+".star", src, ex, sc))
		}
	}
	files, err := filepath.Glob(filepath.Join("testdata", "selftests", "*.star"))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := readExample(t, "hackbench", "machine.vcpus=4", "workload.hackbench.loops=20", "duration_ms=2000")
		got = append(got, runSteps(t, filepath.Base(f), string(src), "hackbench", sc))
	}
	out, err := json.Marshal(got, json.Deterministic(true))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "policy_steps.json")
	if *update {
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	var wantRuns []stepsRun
	if err := json.Unmarshal(want, &wantRuns); err != nil {
		t.Fatal(err)
	}
	if len(wantRuns) != len(got) {
		t.Fatalf("%d runs, %s has %d", len(got), path, len(wantRuns))
	}
	for i, w := range wantRuns {
		if got[i] != w {
			t.Errorf("%s on %s differs from %s:\n got %+v\nwant %+v", w.Policy, w.Example, path, got[i], w)
		}
	}
}

package runner_test

import (
	"strings"
	"testing"

	"schedplay/engine"
	"schedplay/playground/runner"
)

// answer sends one advance request to arm 1 of r and returns its answer.
func answer(t *testing.T, r runner.Runner, work func(), seq uint32, toNs int64) runner.Frame {
	t.Helper()
	return answerArm(t, r, work, 1, runner.Advance{Seq: seq, ToNs: toNs})
}

// An arm started from a checkpoint (as the page's bundle makes them: at the end
// of the warm-up, with the warm-up window the Host measures) answers as the arm
// started at time zero would: at the checkpoint's moment with the results there,
// the warm-up's included, and at the end with the engine's results; its first
// frame says it resumed. A checkpoint the engine refuses starts the arm at zero,
// with the same answers, and the first frame says why.
func TestStartFromIsTheSameRun(t *testing.T) {
	sc := scenario(t, "tpcb-32vcpu", "duration_ms=600", "warmup_ms=200", "workload.clients=16", "sched.wake_pull=1")
	ref, err := engine.NewSim(sc)
	if err != nil {
		t.Fatal(err)
	}
	warm := ref.AddWindow(0, sc.WarmupMs)
	ref.RunUntil(200e6)
	pack, err := runner.SaveStates(sc, []int64{100e6, 200e6})
	if err != nil {
		t.Fatal(err)
	}
	saved, err := engine.ReadCheckpointPack(pack)
	if err != nil || len(saved) != 2 || saved[1].NowNs != 200e6 || saved[1].Key != sc.Key() {
		t.Fatalf("SaveStates: %+v, %v", saved, err)
	}
	ck := saved[1].Data
	wantAt, wantWarm := resultsJSON(t, ref.Results()), ref.ResultsWindow(warm)
	wantWarm.Series = nil
	end, err := engine.Run(sc)
	if err != nil {
		t.Fatal(err)
	}
	other := scenario(t, "tpcb-32vcpu", "duration_ms=600", "warmup_ms=200", "workload.clients=17", "sched.wake_pull=1")
	otherSim, _ := engine.NewSim(other)
	otherSim.RunUntil(200e6)
	otherCk, _ := otherSim.AppendCheckpoint(nil, engine.CheckpointOptions{})
	for _, tc := range []struct {
		desc    string
		ck      []byte
		resumed bool
		why     string
	}{
		{"its checkpoint", ck, true, ""},
		{"another scenario's", otherCk, false, "another scenario"},
		{"damaged", ck[:len(ck)/2], false, "damaged"},
		{"without the warm-up window", func() []byte {
			s, _ := engine.Resume(sc, ck)
			b, _ := s.AppendCheckpoint(nil, engine.CheckpointOptions{Windows: []int{0}})
			return b
		}(), false, "does not measure the warm-up"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			clock := &fakeClock{step: 0.01}
			p := newPipe(1)
			for _, r := range []struct {
				name string
				r    runner.Runner
				work func()
			}{{"local", runner.NewLocal(clock.read), func() {}}, {"worker", p.remote, func() { p.work(2) }}} {
				r.r.StartFrom(1, sc, tc.ck)
				f := answer(t, r.r, r.work, 1, 200e6)
				if f.Err != "" || f.Resumed != tc.resumed || !strings.Contains(f.ResumeErr, tc.why) || (tc.why == "") != (f.ResumeErr == "") {
					t.Fatalf("%s: first frame: err %q, resumed %v, resume error %q; want resumed %v, error mentioning %q", r.name, f.Err, f.Resumed, f.ResumeErr, tc.resumed, tc.why)
				}
				if f.NowNs != 200e6 || resultsJSON(t, f.Results) != wantAt || !f.InWarmup || resultsJSON(t, f.Warmup) != resultsJSON(t, wantWarm) {
					t.Errorf("%s: at 200 ms: now %d, results\n got %s\nwant %s\nwarm-up %v\n got %s\nwant %s", r.name, f.NowNs,
						resultsJSON(t, f.Results), wantAt, f.InWarmup, resultsJSON(t, f.Warmup), resultsJSON(t, wantWarm))
				}
				f = answer(t, r.r, r.work, 2, 600e6)
				if f.Resumed || f.ResumeErr != "" {
					t.Errorf("%s: a later frame says resumed %v (%q)", r.name, f.Resumed, f.ResumeErr)
				}
				if got := resultsJSON(t, f.Results); got != resultsJSON(t, end) {
					t.Errorf("%s: at the end:\n got %s\nwant %s", r.name, got, resultsJSON(t, end))
				}
			}
		})
	}
}

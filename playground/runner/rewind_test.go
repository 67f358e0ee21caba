package runner_test

import (
	"testing"

	"schedplay/engine"
	"schedplay/playground/runner"
)

// answerArm sends one advance request to arm id of r, with the results and
// selecting nothing, and returns its answer.
func answerArm(t *testing.T, r runner.Runner, work func(), id runner.ArmID, a runner.Advance) runner.Frame {
	t.Helper()
	a.Select, a.Results = runner.NoSelection(), true
	r.Advance(id, a)
	for range 100_000 {
		r.Pump(1e18)
		work()
		for _, f := range r.Receive(nil) {
			if f.Arm == id && f.Seq == a.Seq {
				return f
			}
		}
	}
	t.Fatalf("arm %d: request %d not answered", id, a.Seq)
	return runner.Frame{}
}

// An arm asked to keep marks saves its state every MarkEveryMs of work; an arm
// rewound to one of them, or to where the first started, answers as the
// first did (the same results at the same times, to the end), and its frames
// say nothing of a resumed state: the page shows one run.
func TestRewindIsTheSameRun(t *testing.T) {
	sc := scenario(t, "tpcb-32vcpu", "duration_ms=400", "warmup_ms=150", "workload.clients=16", "sched.wake_pull=1")
	end, err := engine.Run(sc)
	if err != nil {
		t.Fatal(err)
	}
	for _, from := range []string{"time zero", "a saved state"} {
		// Each clock read is 3 ms of work, so a mark comes every few answers.
		clock := &fakeClock{step: 3}
		l := runner.NewLoopback(1, clock.read)
		for _, r := range []struct {
			name string
			r    runner.Runner
			work func()
		}{{"local", runner.NewLocal(clock.read), func() {}}, {"worker", l.Remote, func() { l.Work(0, 50) }}} {
			if from == "time zero" {
				r.r.Start(1, sc, false)
			} else {
				ref, _ := engine.NewSim(sc)
				ref.AddWindow(0, sc.WarmupMs)
				ref.RunUntil(40e6)
				ck, err := ref.AppendCheckpoint(nil, engine.CheckpointOptions{})
				if err != nil {
					t.Fatal(err)
				}
				r.r.StartFrom(1, sc, ck)
			}
			results, costMs := map[int64]string{}, map[int64]float64{}
			var marks []int64
			cum, most := 0.0, 0.0
			seq := uint32(0)
			for toNs := int64(50e6); toNs <= 300e6; toNs += 10e6 {
				seq++
				f := answerArm(t, r.r, r.work, 1, runner.Advance{Seq: seq, ToNs: toNs, Marks: true})
				results[f.NowNs] = resultsJSON(t, f.Results)
				cum, most = cum+f.BusyMs, max(most, f.BusyMs)
				costMs[f.NowNs] = cum
				if f.Marked {
					marks = append(marks, f.NowNs)
				}
			}
			if len(marks) < 2 {
				t.Fatalf("%s from %s: %d marks in 26 answers of at least 6 ms of work each, want one per %d ms", r.name, from, len(marks), runner.MarkEveryMs)
			}
			id, last := runner.ArmID(1), marks[len(marks)-1]
			for _, rw := range []struct{ atNs, toNs int64 }{
				{last, 300e6},    // from the last mark to the last answer
				{marks[0], last}, // from the first mark past the others
				{1, marks[0]},    // 1 ns is no mark: from where arm 1 started
			} {
				atNs, toNs := rw.atNs, rw.toNs
				r.r.Rewind(id, id+1, atNs)
				id++
				seq++
				f := answerArm(t, r.r, r.work, id, runner.Advance{Seq: seq, ToNs: toNs})
				if f.Err != "" || f.Resumed || f.ResumeErr != "" {
					t.Fatalf("%s from %s, rewound to %d ns: error %q, resumed %v %q", r.name, from, atNs, f.Err, f.Resumed, f.ResumeErr)
				}
				if want, ok := results[toNs]; !ok || f.NowNs != toNs || resultsJSON(t, f.Results) != want {
					t.Errorf("%s from %s, rewound to %d ns: at %d ns\n got %s\nwant %s", r.name, from, atNs, f.NowNs, resultsJSON(t, f.Results), want)
				}
				// From a mark, the replay costs what the first run spent after
				// it (give or take the first answers, which build the engine).
				if atNs > 1 && f.BusyMs > costMs[toNs]-costMs[atNs]+3*most {
					t.Errorf("%s from %s, rewound to %d ns: reaching %d ns took %.0f ms of work, the first run %.0f ms from that mark: the replay did not start there",
						r.name, from, atNs, toNs, f.BusyMs, costMs[toNs]-costMs[atNs])
				}
			}
			seq++
			f := answerArm(t, r.r, r.work, id, runner.Advance{Seq: seq, ToNs: sc.DurationMs * 1e6})
			if got := resultsJSON(t, f.Results); !f.Done || got != resultsJSON(t, end) {
				t.Errorf("%s from %s: at the end after three rewinds (done %v):\n got %s\nwant %s", r.name, from, f.Done, got, resultsJSON(t, end))
			}
		}
	}
}

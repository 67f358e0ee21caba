package runner_test

import (
	"cmp"
	"io/fs"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"schedplay/engine"
	"schedplay/examples"
	"schedplay/playground/runner"
	"schedplay/view"
)

// fakeClock advances by step ms at every read, so budgets are deterministic.
type fakeClock struct{ now, step float64 }

func (c *fakeClock) read() float64 { c.now += c.step; return c.now }

// scenario reads an example and applies knob overrides.
func scenario(t testing.TB, name string, sets ...string) engine.Scenario {
	t.Helper()
	data, err := fs.ReadFile(examples.FS, name+".json")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := engine.DecodeScenario(data, sets...)
	if err != nil {
		t.Fatalf("%s %v: %v", name, sets, err)
	}
	return sc
}

// pipe is a Loopback with a fake clock whose workers all run at each work().
type pipe struct {
	*runner.Loopback
	remote *runner.Remote
}

func (p pipe) work(budgetMs float64) {
	for w := range p.Workers() {
		p.Work(w, budgetMs)
	}
}

func newPipe(workers int) pipe {
	clock := &fakeClock{step: 0.01}
	l := runner.NewLoopback(workers, clock.read)
	return pipe{Loopback: l, remote: l.Remote}
}

// runThrough drives r to stopNs (the horizon when 0) in checkpoints of stepNs, as
// the page does at max speed, and returns the final frame of each arm.
func runThrough(t *testing.T, r runner.Runner, work func(), scs []engine.Scenario, stepNs, stopNs int64) []runner.Frame {
	t.Helper()
	last := make([]runner.Frame, len(scs))
	for i, sc := range scs {
		r.Start(runner.ArmID(i+1), sc, false)
	}
	seq := uint32(0)
	done := 0
	for to := stepNs; done < len(scs); to += stepNs {
		if stopNs > 0 {
			to = min(to, stopNs)
		}
		seq++
		for i := range scs {
			r.Advance(runner.ArmID(i+1), runner.Advance{Seq: seq, ToNs: to, Results: true, Slides: true, Ghosts: true, Select: runner.NoSelection()})
		}
		got := 0
		for tries := 0; got < len(scs); tries++ {
			if tries > 100000 {
				t.Fatalf("checkpoint %d not answered", seq)
			}
			r.Pump(1e18)
			work()
			for _, f := range r.Receive(nil) {
				if f.Err != "" {
					t.Fatalf("arm %d: %s", f.Arm, f.Err)
				}
				if f.Seq == seq {
					last[f.Arm-1] = f
					got++
				}
			}
		}
		if to == stopNs {
			break
		}
		done = 0
		for _, f := range last {
			if f.Done {
				done++
			}
		}
	}
	return last
}

// The runners give the engine's own results, byte for byte: checkpoints, chunks
// and the wire change nothing. This holds natively and under js/wasm (the same
// test runs in Node), and the browser test TestWorkerMatchesNative compares the
// page's worker with the native engine directly.
func TestResultsIdenticalToEngine(t *testing.T) {
	tests := []struct {
		desc   string
		scs    []engine.Scenario
		stepNs int64
	}{
		{"hackbench arms, small", []engine.Scenario{
			scenario(t, "hackbench", "sched.wake_sync=old", "workload.hackbench.loops=20"),
			scenario(t, "hackbench", "sched.wake_sync=new", "workload.hackbench.loops=20")}, 3_000_000},
		{"tpcb, short", []engine.Scenario{scenario(t, "tpcb-32vcpu", "duration_ms=600", "warmup_ms=200", "workload.clients=16"),
			scenario(t, "tpcb-32vcpu", "duration_ms=600", "warmup_ms=200", "workload.clients=16", "sched.wake_pull=1")}, 7_777_777},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			var want []string
			for _, sc := range tc.scs {
				res, err := engine.Run(sc)
				if err != nil {
					t.Fatal(err)
				}
				want = append(want, resultsJSON(t, res))
			}
			clock := &fakeClock{step: 0.01}
			local := runner.NewLocal(clock.read)
			for i, f := range runThrough(t, local, func() {}, tc.scs, tc.stepNs, 0) {
				if got := resultsJSON(t, f.Results); got != want[i] {
					t.Errorf("local arm %d:\n got %s\nwant %s", i, got, want[i])
				}
			}
			for _, workers := range []int{1, 2} {
				p := newPipe(workers)
				for i, f := range runThrough(t, p.remote, func() { p.work(2) }, tc.scs, tc.stepNs, 0) {
					if got := resultsJSON(t, f.Results); got != want[i] {
						t.Errorf("%d workers, arm %d:\n got %s\nwant %s", workers, i, got, want[i])
					}
				}
			}
		})
	}
}

// Until the measured window begins the page shows the engine's results over the
// warm-up, and the latency chart the engine's histogram of the window shown: the
// runners give both as the engine computes them, natively and over the wire.
func TestWarmupAndLatencyFromEngine(t *testing.T) {
	sc := scenario(t, "tpcb-32vcpu", "duration_ms=600", "warmup_ms=200", "workload.clients=16", "sched.wake_pull=1")
	tests := []struct {
		desc     string
		atNs     int64 // 0: the horizon
		inWarmup bool
	}{
		{"inside the warm-up", 150_000_000, true},
		{"at its end", 200_000_000, true},
		{"after it", 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			sim, err := engine.NewSim(sc)
			if err != nil {
				t.Fatal(err)
			}
			warm := sim.AddWindow(0, sc.WarmupMs)
			sim.RunUntil(cmp.Or(tc.atNs, sim.EndNs()))
			shown := 0
			var wantWarmup engine.Results
			if tc.inWarmup {
				shown, wantWarmup = warm, sim.ResultsWindow(warm)
				wantWarmup.Series = nil
			}
			wantLatency := view.LatencyHistogram(sim.LatencyHistogram(nil, shown))
			if wantLatency.N == 0 {
				t.Fatal("no latencies measured: the test would show nothing")
			}
			check := func(name string, f runner.Frame) {
				t.Helper()
				if f.InWarmup != tc.inWarmup || resultsJSON(t, f.Warmup) != resultsJSON(t, wantWarmup) {
					t.Errorf("%s: in warm-up %v, warm-up results\n got %+v\nwant %+v", name, f.InWarmup, f.Warmup, wantWarmup)
				}
				if resultsJSON(t, f.Results) != resultsJSON(t, sim.Results()) {
					t.Errorf("%s: the measured window's results differ from the engine's", name)
				}
				if f.Latency != wantLatency {
					t.Errorf("%s: latency histogram\n got %+v\nwant %+v", name, f.Latency, wantLatency)
				}
			}
			clock := &fakeClock{step: 0.01}
			check("local", runThrough(t, runner.NewLocal(clock.read), func() {}, []engine.Scenario{sc}, 7_777_777, tc.atNs)[0])
			p := newPipe(1)
			check("worker", runThrough(t, p.remote, func() { p.work(2) }, []engine.Scenario{sc}, 7_777_777, tc.atNs)[0])
		})
	}
}

func resultsJSON(t *testing.T, r engine.Results) string {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// One Work call past its deadline runs one chunk, never more than the chunk cap,
// whatever the density; Cancel cuts the request short and answers where the arm
// stopped, with results there.
func TestWorkIsBoundedAndCancellable(t *testing.T) {
	clock := &fakeClock{step: 1} // every read costs 1 ms: each chunk looks slow
	var frames []runner.Frame
	h := runner.NewHost(clock.read, func(f *runner.Frame) { frames = append(frames, f.Clone()) })
	h.Start(1, scenario(t, "hackbench"), false)
	h.Advance(1, runner.Advance{Seq: 1, ToNs: 1 << 62, Select: runner.NoSelection()})
	for i := 1; i <= 5; i++ {
		if more := h.Work(0); !more {
			t.Fatal("the run to the horizon finished in a few chunks")
		}
	}
	h.Cancel(1, 2)
	h.Work(0)
	if len(frames) != 1 || frames[0].Seq != 2 || !frames[0].HasResults {
		t.Fatalf("after Cancel: frames %+v, want one answer to seq 2 with results", frames)
	}
	if ev := frames[0].Events; ev == 0 || ev > 5*512 {
		t.Errorf("5 chunks ran %d events, want 1 to 5 x 512", ev)
	}
	if h.Busy() {
		t.Error("the cancelled request is still queued")
	}
}

func TestStepAndSelection(t *testing.T) {
	clock := &fakeClock{step: 0.01}
	l := runner.NewLocal(clock.read)
	l.Start(1, scenario(t, "tpcb-32vcpu"), false)
	l.Advance(1, runner.Advance{Seq: 1, ToNs: 50_000_000, Select: runner.NoSelection()})
	for i := uint32(2); i < 5; i++ {
		l.Advance(1, runner.Advance{Seq: i, Step: true, Select: runner.Selection{CPU: 0, Thread: -1}})
	}
	l.Pump(1e18)
	fs := l.Receive(nil)
	if len(fs) != 4 {
		t.Fatalf("%d frames, want 4", len(fs))
	}
	for i := 2; i < 4; i++ {
		if d := fs[i].Events - fs[i-1].Events; d != 1 {
			t.Errorf("a step ran %d events", d)
		}
	}
	if f := fs[3]; !f.HasDecision || f.Selected.CPU != 0 || (f.Decision.CPU != 0 && f.Decision.Target != 0) {
		t.Errorf("the answer explains %+v: has %v %+v", f.Selected, f.HasDecision, f.Decision)
	}
	if fs[0].HasDecision {
		t.Error("a frame without a selection carries a decision")
	}
}

// A scenario the engine refuses is answered with the engine's message, naming the
// field; a worker that disappears is reported for every arm it had.
func TestRefusedAndFailed(t *testing.T) {
	p := newPipe(2)
	bad := scenario(t, "tpcb-32vcpu")
	bad.Workload.Clients = -1 // as a scenario from another version could be
	p.remote.Start(1, bad, false)
	p.remote.Start(2, scenario(t, "tpcb-32vcpu"), false)
	for id := runner.ArmID(1); id <= 2; id++ {
		p.remote.Advance(id, runner.Advance{Seq: 1, ToNs: 1000, Select: runner.NoSelection()})
	}
	p.remote.Pump(0)
	p.work(5)
	fs := p.remote.Receive(nil)
	if len(fs) != 2 {
		t.Fatalf("%d frames, want 2", len(fs))
	}
	for _, f := range fs {
		if (f.Arm == 1) != (f.Err != "") {
			t.Errorf("arm %d: error %q", f.Arm, f.Err)
		}
		if f.Arm == 1 && (!strings.Contains(f.Err, "workload.clients") || !strings.HasPrefix(f.Err, "the engine refused this scenario: ")) {
			t.Errorf("the refusal %q does not name the field", f.Err)
		}
	}
	p.remote.Fail(1, "the engine worker failed to load")
	fs = p.remote.Receive(nil)
	if len(fs) != 1 || fs[0].Arm != 2 || fs[0].Err == "" {
		t.Errorf("after worker 1 failed: %+v, want an error for arm 2 (on worker 1)", fs)
	}
	p.remote.Stop(2)
	p.remote.Fail(1, "again")
	if fs = p.remote.Receive(nil); len(fs) != 0 {
		t.Errorf("a stopped arm still hears: %+v", fs)
	}
}

// A dead worker stays dead: an arm started after it failed goes to a worker still
// alive, or, with none left, answers with the reason at once; a message a worker
// sends that cannot be read fails that worker's arms instead of leaving them
// silent.
func TestRemoteAfterAWorkerDies(t *testing.T) {
	clock := &fakeClock{step: 0.01}
	l := runner.NewLoopback(2, clock.read)
	sc := scenario(t, "tpcb-32vcpu", "workload.clients=8")
	l.Remote.Fail(0, "worker 0 would not load")
	for id := runner.ArmID(1); id <= 2; id++ {
		l.Remote.Start(id, sc, false)
		l.Remote.Advance(id, runner.Advance{Seq: 1, ToNs: 1000, Select: runner.NoSelection()})
	}
	l.Remote.Pump(0)
	l.Work(0, 5)
	l.Work(1, 5)
	fs := l.Remote.Receive(nil)
	if len(fs) != 2 || fs[0].Err != "" || fs[1].Err != "" {
		t.Fatalf("with worker 1 alive both arms should run there: %+v", fs)
	}

	l.Remote.Fail(1, "worker 1 crashed")
	fs = l.Remote.Receive(nil)
	if len(fs) != 2 || fs[0].Err != "worker 1 crashed" || fs[1].Err != "worker 1 crashed" {
		t.Fatalf("the arms on worker 1 after it crashed: %+v", fs)
	}
	l.Remote.Start(3, sc, false)
	fs = l.Remote.Receive(nil)
	if len(fs) != 1 || fs[0].Arm != 3 || fs[0].Err == "" {
		t.Fatalf("an arm started with every worker dead: %+v, want its failure at once", fs)
	}

	l2 := runner.NewLoopback(1, clock.read)
	l2.Remote.Start(1, sc, false)
	l2.Remote.Deliver(0, []byte{0xff, 0xff, 0xff})
	fs = l2.Remote.Receive(nil)
	if len(fs) != 1 || fs[0].Arm != 1 || !strings.Contains(fs[0].Err, "cannot read") {
		t.Fatalf("after a message that cannot be read: %+v, want arm 1 failed", fs)
	}
}

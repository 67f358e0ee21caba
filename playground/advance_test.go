package playground_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/go-json-experiment/json"

	"schedplay/playground"
	"schedplay/playground/runner"
)

// newWorkerModel is a model whose simulations run behind the worker protocol
// (runner.Loopback): nothing moves until the test lets a worker work.
func newWorkerModel(t *testing.T, frag string, workers int) (*playground.Model, *runner.Loopback) {
	t.Helper()
	c := &fakeClock{step: 0.01}
	l := runner.NewLoopback(workers, c.read)
	m := playground.New(playground.Options{Presets: testPresets(t), Clock: c.read, BudgetMs: 5, Runner: l.Remote})
	m.Load(frag, nil)
	return m, l
}

// frames runs frame after frame, letting worker w work budgets[w] ms before each,
// until the model stops playing; it fails the test if any frame shows the arms at
// different simulated times.
func frames(t *testing.T, m *playground.Model, l *runner.Loopback, budgets ...float64) {
	t.Helper()
	for i := 1; m.Playing(); i++ {
		if i > 100_000 {
			t.Fatal("still playing after 100 000 frames")
		}
		for w := range l.Workers() {
			l.Work(w, budgets[w%len(budgets)])
		}
		m.Update(float64(i) * 16)
		arms := m.Arms()
		for _, a := range arms[1:] {
			if a.NowNs() != arms[0].NowNs() {
				t.Fatalf("frame %d shows arm A at %d ns and arm %s at %d ns", i, arms[0].NowNs(), a.Name, a.NowNs())
			}
		}
	}
	if l.Err != nil {
		t.Fatal(l.Err)
	}
}

// armsJSON is what the arms show, less the runner's wall time (which differs
// from run to run).
func armsJSON(t *testing.T, m *playground.Model) string {
	t.Helper()
	arms := m.State().Arms
	for i := range arms {
		arms[i].RunnerMs, arms[i].Replays = 0, 0
	}
	b, err := json.Marshal(arms)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Through workers that run at different paces, the arms are only ever shown at
// one simulated time, and a RunTo lands where the in-process runner lands, with
// the same numbers.
func TestWorkersMatchInProcess(t *testing.T) {
	const frag = "#v=1&preset=small&speed=max"
	local, _ := newModel(t, frag)
	local.RunTo(60_000_000)
	for i := 1; local.Playing(); i++ {
		local.Update(float64(i) * 16)
	}
	for _, workers := range []int{1, 2} {
		m, l := newWorkerModel(t, frag, workers)
		m.RunTo(60_000_000)
		frames(t, m, l, 0.5, 3) // worker 1 (arm B) gets six times arm A's time
		if st := m.State(); st.NowNs != 60_000_000 {
			t.Fatalf("%d workers: RunTo stopped at %d", workers, st.NowNs)
		}
		if got, want := armsJSON(t, m), armsJSON(t, local); got != want {
			t.Errorf("%d workers: arms differ from the in-process run:\n got %s\nwant %s", workers, got, want)
		}
	}
}

// Pausing a run ahead cancels what the workers were asked: the page stops within
// a few frames, short of the target, with both arms at one time.
func TestPauseCancelsRunAhead(t *testing.T) {
	m, l := newWorkerModel(t, "#v=1&preset=small&duration_ms=20000", 1)
	if msg := m.Set("t", "15s"); msg != "" {
		t.Fatal(msg)
	}
	for i := 1; i < 5; i++ {
		l.Work(0, 2)
		m.Update(float64(i) * 16)
	}
	u := m.State()
	if u.Jump == nil || u.Jump.Done <= 0 || u.Jump.Done >= 1 || !strings.Contains(u.Fragment, "t=15s") {
		t.Fatalf("during the jump: progress %+v, fragment %q", u.Jump, u.Fragment)
	}
	m.Pause()
	for i := 5; i < 10; i++ {
		l.Work(0, 2)
		m.Update(float64(i) * 16)
	}
	st := m.State()
	if st.Playing || st.Jump != nil || st.NowNs == 0 || st.NowNs >= 15e9 || strings.Contains(st.Fragment, "&t=") {
		t.Errorf("after Pause: playing %v, jump %+v, at %d ns, fragment %q", st.Playing, st.Jump, st.NowNs, st.Fragment)
	}
	if a := m.Arms(); a[0].NowNs() != a[1].NowNs() || a[0].NowNs() != st.NowNs {
		t.Errorf("after Pause the arms are at %d and %d ns, the clock at %d", a[0].NowNs(), a[1].NowNs(), st.NowNs)
	}
}

func TestJumpToAMoment(t *testing.T) {
	tests := []struct {
		desc, frag string
		wantNs     int64
		playing    bool   // after the jump
		problem    string // prefix of the one problem expected
		fragHas    string
	}{
		{desc: "a link opens at its moment", frag: "#v=1&preset=small&t=100ms", wantNs: 100e6, fragHas: "t=100ms"},
		{desc: "an embed plays on from it", frag: "#v=1&preset=small&embed=1&t=100ms&speed=1us", wantNs: 100e6, playing: true},
		{desc: "a moment past the run is named", frag: "#v=1&preset=small&t=5s", problem: "t: 5.00 s is outside the run"},
		{desc: "a malformed moment is named", frag: "#v=1&preset=small&t=soon", problem: "t: "},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			m, _ := newModel(t, tc.frag)
			for i := 1; m.Playing() && m.State().NowNs < tc.wantNs; i++ {
				m.Update(float64(i) * 16)
			}
			st := m.State()
			if tc.problem != "" {
				if len(st.Problems) != 1 || !strings.HasPrefix(st.Problems[0], tc.problem) || strings.Contains(st.Fragment, "&t=") {
					t.Errorf("problems %q, fragment %q; want one starting %q and no t=", st.Problems, st.Fragment, tc.problem)
				}
				return
			}
			if st.NowNs != tc.wantNs || st.Playing != tc.playing || st.Jump != nil || len(st.Problems) > 0 {
				t.Errorf("at %d ns playing %v jump %+v problems %v; want %d ns playing %v", st.NowNs, st.Playing, st.Jump, st.Problems, tc.wantNs, tc.playing)
			}
			if !strings.Contains(st.Fragment, tc.fragHas) {
				t.Errorf("fragment %q lacks %q", st.Fragment, tc.fragHas)
			}
		})
	}
}

// Jumping back starts the run over: the moment reached is the same instant with
// the same numbers as jumping there directly.
func TestJumpBackReplays(t *testing.T) {
	direct, _ := newModel(t, "#v=1&preset=small&t=50ms")
	back, _ := newModel(t, "#v=1&preset=small&t=120ms")
	for _, m := range []*playground.Model{direct, back} {
		for i := 1; m.Playing(); i++ {
			m.Update(float64(i) * 16)
		}
	}
	if msg := back.Set("t", "50ms"); msg != "" {
		t.Fatal(msg)
	}
	for i := 1; back.Playing(); i++ {
		back.Update(float64(i) * 16)
	}
	if got, want := armsJSON(t, back), armsJSON(t, direct); got != want || back.State().NowNs != 50e6 {
		t.Errorf("jumping back to 50 ms (at %d ns) differs from jumping there:\n got %s\nwant %s", back.State().NowNs, got, want)
	}
	if msg := back.Set("t", "1h"); !strings.HasPrefix(msg, "t: ") {
		t.Errorf("Set(t, 1h) = %q, want a message naming t", msg)
	}
}

// A worker that cannot run the scenario stops the page with the reason, instead
// of leaving it waiting.
func TestRefusalIsShown(t *testing.T) {
	m, l := newWorkerModel(t, "#v=1&preset=small", 2)
	l.Remote.Fail(1, "the engine worker stopped: workload.clients: 4096 clients would take hours")
	m.Play()
	l.Work(0, 5)
	m.Update(16)
	u := m.State()
	if !strings.Contains(u.Refused, "workload.clients") || u.Playing {
		t.Errorf("refused %q, playing %v", u.Refused, u.Playing)
	}
	if m.Play(); m.Playing() {
		t.Error("Play runs a refused scenario")
	}
}

// The explanation of a clicked vCPU is looked up where the simulation runs.
func TestExplainThroughWorkers(t *testing.T) {
	m, l := newWorkerModel(t, "#v=1&preset=small&speed=max", 2)
	m.RunTo(30_000_000)
	frames(t, m, l, 2, 2)
	m.Select(1, 0, -1)
	for i := range 3 {
		if i > 0 {
			l.Work(0, 1)
			l.Work(1, 1)
		}
		m.Update(float64(1000 + i*16))
	}
	if ex := m.State().Explain; !strings.HasPrefix(ex, "B · CPU 0 · t = ") {
		t.Errorf("explanation %q", ex)
	}
}

// A run ahead keeps several targets in flight; each is sized from what the
// last answered one cost, so none grows past what the worker does in a few
// frames: the page shows progress every few frames all the way, instead of
// standing still while an oversized target runs (sizes grown 2x per answer
// from the size asked for last compound by 2x for each target in flight).
func TestRunAheadProgressesEveryFewFrames(t *testing.T) {
	m, l := newWorkerModel(t, "#v=1&preset=small&duration_ms=20000", 2)
	if msg := m.Set("t", "15s"); msg != "" {
		t.Fatal(msg)
	}
	// Each worker gets 2 ms a frame; a target asks for about 20 ms of a
	// worker's time (targetRequestMs), so at most ten frames a target, twice
	// that for one sized 2x too large before its answer says so. (Sized from
	// the size asked for last, with eight targets in flight, it stood still
	// for 73 frames.)
	const budgetMs, worstFrames = 2, 20
	last, still, longest := int64(-1), 0, 0
	for i := 1; m.Playing(); i++ {
		if i > 200_000 {
			t.Fatal("still jumping after 200 000 frames")
		}
		for w := range l.Workers() {
			l.Work(w, budgetMs)
		}
		m.Update(float64(i) * 16)
		if now := m.State().NowNs; now != last {
			last, still = now, 0
		} else {
			still++
			longest = max(longest, still)
		}
	}
	if st := m.State(); st.NowNs != 15e9 {
		t.Fatalf("the jump stopped at %d ns", st.NowNs)
	}
	t.Logf("longest still run: %d frames", longest)
	if longest > worstFrames {
		t.Errorf("the page stood still for %d frames in a row during the jump; want at most %d", longest, worstFrames)
	}
}

// A RunTo past the moment the arms reach their end still arrives there: the
// target that brought them to their end may stop short of it, and arms at
// their end answer the rest at once. (A lesson step that ran to 46 s in a run
// ending at 45.9 s waited for good when a target ended in between.)
func TestRunToPastTheArmsEnd(t *testing.T) {
	ps, probs := playground.LoadPresets(fstest.MapFS{"hb.json": {Data: []byte(`{"version":1,"name":"hb","seed":1,
		"duration_ms":20000,"machine":{"vcpus":4,"platform":"native"},"sched":{"policy":"scx_simple"},
		"workload":{"kind":"hackbench","hackbench":{"groups":2,"fds":4,"loops":20,"message_bytes":100,
			"write_ns":360,"read_ns":360,"socket_messages":256,"parent_cpu":0}},
		"arms":[{"name":"old rule","set":{"sched.wake_sync":"old"}},{"name":"new rule","set":{"sched.wake_sync":"new"}}]}`)}})
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	for _, workers := range []int{0, 1, 2} {
		c := &fakeClock{step: 0.01}
		opts := playground.Options{Presets: ps, Clock: c.read, BudgetMs: 5, Runner: runner.NewLocal(c.read)}
		var l *runner.Loopback
		if workers > 0 {
			l = runner.NewLoopback(workers, c.read)
			opts.Runner = l.Remote
		}
		m := playground.New(opts)
		m.Load("#v=1&preset=hb&speed=max", nil)
		const toNs = 19_000_000_000
		m.RunTo(toNs)
		for i := 1; m.Playing(); i++ {
			if i > 100_000 {
				t.Fatalf("%d workers: still playing after 100 000 frames", workers)
			}
			if l != nil {
				for w := range l.Workers() {
					l.Work(w, 3)
				}
			}
			m.Update(float64(i) * 16)
		}
		st := m.State()
		if !st.Clock.Done || st.Clock.NowNs != toNs || st.Clock.Jump != nil {
			t.Errorf("%d workers: stopped at %d ns (done %v, jump %+v); want done, at %d ns", workers, st.Clock.NowNs, st.Clock.Done, st.Clock.Jump, int64(toNs))
		}
	}
}

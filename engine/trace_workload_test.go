package engine

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"schedplay/kerneltrace"
)

// Replay semantics on hand-made models: what each kind of segment end does,
// under the linux reference policy on a quiet machine (no wake sources),
// where the only time a replay adds is the machine's switch and wake costs.

type kt = kerneltrace.End

const ms = int64(1_000_000)

// traceScenario wraps m in a scenario of vcpus CPUs, sets applied.
func traceScenario(t *testing.T, m *kerneltrace.Model, vcpus int, sets ...string) Scenario {
	t.Helper()
	base := []string{"workload.kind=idle", "sched.policy=linux", "machine.platform=native", "workload.wake_sources_per_s=0",
		"warmup_ms=0", "duration_ms=1000", "machine.vcpus=" + strconv.Itoa(vcpus)}
	sc, err := DefaultScenario().WithKnobs(append(base, sets...)...)
	if err != nil {
		t.Fatal(err)
	}
	sc.Workload.Kind, sc.Workload.Trace = WorkloadTrace, *m
	if err := sc.Validate(); err != nil {
		t.Fatal(err)
	}
	return sc
}

// replay runs sc and returns its results.
func replay(t *testing.T, sc Scenario) Results {
	t.Helper()
	s, err := NewSim(sc)
	if err != nil {
		t.Fatal(err)
	}
	s.SetVisual(false)
	return s.Run()
}

// thr makes a model thread.
func thr(tid int32, start kt, segs ...kerneltrace.Segment) kerneltrace.Thread {
	return kerneltrace.Thread{Tid: tid, Tgid: 1, Names: []string{"t" + strconv.Itoa(int(tid))}, Prio: 120, PinnedCPU: -1, Start: start, Segments: segs}
}

func seg(runNs int64, end kt, wakes ...kerneltrace.Wake) kerneltrace.Segment {
	return kerneltrace.Segment{RunNs: runNs, End: end, Wakes: wakes}
}

// exit ends a thread.
func exit() kt { return kt{Kind: kerneltrace.EndExit} }

func model(ts ...kerneltrace.Thread) *kerneltrace.Model {
	m := &kerneltrace.Model{CPUs: 2, Threads: ts}
	p := kerneltrace.Process{Pid: 1, Name: "p"}
	for i := range ts {
		p.Threads = append(p.Threads, kerneltrace.ThreadID(i))
	}
	m.Processes = []kerneltrace.Process{p}
	return m
}

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.4f, want %.4f ± %.4f", what, got, want, tol)
	}
}

// A wake that comes before its wakee blocks is a token, not lost: A is woken
// by B 0.1 ms into B's run, while A still runs its first 2 ms; A then goes
// straight on with its second segment.
func TestTraceEarlyWakeIsKept(t *testing.T) {
	m := model(
		thr(1, kt{Kind: kerneltrace.EndTimer}, seg(2*ms, kt{Kind: kerneltrace.EndWakeBy, Waker: 1, AtNs: ms / 10}), seg(ms, exit())),
		thr(2, kt{Kind: kerneltrace.EndTimer}, seg(ms, exit(), kerneltrace.Wake{Wakee: 0, WakeeSeg: 0, AtNs: ms / 10})),
	)
	r := replay(t, traceScenario(t, m, 2))
	if r.Trace.Unfinished != 0 {
		t.Fatalf("%d threads unfinished: the early wake was lost", r.Trace.Unfinished)
	}
	near(t, "elapsed ms", r.ElapsedS*1e3, 3, 0.1)
	near(t, "A's cpu_ms", r.Trace.Threads[0].Replayed.CPUMs, 3, 0.01)
	if w := r.Trace.Threads[0].Replayed.Wakeups; w != 1 {
		t.Errorf("A was woken %d times, want once (its start): it never slept", w)
	}
}

// A late wake releases its wakee exactly at the waker's progress point: B
// wakes A 0.5 ms into its 3 ms run, A having blocked after 1 ms.
func TestTraceWakeEdgeAtWakerProgress(t *testing.T) {
	m := model(
		thr(1, kt{Kind: kerneltrace.EndTimer}, seg(ms, kt{Kind: kerneltrace.EndWakeBy, Waker: 1, AtNs: ms / 2, SleepNs: 9 * ms, AtTs: 10 * ms}), seg(ms, exit())),
		thr(2, kt{Kind: kerneltrace.EndTimer, SleepNs: 2 * ms}, seg(3*ms, exit(), kerneltrace.Wake{Wakee: 0, WakeeSeg: 0, AtNs: ms / 2})),
	)
	r := replay(t, traceScenario(t, m, 2))
	// B starts at 2 ms (a timer), wakes A at 2.5 ms; A runs to 3.5 ms; B ends at 5.
	near(t, "elapsed ms", r.ElapsedS*1e3, 5, 0.1)
	near(t, "A's runnable ms", r.Trace.Threads[0].Replayed.RunnableMs, 0, 0.05)
	// All timed: A sleeps its recorded 9 ms instead, ending at 11 ms.
	r = replay(t, traceScenario(t, m, 2, "workload.trace_all_timed=true"))
	near(t, "all-timed elapsed ms", r.ElapsedS*1e3, 11, 0.1)
	if !r.Trace.AllTimed {
		t.Error("results do not say all timed")
	}
}

// A timer end is a sleep of its recorded length, and CPU time is what the
// segments say.
func TestTraceTimerSleep(t *testing.T) {
	m := model(thr(1, kt{Kind: kerneltrace.EndTimer}, seg(ms, kt{Kind: kerneltrace.EndTimer, SleepNs: 5 * ms}), seg(ms, exit())))
	r := replay(t, traceScenario(t, m, 1))
	near(t, "elapsed ms", r.ElapsedS*1e3, 7, 0.1)
	near(t, "cpu_ms", r.Trace.Threads[0].Replayed.CPUMs, 2, 0.01)
}

// A spawn starts the child at the parent's segment end; the parent goes on.
// On one CPU the two share it: 1 + 1 + 2 ms of work end at 4 ms.
func TestTraceSpawn(t *testing.T) {
	m := model(
		thr(1, kt{Kind: kerneltrace.EndTimer}, seg(ms, kt{Kind: kerneltrace.EndSpawn, Child: 1}), seg(ms, exit())),
		thr(2, kt{Kind: kerneltrace.EndSpawned, Waker: 0, WakerSeg: 0, AtNs: ms}, seg(2*ms, exit())),
	)
	r := replay(t, traceScenario(t, m, 2))
	near(t, "elapsed ms on 2 CPUs", r.ElapsedS*1e3, 3, 0.1)
	r = replay(t, traceScenario(t, m, 1))
	near(t, "elapsed ms on 1 CPU", r.ElapsedS*1e3, 4, 0.1)
	if r.Trace.Processes[0].Replayed.CPUMs < 3.99 {
		t.Errorf("process cpu_ms %.3f, want 4", r.Trace.Processes[0].Replayed.CPUMs)
	}
}

// A per-CPU kernel thread stays on its CPU.
func TestTracePinnedKthread(t *testing.T) {
	k := thr(9, kt{Kind: kerneltrace.EndTimer}, seg(ms, kt{Kind: kerneltrace.EndTimer, SleepNs: ms}), seg(ms, kt{Kind: kerneltrace.EndTimer, SleepNs: ms}), seg(ms, exit()))
	k.PinnedCPU = 1
	hog := thr(1, kt{Kind: kerneltrace.EndTimer}, seg(10*ms, exit()))
	sc := traceScenario(t, model(hog, k), 2)
	s, err := NewSim(sc)
	if err != nil {
		t.Fatal(err)
	}
	if th := s.wl.(*traceWorkload).thr[1].t; !th.pinned || th.cpu != 1 {
		t.Fatalf("kthread pinned=%v on CPU %d, want pinned on 1", th.pinned, th.cpu)
	}
	r := s.Run()
	if mg := r.Trace.Threads[1].Replayed.Migrations; mg != 0 {
		t.Errorf("pinned kthread migrated %d times", mg)
	}
}

// A model that does not hold together is refused, naming where.
func TestTraceModelRefused(t *testing.T) {
	ok := func() *kerneltrace.Model {
		return model(
			thr(1, kt{Kind: kerneltrace.EndTimer}, seg(ms, kt{Kind: kerneltrace.EndWakeBy, Waker: 1, AtNs: 10})),
			thr(2, kt{Kind: kerneltrace.EndTimer}, seg(ms, exit(), kerneltrace.Wake{Wakee: 0, WakeeSeg: 0, AtNs: 10})))
	}
	for _, tc := range []struct {
		name string
		edit func(m *kerneltrace.Model)
		want string
	}{
		{"waker out of range", func(m *kerneltrace.Model) { m.Threads[0].Segments[0].End.Waker = 7 }, "threads.0.segments.0: waker 7"},
		{"wake not listed", func(m *kerneltrace.Model) { m.Threads[1].Segments[0].Wakes = nil }, "lists no wake of it"},
		{"wake past run", func(m *kerneltrace.Model) { m.Threads[1].Segments[0].Wakes[0].AtNs = 2 * ms }, "past the segment's run"},
		{"negative run", func(m *kerneltrace.Model) { m.Threads[1].Segments[0].RunNs = -1 }, "run_ns -1"},
		{"unknown kind", func(m *kerneltrace.Model) { m.Threads[1].Segments[0].End.Kind = 42 }, "kind 42 is unknown"},
		{"spawn of a non-child", func(m *kerneltrace.Model) {
			m.Threads[1].Segments[0].End = kt{Kind: kerneltrace.EndSpawn, Child: 0}
		}, "does not start by this spawn"},
		{"no threads", func(m *kerneltrace.Model) { m.Threads = nil }, "has no threads"},
	} {
		m := ok()
		tc.edit(m)
		sc := traceScenario(t, ok(), 2)
		sc.Workload.Trace = *m
		err := sc.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "workload.trace") {
			t.Errorf("%s: got %v, want an error on workload.trace with %q", tc.name, err, tc.want)
		}
	}
	sc := traceScenario(t, ok(), 2)
	sc.Workload.Trace = kerneltrace.Model{}
	if err := sc.Validate(); err == nil || !strings.Contains(err.Error(), "workload.trace: has no threads") {
		t.Errorf("no model: %v", err)
	}
}

// ckTraceMix is a model using every kind of state the trace workload keeps:
// a ping-pong pair mid-exchange (wake edges, one of them early), a sleeper
// on a timer, a child spawned late and a thread that starts late.
func ckTraceMix() kerneltrace.Model {
	const rounds = 60
	var a, b []kerneltrace.Segment
	for i := range rounds {
		k := int32(i)
		a = append(a, seg(ms/2, kt{Kind: kerneltrace.EndWakeBy, Waker: 1, WakerSeg: k, AtNs: ms / 4}))
		b = append(b, seg(ms, kt{Kind: kerneltrace.EndWakeBy, Waker: 0, WakerSeg: k + 1, AtNs: ms / 8},
			kerneltrace.Wake{Wakee: 0, WakeeSeg: k, AtNs: ms / 4}))
		a[i].Wakes = []kerneltrace.Wake{{Wakee: 1, WakeeSeg: k - 1, AtNs: ms / 8}}
	}
	a[0].Wakes = nil
	a = append(a, seg(ms, exit(), kerneltrace.Wake{Wakee: 1, WakeeSeg: rounds - 1, AtNs: ms / 8}))
	var sl []kerneltrace.Segment
	for range rounds {
		sl = append(sl, seg(ms/3, kt{Kind: kerneltrace.EndTimer, SleepNs: ms}))
	}
	sl = append(sl, seg(ms, kt{Kind: kerneltrace.EndSpawn, Child: 3}), seg(ms, exit()))
	m := model(
		thr(1, kt{Kind: kerneltrace.EndTimer}, a...),
		thr(2, kt{Kind: kerneltrace.EndTimer}, b...),
		thr(3, kt{Kind: kerneltrace.EndTimer}, sl...),
		thr(4, kt{Kind: kerneltrace.EndSpawned, Waker: 2, WakerSeg: rounds, AtNs: ms}, seg(ms, exit())),
		thr(5, kt{Kind: kerneltrace.EndTimer, SleepNs: 40 * ms}, seg(ms, exit())),
	)
	return *m
}

func TestTraceMixReplaysAndResumes(t *testing.T) {
	m := ckTraceMix()
	sc := traceScenario(t, &m, 2)
	r := replay(t, sc)
	if r.Trace.Unfinished != 0 {
		t.Fatalf("%d unfinished", r.Trace.Unfinished)
	}
	// Resumed from the middle, the run ends with the same results.
	s, _ := NewSim(sc)
	s.SetVisual(false)
	s.RunUntil(20 * ms)
	ck, err := s.AppendCheckpoint(nil, CheckpointOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rs, err := Resume(sc, ck)
	if err != nil {
		t.Fatal(err)
	}
	rs.SetVisual(false)
	got := rs.Run()
	if got.Trace.Threads[1].Replayed != r.Trace.Threads[1].Replayed || got.ElapsedS != r.ElapsedS {
		t.Errorf("resumed: %+v at %v s, straight: %+v at %v s", got.Trace.Threads[1].Replayed, got.ElapsedS, r.Trace.Threads[1].Replayed, r.ElapsedS)
	}
}

// A scenario holding a trace's model larger than a document may be still
// takes knobs: the model is the scenario's own, not a document from outside.
func TestTraceWithKnobsPastTheDocumentLimit(t *testing.T) {
	var segs []kerneltrace.Segment
	for range 4000 {
		segs = append(segs, seg(ms/100, kt{Kind: kerneltrace.EndTimer, SleepNs: ms / 100}))
	}
	m := model(thr(1, kt{Kind: kerneltrace.EndTimer}, append(segs, seg(1, exit()))...))
	sc := traceScenario(t, m, 2)
	if b, _ := sc.Canonical(); len(b) <= MaxScenarioBytes {
		t.Fatalf("the scenario is %d bytes, not past the limit %d", len(b), MaxScenarioBytes)
	}
	sc2, err := sc.WithKnobs("machine.vcpus=1")
	if err != nil {
		t.Fatal(err)
	}
	if sc2.Machine.VCPUs != 1 || len(sc2.Workload.Trace.Threads[0].Segments) != 4001 {
		t.Fatalf("vcpus %d, %d segments", sc2.Machine.VCPUs, len(sc2.Workload.Trace.Threads[0].Segments))
	}
}

// Three CPU-bound threads on one CPU share it under every policy: each is
// made to wait by the others (runnable time), the first one too, so slices
// expire within a long segment (its steps end at least every tick).
func TestTraceLongSegmentsShareTheCPU(t *testing.T) {
	m := model(
		thr(1, kt{Kind: kerneltrace.EndTimer}, seg(30*ms, exit())),
		thr(2, kt{Kind: kerneltrace.EndTimer}, seg(30*ms, exit())),
		thr(3, kt{Kind: kerneltrace.EndTimer}, seg(30*ms, exit())))
	for _, p := range []string{"linux", "osv", "scx_simple"} {
		r := replay(t, traceScenario(t, m, 1, "sched.policy="+p))
		near(t, p+" elapsed ms", r.ElapsedS*1e3, 90, 0.5)
		for _, th := range r.Trace.Threads {
			if th.Replayed.RunnableMs < 1 {
				t.Errorf("%s: %s waited %.3f ms runnable: it was not time-sliced", p, th.Name, th.Replayed.RunnableMs)
			}
		}
	}
}

package playground_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"schedplay/engine"
	"schedplay/playground"
)

// The cores-and-caches lesson: each step stops where its caption says, the
// machine there is what the caption describes, and the numbers the caption
// quotes are the run's own (its results, formatted as the page writes them).

// coresStep opens the lesson at step n and runs it to its moment.
func coresStep(t *testing.T, n int) (*playground.Model, playground.LessonState) {
	t.Helper()
	m := lessonModel(t, "#v=1&lesson=cores-and-caches&step="+strconv.Itoa(n))
	u := untilSettled(t, m)
	if text, filled := captionText(u); u.State != "reached" || !filled {
		t.Fatalf("step %d: %s (%q): %q", n, u.State, u.Status, text)
	}
	return m, u
}

// values are a filled caption's numbers, in order.
func values(u playground.LessonState) []string {
	var out []string
	for _, s := range u.Caption {
		if s.Value {
			out = append(out, s.Text)
		}
	}
	return out
}

// threadsNamed are the arm's threads whose names start with prefix.
func threadsNamed(a *playground.Arm, prefix string) []engine.ThreadSnap {
	var out []engine.ThreadSnap
	for _, th := range a.Snap.Threads {
		if strings.HasPrefix(th.Name, prefix) {
			out = append(out, th)
		}
	}
	return out
}

// checkValues compares a caption's numbers with the results they name.
func checkValues(t *testing.T, n int, u playground.LessonState, want []string) {
	t.Helper()
	if got := values(u); !slices.Equal(got, want) {
		t.Errorf("step %d: the caption shows %q, the run's results are %q", n, got, want)
	}
}

func TestCoresLessonHogs(t *testing.T) {
	// Step 1: stopped at the first hog's fork, main's CPU 0 highlighted with
	// wake_up_new_task's decision; the hog lands on CPU 2, where the worker
	// waits.
	m, _ := coresStep(t, 1)
	st := m.State()
	a := m.Arms()[0]
	if a.Sc.Machine.Topology != "1n1l4c2t" || a.Sc.Sched.Policy != "linux" || len(m.Arms()) != 1 {
		t.Fatalf("step 1 runs %d arms, %s under %s", len(m.Arms()), a.Sc.Machine.Topology, a.Sc.Sched.Policy)
	}
	if st.Selected.CPU != 0 || !strings.Contains(st.Explain, "hog") || !strings.Contains(st.Explain, "find_idlest") {
		t.Errorf("step 1 points at CPU %d: %q", st.Selected.CPU, st.Explain)
	}
	worker, hogs := threadsNamed(a, "worker"), threadsNamed(a, "hog")
	if len(worker) != 1 || len(hogs) != 1 || worker[0].CPU != 2 || worker[0].State != engine.ThreadBlocked || hogs[0].CPU != 2 {
		t.Fatalf("step 1: worker %+v, hogs %+v: want the first hog placed on the waiting worker's CPU 2", worker, hogs)
	}

	// Step 2: the worker's wake moves it from CPU 2, busy with the hog, to
	// a whole idle core (select_idle_core), not to CPU 3, the hog's sibling.
	m, _ = coresStep(t, 2)
	st = m.State()
	a = m.Arms()[0]
	if st.Selected.CPU != 2 || !strings.Contains(st.Explain, "worker") || !strings.Contains(st.Explain, "select_idle_core") {
		t.Errorf("step 2 points at CPU %d: %q", st.Selected.CPU, st.Explain)
	}
	worker, hogs = threadsNamed(a, "worker"), threadsNamed(a, "hog")
	if len(hogs) != 2 || hogs[0].CPU != 2 || hogs[1].CPU/2 != 2 || worker[0].CPU != 6 {
		t.Errorf("step 2: hogs on CPUs %d and %d, worker on %d: want 2, a CPU of core 2, and 6", hogs[0].CPU, hogs[1].CPU, worker[0].CPU)
	}
	if c := st.CPUs[7]; c.State == "running" || c.Runqueue+c.Incoming > 0 {
		t.Errorf("step 2: core 3 was not wholly idle: CPU 7 %+v", c)
	}

	// Step 3: the third hog beside main's CPU; then one task per core, the
	// numbers the run's.
	m, u := coresStep(t, 3)
	a = m.Arms()[0]
	if hogs := threadsNamed(a, "hog"); len(hogs) != 3 || hogs[2].CPU != 1 {
		t.Errorf("step 3: hogs %+v, want the third on CPU 1", hogs)
	}
	busy := map[int]int{}
	running := 0
	for _, c := range m.State().CPUs {
		if c.State == "running" {
			busy[c.ID/2]++
			running++
		}
	}
	if len(busy) != 4 || running != 4 {
		t.Errorf("step 3: busy CPUs by core %v, want one on each of 4", busy)
	}
	r := a.Results()
	if r.Topology.SMTContendedFrac > 0.001 {
		t.Errorf("step 3: SMT-contended %.4f, want about none", r.Topology.SMTContendedFrac)
	}
	checkValues(t, 3, u, []string{"4", playground.FormatResult("topology.smt_contended_frac", r.Topology.SMTContendedFrac)})
}

func TestCoresLessonSyncAcrossLLCs(t *testing.T) {
	// Step 4: stopped at pong's move from CPU 8 (LLC 1) to CPU 7 (LLC 0),
	// queued behind its waker, with the wake-affine decision; LLC 1 idle.
	m, _ := coresStep(t, 4)
	st := m.State()
	a := m.Arms()[0]
	if a.Sc.Machine.Topology != "1n2l4c2t" || a.Sc.Sched.Policy != "linux" || len(m.Arms()) != 1 {
		t.Fatalf("step 4 runs %d arms, %s under %s", len(m.Arms()), a.Sc.Machine.Topology, a.Sc.Sched.Policy)
	}
	if st.Selected.CPU != 8 || !strings.Contains(st.Explain, "wake-affine") {
		t.Errorf("step 4 points at CPU %d: %q", st.Selected.CPU, st.Explain)
	}
	ping, pong := threadsNamed(a, "ping"), threadsNamed(a, "pong")
	if len(ping) != 1 || len(pong) != 1 {
		t.Fatalf("step 4: %d ping and %d pong", len(ping), len(pong))
	}
	if c := st.CPUs[7]; ping[0].CPU != 7 || ping[0].State != engine.ThreadBlocked || c.Running != pong[0].ID {
		t.Errorf("step 4: ping on CPU %d (%v), pong on CPU %d, want pong running on CPU 7 as ping sleeps (%+v)", ping[0].CPU, ping[0].State, pong[0].CPU, c)
	}
	spin := threadsNamed(a, "spinner")
	for i, s := range spin {
		if s.CPU != i {
			t.Errorf("spinner %d on CPU %d, want %d", i, s.CPU, i)
		}
	}
	for _, c := range st.CPUs[8:] {
		if c.State == "running" || c.Runqueue > 0 {
			t.Errorf("step 4: CPU %d in LLC 1 is not idle: %+v", c.ID, c)
		}
	}

	// Step 5: stopped at the periodic balancer's first move, the active
	// balance that CPU 8 (the NOHZ idle balancer, at the PKG level) asked of
	// CPU 0: CPU 0's spinner goes to CPU 8, in LLC 1.
	m, u := coresStep(t, 5)
	a = m.Arms()[0]
	st = m.State()
	if st.Selected.CPU != 0 || !strings.Contains(st.Explain, "active balance") {
		t.Errorf("step 5 points at CPU %d: %q", st.Selected.CPU, st.Explain)
	}
	if at := a.Snap.NowNs; at < 50_000_000 || at > 150_000_000 {
		t.Errorf("step 5 stopped at %d ns, want the first migration after 50 ms", at)
	}
	spin = threadsNamed(a, "spinner")
	var inLLC1 []int
	for _, s := range spin {
		if s.CPU >= 8 {
			inLLC1 = append(inLLC1, s.CPU)
		}
	}
	if !slices.Equal(inLLC1, []int{8}) || spin[0].CPU != 8 {
		t.Errorf("step 5: spinners on %v, want spinner 0 moved from CPU 0 to CPU 8", inLLC1)
	}
	checkValues(t, 5, u, nil)
	// "Play on": the same scenario run on, pong's next sync wakes put it
	// on idle CPU 0, in the waker's LLC, while ping stays on CPU 7.
	s, err := engine.NewSim(a.Sc)
	if err != nil {
		t.Fatal(err)
	}
	s.RunUntil(300_000_000)
	var snap engine.Snapshot
	s.Snapshot(&snap)
	for _, th := range snap.Threads {
		if want, ok := map[string]int{"ping": 7, "pong": 0}[th.Name]; ok && th.CPU != want {
			t.Errorf("at 300 ms %s is on CPU %d, want %d", th.Name, th.CPU, want)
		}
	}
}

func TestCoresLessonBpflandAgainstEEVDF(t *testing.T) {
	// Steps 6 to 8: schbench -m 4 -t 64 -n 0 on 1n2l4c2t, EEVDF (A)
	// against the Starlark scx_bpfland (B). The captions say bpfland is
	// worse on the wakeup p99, the requests per second and the median
	// wakeup, and better on the request p99: the run must say so too.
	m, u6 := coresStep(t, 6)
	arms := m.Arms()
	if len(arms) != 2 || arms[0].Sc.Sched.Policy != "linux" || arms[1].Sc.Sched.Policy != "scx" ||
		!strings.Contains(arms[1].Sc.Sched.Scx.Source, "scx_bpfland") {
		t.Fatalf("step 6 runs %d arms: want linux and the scx_bpfland example", len(arms))
	}
	for _, a := range arms {
		w := a.Sc.Workload.Schbench
		if a.Sc.Machine.Topology != "1n2l4c2t" || a.Sc.Machine.VCPUs != 16 || w.MessageThreads != 4 || w.Workers != 64 || w.Operations != 0 {
			t.Errorf("arm %s: %s, %d CPUs, -m %d -t %d -n %d", a.Name, a.Sc.Machine.Topology, a.Sc.Machine.VCPUs, w.MessageThreads, w.Workers, w.Operations)
		}
	}
	ra, rb := arms[0].Results().Schbench, arms[1].Results().Schbench
	if ra.Workers != 256 || rb.Workers != 256 {
		t.Errorf("%d and %d workers, want 256", ra.Workers, rb.Workers)
	}
	checkValues(t, 6, u6, []string{playground.FormatResult("schbench.wakeup_us.p99", ra.WakeupUs.P99), playground.FormatResult("schbench.wakeup_us.p99", rb.WakeupUs.P99)})
	if rb.WakeupUs.P99 <= ra.WakeupUs.P99 || rb.RPS >= ra.RPS || rb.WakeupUs.P50 <= ra.WakeupUs.P50 {
		t.Errorf("bpfland is not worse here: wakeup p99 %.0f against %.0f µs, p50 %.0f against %.0f µs, %.0f against %.0f requests/s",
			rb.WakeupUs.P99, ra.WakeupUs.P99, rb.WakeupUs.P50, ra.WakeupUs.P50, rb.RPS, ra.RPS)
	}
	// Step 7 also says bpfland's request p99 is the lower.
	if rb.RequestUs.P99 >= ra.RequestUs.P99 {
		t.Errorf("bpfland's request p99 %.0f µs is not below EEVDF's %.0f", rb.RequestUs.P99, ra.RequestUs.P99)
	}
	if msg := m.Set("step", "7"); msg != "" {
		t.Fatal(msg)
	}
	u7 := untilSettled(t, m)
	f := playground.FormatResult
	checkValues(t, 7, u7, []string{
		f("schbench.wakeup_us.p50", rb.WakeupUs.P50), f("schbench.wakeup_us.p50", ra.WakeupUs.P50),
		f("schbench.rps", rb.RPS), f("schbench.rps", ra.RPS),
		f("schbench.request_us.p99", rb.RequestUs.P99), f("schbench.request_us.p99", ra.RequestUs.P99)})
	if msg := m.Set("step", "8"); msg != "" {
		t.Fatal(msg)
	}
	u8 := untilSettled(t, m)
	ta, tb := arms[0].Results().Topology, arms[1].Results().Topology
	checkValues(t, 8, u8, []string{
		f("topology.migrations_per_s_by_level.llc", tb.MigrationsByLevel.LLC), f("topology.migrations_per_s_by_level.llc", ta.MigrationsByLevel.LLC),
		f("topology.smt_contended_frac", tb.SMTContendedFrac), f("topology.smt_contended_frac", ta.SMTContendedFrac)})
	t.Logf("wakeup p99 %s against %s", values(u6)[0], values(u6)[1])
	t.Logf("step 7: %q; step 8: %q", values(u7), values(u8))
}

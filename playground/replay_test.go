package playground_test

import (
	"math"
	"os"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"schedplay/engine"
	"schedplay/playground"
	"schedplay/playground/runner"
	"schedplay/playground/tracefile"
)

func replayUI(t *testing.T, m *playground.Model) playground.ReplayUI {
	t.Helper()
	s := m.Snapshot(0)
	if s.Replay == nil {
		t.Fatal("the snapshot has no replay section")
	}
	return *s.Replay
}

// lisaModel is the replay model of the LISA trace's first toMs (0: all of
// it, 6.7 s), as the trace worker builds it for the panel's Run.
func lisaModel(t *testing.T, toMs float64) []byte {
	t.Helper()
	data, err := os.ReadFile("../kerneltrace/testdata/lisa-trace.txt")
	if err != nil {
		t.Fatal(err)
	}
	f, err := tracefile.Open("trace.txt", data)
	if err != nil {
		t.Fatal(err)
	}
	m, err := f.Model(tracefile.Choice{ToMs: toMs})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The trace panel's Run replays the model on the trace's machine under
// linux, from time zero; the replay section sets each process's CPU time as
// recorded beside the replay's, which ends near it; a share of the scenario
// (larger than a document may be) opens to the same run.
func TestReplayTrace(t *testing.T) {
	m, _ := newModel(t, "#v=1&preset=plain")
	if replayUI(t, m).Runs {
		t.Fatal("a preset replays a trace")
	}
	if msg := m.SetTrace(lisaModel(t, 300), "trace.txt", false); msg != "" {
		t.Fatal(msg)
	}
	st := m.State()
	var sc engine.Scenario
	if doc, err := m.ScenarioJSON(); err != nil || json.Unmarshal(doc, &sc) != nil {
		t.Fatalf("the scenario does not encode: %v", err)
	}
	if len(st.Arms) != 1 || len(st.Arms[0].CPUs) != 6 || sc.Sched.Policy != "linux" || sc.Workload.Kind != engine.WorkloadTrace || sc.Machine.Platform != "native" {
		t.Fatalf("after Run: %d arms on %d CPUs, policy %q, workload %q; want one on the trace's 6 CPUs under linux", len(st.Arms), len(st.Arms[0].CPUs), sc.Sched.Policy, sc.Workload.Kind)
	}
	u := replayUI(t, m)
	if !u.Runs || u.Name != "trace.txt" || u.CPUs != 6 || math.Abs(u.WindowMs-300) > 1 || len(u.Processes) == 0 ||
		u.Columns[0] != "as recorded" || len(u.Columns) != 2 || u.ShareLimitText != "4 MiB" {
		t.Fatalf("replay section: %+v", u)
	}
	if s := m.Snapshot(0).Settings; s.Chart != "busy" {
		t.Errorf("the over-time chart plots %q: want busy vCPUs (a trace completes no requests)", s.Chart)
	}
	if mt := m.Snapshot(0).Meta; mt == nil || mt.Trace != "trace.txt" {
		t.Errorf("the preset picker does not name the trace: meta %+v", mt)
	}
	m.RunTo(st.EndNs)
	for i := 1; m.Playing(); i++ {
		m.Update(float64(i) * 16)
	}
	// The busiest processes (shells and sshd) replay their recorded CPU time
	// (kernel workers differ: kerneltrace's model's business, not the page's).
	u = replayUI(t, m)
	for _, p := range u.Processes[:3] {
		if p.CPUMs[1] < 0 || math.Abs(p.CPUMs[1]-p.CPUMs[0]) > 0.01*p.CPUMs[0] {
			t.Errorf("process %s (%d): recorded %.3f ms of CPU, replayed %.3f", p.Name, p.Pid, p.CPUMs[0], p.CPUMs[1])
		}
	}
	// The headline cards are the replay's: the CPU time replayed, of the
	// recorded, first.
	if cards := m.Snapshot(0).Cards.Cards; len(cards) < 4 || cards[0].ID != "replayed" || cards[0].Note != "of the CPU time the trace records" {
		t.Errorf("cards %+v: want the CPU time replayed first", cards)
	} else {
		t.Logf("cards: %s %s, %s %s, %s %s, %s %s", cards[0].Label, cards[0].A, cards[1].Label, cards[1].A, cards[2].Label, cards[2].A, cards[3].Label, cards[3].A)
	}
	doc, err := m.ScenarioJSON()
	if err != nil {
		t.Fatal(err)
	}
	c := &fakeClock{step: 0.01}
	shared := playground.New(playground.Options{Presets: testPresets(t), Clock: c.read, BudgetMs: 5, Runner: runner.NewLocal(c.read), Shared: doc})
	if probs := shared.State().Problems; len(probs) > 0 {
		t.Fatalf("the share opens with problems: %v", probs)
	}
	if u := replayUI(t, shared); !u.Runs || u.Name != "trace.txt" {
		t.Fatalf("the share's replay section: %+v", u)
	}
	linkRunsTheSame(t, m, shared, st.EndNs)

	// The whole trace's scenario is larger than a document may be: its share
	// opens all the same.
	if msg := m.SetTrace(lisaModel(t, 0), "trace.txt", false); msg != "" {
		t.Fatal(msg)
	}
	if doc, err = m.ScenarioJSON(); err != nil || len(doc) <= engine.MaxScenarioBytes {
		t.Fatalf("the whole trace's scenario is %d bytes (%v): want one over engine.MaxScenarioBytes", len(doc), err)
	}
	whole := playground.New(playground.Options{Presets: testPresets(t), Clock: c.read, BudgetMs: 5, Runner: runner.NewLocal(c.read), Shared: doc})
	if u := replayUI(t, whole); len(whole.State().Problems) > 0 || !u.Runs || u.WindowMs < 6000 {
		t.Fatalf("the whole trace's share: problems %v, replay %+v", whole.State().Problems, u)
	}
}

// A model the engine refuses is not run, and says why.
func TestReplayRefused(t *testing.T) {
	m, _ := newModel(t, "#v=1&preset=plain")
	for _, bad := range []string{`{"cpus":4,"threads":[{"tid":1,"segments":[{"run_ns":5,"end":{"kind":1,"waker":9}}]}]}`, `{"cpus":999}`, `not json`} {
		if msg := m.SetTrace([]byte(bad), "bad", false); msg == "" {
			t.Errorf("SetTrace(%s) ran", bad)
		}
	}
	if replayUI(t, m).Runs {
		t.Error("a refused model runs")
	}
}

// In compare, the recording is a column of its own beside each arm's
// replay: "as recorded", then A and B, each with its figures.
func TestReplayCompare(t *testing.T) {
	m, _ := newModel(t, "#v=1&preset=plain")
	if msg := m.SetTrace(lisaModel(t, 300), "trace.txt", false); msg != "" {
		t.Fatal(msg)
	}
	if msg := m.Set("compare", "machine.platform:native,kvm"); msg != "" {
		t.Fatal(msg)
	}
	m.RunTo(100e6)
	for i := 1; m.Playing(); i++ {
		m.Update(float64(i) * 16)
	}
	u := replayUI(t, m)
	if strings.Join(u.Columns, ",") != "as recorded,A,B" || len(u.Unfinished) != 2 || !strings.HasPrefix(u.Titles[1], "A · ") ||
		!strings.HasPrefix(u.Caption, "As recorded, and as replayed so far (A: ") {
		t.Fatalf("columns %q, titles %q, caption %q, unfinished %v: want as recorded, A and B", u.Columns, u.Titles, u.Caption, u.Unfinished)
	}
	for _, p := range u.Processes[:3] {
		if len(p.CPUMs) != 3 || p.CPUMs[1] <= 0 || p.CPUMs[2] <= 0 {
			t.Errorf("process %s: CPU time %v: want one as recorded and one for each arm", p.Name, p.CPUMs)
		}
	}
}

// An rt-app workload run over a trace replaces it; taking the workload away
// replays the trace again, model and all.
func TestReplayThenWorkload(t *testing.T) {
	m, _ := newModel(t, "#v=1&preset=plain")
	if msg := m.SetTrace(lisaModel(t, 300), "trace.txt", false); msg != "" {
		t.Fatal(msg)
	}
	threads := replayUI(t, m).Threads
	if msg := m.SetWorkload(twoTasks); msg != "" {
		t.Fatal(msg)
	}
	if replayUI(t, m).Runs || !workloadUI(t, m).Runs {
		t.Fatal("the rt-app workload did not replace the trace")
	}
	if msg := m.SetWorkload(""); msg != "" {
		t.Fatal(msg)
	}
	if u := replayUI(t, m); !u.Runs || u.Threads != threads || u.Name != "trace.txt" {
		t.Fatalf("without the workload: replay %+v, want the trace's %d threads again", u, threads)
	}
	if msg := m.SetPolicy(""); msg != "" {
		t.Fatal(msg)
	}
	if u := replayUI(t, m); !u.Runs || u.Threads != threads {
		t.Fatalf("after a policy change: replay %+v", u)
	}
}

// "Every wakeup timed" is the scenario's knob, workload.trace_all_timed.
func TestReplayAllTimed(t *testing.T) {
	m, _ := newModel(t, "#v=1&preset=plain")
	if msg := m.SetTrace(lisaModel(t, 300), "trace.txt", true); msg != "" {
		t.Fatal(msg)
	}
	if u := replayUI(t, m); !u.AllTimed {
		t.Fatalf("replay %+v: want all timed", u)
	}
	if msg := m.Set("workload.trace_all_timed", "0"); msg != "" {
		t.Fatal(msg)
	}
	if u := replayUI(t, m); u.AllTimed || !u.Runs {
		t.Fatalf("after the knob: replay %+v", u)
	}
}

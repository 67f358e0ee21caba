package engine

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
)

// ckShort shortens each preset so the test stays fast under js/wasm, where CI
// runs it too (.ci/run): a few hundred simulated ms of every preset and arm,
// warm-up included, which holds all of each run's mechanisms (clients
// connecting, pull IPIs, balancer passes, spin windows, a hackbench to its
// end). The moments checkpointed: the start, mid warm-up, the warm-up's end,
// and twice in the measured window.
var ckShort = map[string][]string{
	"durable-write":   {"duration_ms=500", "warmup_ms=200", "series_interval_ms=50"},
	"hackbench":       {"workload.hackbench.groups=2", "workload.hackbench.loops=60", "duration_ms=400", "series_interval_ms=5"},
	"idle-guest":      {"duration_ms=500", "warmup_ms=200", "series_interval_ms=50"},
	"pgbench-ro":      {"duration_ms=500", "warmup_ms=200", "series_interval_ms=50"},
	"saturated-sync":  {"duration_ms=400", "warmup_ms=150", "series_interval_ms=50"},
	"schbench":        {"workload.schbench.workers=8", "workload.schbench.operations=1", "workload.schbench.rps=20000", "duration_ms=100", "warmup_ms=30", "series_interval_ms=5"},
	"thread-per-conn": {"duration_ms=400", "warmup_ms=150", "series_interval_ms=50"},
	"tpcb-32vcpu":     {"duration_ms=400", "warmup_ms=150", "series_interval_ms=50"},
}

// ckMoments are where the test checkpoints a run of sc: 0, mid warm-up (or a
// fifth in, without one), the warm-up's end, then a third and two thirds into
// the measured window.
func ckMoments(sc Scenario) []int64 {
	w, d := sc.WarmupMs*1e6, sc.DurationMs*1e6
	mid := w / 2
	if w == 0 {
		mid = d / 5
	}
	return []int64{0, mid, w, w + (d-w)/3, w + 2*(d-w)/3}
}

// ckRun is what a run ends with: its results as JSON (series included), its
// decision records and its state as a checkpoint at each moment given.
type ckRun struct {
	results   []byte
	decisions []Decision
	states    map[int64][]byte
}

// runFrom runs s to its end, checkpointing it at each of moments it has not
// passed (with every measured window).
func runFrom(t *testing.T, s *Sim, moments []int64) ckRun {
	t.Helper()
	run := ckRun{states: map[int64][]byte{}}
	for _, m := range moments {
		if m < s.NowNs() {
			continue
		}
		s.RunUntil(m)
		ck, err := s.AppendCheckpoint(nil, CheckpointOptions{})
		if err != nil {
			t.Fatal(err)
		}
		run.states[m] = ck
	}
	s.RunUntil(s.EndNs())
	res, err := json.Marshal(s.Results(), json.Deterministic(true))
	if err != nil {
		t.Fatal(err)
	}
	run.results, run.decisions = res, s.Decisions(nil)
	return run
}

// TestCheckpointResumeIsTheSameRun: for every preset and every arm, a run
// resumed from a checkpoint taken at each moment ends with the results (series
// included) and decision records of the run from time zero, byte for byte,
// passes through the same states (its checkpoints at the later moments are the
// same bytes), and shows the same results at the moment it resumes.
func TestCheckpointResumeIsTheSameRun(t *testing.T) {
	for _, name := range exampleNames(t) {
		short, ok := ckShort[name]
		if !ok {
			t.Fatalf("examples/%s.json has no short form in ckShort: add one, so its checkpoints are tested", name)
		}
		arms, err := loadExample(t, name, short...).ArmScenarios()
		if err != nil {
			t.Fatal(err)
		}
		for _, arm := range arms {
			t.Run(name+"/"+arm.Name, func(t *testing.T) { resumeIsTheSameRun(t, arm.Scenario) })
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v, json.Deterministic(true))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func firstDecisionDiff(a, b []Decision) string {
	if len(a) != len(b) {
		return fmt.Sprintf("%d records against %d", len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			return fmt.Sprintf("record %d: %+v against %+v", i, a[i], b[i])
		}
	}
	return ""
}

// A checkpoint keeps the windows asked for, renumbered in that order, and the
// note; its header says where and when it was taken.
func TestCheckpointWindowsAndInfo(t *testing.T) {
	sc := loadExample(t, "tpcb-32vcpu", ckShort["tpcb-32vcpu"]...)
	s, err := NewSim(sc)
	if err != nil {
		t.Fatal(err)
	}
	s.AddWindow(0, 50)
	warm := s.AddWindow(0, sc.WarmupMs)
	s.RunUntil(200e6)
	ck, err := s.AppendCheckpoint(nil, CheckpointOptions{Windows: []int{0, warm}, Note: []byte("a note")})
	if err != nil {
		t.Fatal(err)
	}
	info, err := ReadCheckpointInfo(ck)
	if err != nil {
		t.Fatal(err)
	}
	if info.Version != CheckpointVersion || info.Key != sc.Key() || info.NowNs != 200e6 || info.Events != s.Events() || string(info.Note) != "a note" {
		t.Fatalf("info %+v does not describe the run (key %s, %d events)", info, sc.Key(), s.Events())
	}
	r, err := Resume(sc, ck)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.WindowIndex(0, sc.WarmupMs); got != 1 {
		t.Fatalf("the warm-up window is number %d after resuming, want 1", got)
	}
	if r.WindowIndex(0, 50) != -1 {
		t.Fatal("a window not kept is still there")
	}
	if a, b := mustJSON(t, r.ResultsWindow(1)), mustJSON(t, s.ResultsWindow(warm)); !bytes.Equal(a, b) {
		t.Fatalf("the kept window's results differ:\n%s\n%s", a, b)
	}
	for _, tc := range []struct {
		desc string
		wins []int
	}{
		{"not starting with the scenario's", []int{warm, 0}},
		{"out of range", []int{0, 7}},
		{"twice", []int{0, warm, warm}},
		{"empty", []int{}},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			if _, err := s.AppendCheckpoint(nil, CheckpointOptions{Windows: tc.wins}); err == nil {
				t.Fatalf("windows %v were accepted", tc.wins)
			}
		})
	}
}

// Resume refuses, with an error that says so, a checkpoint of another
// scenario, of another format version, or damaged anywhere.
func TestCheckpointRefused(t *testing.T) {
	sc := loadExample(t, "durable-write", ckShort["durable-write"]...)
	s, err := NewSim(sc)
	if err != nil {
		t.Fatal(err)
	}
	s.RunUntil(250e6)
	ck, err := s.AppendCheckpoint(nil, CheckpointOptions{})
	if err != nil {
		t.Fatal(err)
	}
	other := loadExample(t, "durable-write", append(ckShort["durable-write"], "workload.clients=31")...)
	version := bytes.Clone(ck)
	version[len(ckMagic)] = CheckpointVersion + 1
	for _, tc := range []struct {
		desc string
		sc   Scenario
		data []byte
		want error
		msg  string
	}{
		{"another scenario", other, ck, ErrCheckpointScenario, other.Key().String()},
		{"another seed", withSeed(sc, 2), ck, ErrCheckpointScenario, "key"},
		{"another version", sc, version, ErrCheckpointVersion, fmt.Sprint("version ", CheckpointVersion)},
		{"not a checkpoint", sc, []byte(`{"version":1}`), ErrCheckpointCorrupt, "SPCK"},
		{"empty", sc, nil, ErrCheckpointCorrupt, "SPCK"},
		{"bytes after the end", sc, append(bytes.Clone(ck), 0), ErrCheckpointCorrupt, "end mark"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			r, err := Resume(tc.sc, tc.data)
			if r != nil || !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("Resume: %v (sim %v), want %v mentioning %q", err, r != nil, tc.want, tc.msg)
			}
		})
	}
	t.Run("truncated", func(t *testing.T) {
		// Every length through the header and the first sections, then a
		// spread over the rest (each Resume validates the scenario anew).
		for n := 0; n < len(ck); n += max(1, min(n/64, 97)) {
			if r, err := Resume(sc, ck[:n]); r != nil || !errors.Is(err, ErrCheckpointCorrupt) {
				t.Fatalf("the first %d of %d bytes: %v", n, len(ck), err)
			}
		}
	})
}

func withSeed(sc Scenario, seed uint64) Scenario {
	sc.Seed = seed
	return sc
}

// The key tells apart scenarios that run differently (any knob, the seed, a
// cost no knob sets) and is the same for equal ones however they were decoded.
func TestScenarioKey(t *testing.T) {
	base := loadExample(t, "tpcb-32vcpu")
	same := loadExample(t, "tpcb-32vcpu")
	if base.Key() != same.Key() {
		t.Fatal("two decodings of one file have different keys")
	}
	for _, tc := range []struct {
		desc string
		sc   Scenario
	}{
		{"a knob", loadExample(t, "tpcb-32vcpu", "workload.clients=63")},
		{"the seed", withSeed(base, 9)},
		{"a service time", func() Scenario { c := base; c.Workload.Service.MeanUs += 0.5; return c }()},
		{"another preset", loadExample(t, "pgbench-ro")},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			if tc.sc.Key() == base.Key() {
				t.Fatalf("a scenario differing in %s has the same key", tc.desc)
			}
		})
	}
}

// The fields the key leaves out change no run: a scenario with another name,
// description, arms, published figures and fitted notes runs event for event
// the same (results and decisions byte-identical). An engine that came to read
// one of them would fail here, and the key would have to cover it.
func TestScenarioKeyIgnoresLabels(t *testing.T) {
	base := loadExample(t, "tpcb-32vcpu", ckShort["tpcb-32vcpu"]...)
	other := base
	other.Name, other.Description = "another", "another description"
	other.Arms = []Arm{{Name: "x", Set: map[string]string{"sched.wake_pull": "true"}}}
	other.Published = []Published{{Arm: "x", Values: map[string]float64{"throughput_per_s": 1}}}
	other.Fitted = map[string]string{"workload.clients": "fitted"}
	if other.Key() != base.Key() {
		t.Fatal("the labels change the key")
	}
	run := func(sc Scenario) ckRun {
		s, err := NewSim(sc)
		if err != nil {
			t.Fatal(err)
		}
		return runFrom(t, s, nil)
	}
	a, b := run(base), run(other)
	if !bytes.Equal(a.results, b.results) || firstDecisionDiff(a.decisions, b.decisions) != "" {
		t.Fatal("a scenario differing only in what the key leaves out runs differently")
	}
}

// A pack lists its checkpoints with their headers; a damaged one is refused.
func TestCheckpointPack(t *testing.T) {
	sc := loadExample(t, "idle-guest", ckShort["idle-guest"]...)
	s, err := NewSim(sc)
	if err != nil {
		t.Fatal(err)
	}
	var cks [][]byte
	for _, at := range []int64{100e6, 300e6} {
		s.RunUntil(at)
		ck, err := s.AppendCheckpoint(nil, CheckpointOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cks = append(cks, ck)
	}
	pack, err := AppendCheckpointPack(nil, cks...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := AppendCheckpointPack(nil, cks[0][:10]); !errors.Is(err, ErrCheckpointCorrupt) {
		t.Fatalf("a damaged checkpoint was packed: %v", err)
	}
	got, err := ReadCheckpointPack(pack)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].NowNs != 100e6 || got[1].NowNs != 300e6 || got[1].Key != sc.Key() || !bytes.Equal(got[1].Data, cks[1]) {
		t.Fatalf("the pack reads back as %+v", got)
	}
	for n := range len(pack) {
		if _, err := ReadCheckpointPack(pack[:n]); !errors.Is(err, ErrCheckpointCorrupt) {
			t.Fatalf("the pack's first %d bytes: %v", n, err)
		}
	}
	if _, err := ReadCheckpointPack(append(bytes.Clone(pack), 1)); !errors.Is(err, ErrCheckpointCorrupt) {
		t.Fatalf("a byte after the pack: %v", err)
	}
}

// TestCheckpointResumeMidQueue: the same for states the presets' short runs
// may pass through only briefly: row locks with clients queued for them (one
// branch row for six clients), and a thread-per-connection server on three
// RSS queues whose workers exit and have their slots reused.
func TestCheckpointResumeMidQueue(t *testing.T) {
	cases := []struct {
		name, example string
		sets          []string
	}{
		{"row locks queued", "tpcb-32vcpu", []string{"duration_ms=90", "warmup_ms=30", "workload.clients=6", "machine.vcpus=3", "workload.tpcb_scale=1"}},
		{"RSS and reused workers", "thread-per-conn", []string{"duration_ms=90", "warmup_ms=30", "workload.clients=6", "machine.vcpus=3",
			"workload.rx_queues=3", "workload.rss=true", "workload.requests_per_conn=3"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { resumeIsTheSameRun(t, loadExample(t, c.example, c.sets...)) })
	}
}

// resumeIsTheSameRun checks a run of sc resumed at each of ckMoments against
// the run from zero (TestCheckpointResumeIsTheSameRun).
func resumeIsTheSameRun(t *testing.T, sc Scenario) {
	t.Helper()
	// A second measured window, as the page adds for its warm-up.
	addWin := func(s *Sim) { s.AddWindow(0, max(sc.WarmupMs, sc.DurationMs/3)) }
	s, err := NewSim(sc)
	if err != nil {
		t.Fatal(err)
	}
	addWin(s)
	moments := ckMoments(sc)
	ref := runFrom(t, s, moments)
	for _, m := range moments {
		ck := ref.states[m]
		if ck == nil {
			continue // the run ended before m (hackbench finishes early)
		}
		r, err := Resume(sc, ck)
		if err != nil {
			t.Fatalf("resume at %d ns: %v", m, err)
		}
		again, err := r.AppendCheckpoint(nil, CheckpointOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again, ck) {
			t.Fatalf("resume at %d ns: the resumed state's checkpoint differs from the one it resumed (byte %d of %d)", m, firstDiff(again, ck), len(ck))
		}
		fresh, _ := NewSim(sc)
		addWin(fresh)
		fresh.RunUntil(m)
		if a, b := mustJSON(t, r.Results()), mustJSON(t, fresh.Results()); !bytes.Equal(a, b) {
			t.Fatalf("resume at %d ns: results at the moment differ:\n resumed %s\n    zero %s", m, a, b)
		}
		got := runFrom(t, r, moments)
		if !bytes.Equal(got.results, ref.results) {
			t.Fatalf("resume at %d ns: results differ from the run from zero:\n resumed %s\n    zero %s", m, got.results, ref.results)
		}
		if d := firstDecisionDiff(got.decisions, ref.decisions); d != "" {
			t.Fatalf("resume at %d ns: decision records differ: %s", m, d)
		}
		for at, st := range got.states {
			if at > m && !bytes.Equal(st, ref.states[at]) {
				t.Fatalf("resumed at %d ns, the state at %d ns differs from the run from zero's (byte %d)", m, at, firstDiff(st, ref.states[at]))
			}
		}
	}
}

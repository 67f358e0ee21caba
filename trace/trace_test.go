package trace

import (
	"bytes"
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"schedplay/engine"
	"schedplay/examples"
)

var update = flag.Bool("update", false, "rewrite docs/example-trace.json")

// loadScenario decodes a scenario file with knob overrides.
func loadScenario(t testing.TB, path string, sets ...string) engine.Scenario {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := engine.DecodeScenario(data, sets...)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return sc
}

// pullScenario is the 32-vCPU pull scenario (64 clients, wake_pull on) run long
// enough for a window of windowMs in its busy steady state, which it returns.
// Clients connect one every connect_interval_us and start together, so the
// machine is busy only once all have connected and the idle vCPUs have begun to
// pull (see below).
func pullScenario(t testing.TB, windowMs int64) (sc engine.Scenario, start, until int64) {
	t.Helper()
	sc = loadScenario(t, "../examples/tpcb-32vcpu.json", "workload.clients=64", "sched.wake_pull=true", "warmup_ms=0")
	w := sc.Workload
	// Clients connect one every connect interval and start together; the idle
	// vCPUs, halted since boot, first hear of the work at the balancers' pass at
	// 200 ms and start pulling then, so the busy steady state begins after that.
	start = (int64(w.Clients)*w.ConnectIntervalUs/1000 + 300) * 1_000_000
	until = start + windowMs*1_000_000
	sc, err := sc.WithKnobs("duration_ms=" + strconv.FormatInt(until/1_000_000, 10))
	if err != nil {
		t.Fatal(err)
	}
	return sc, start, until
}

func newSim(t testing.TB, sc engine.Scenario) *engine.Sim {
	t.Helper()
	sim, err := engine.NewSim(sc)
	if err != nil {
		t.Fatal(err)
	}
	return sim
}

// writeTrace writes sc's trace with opts and parses it.
func writeTrace(t testing.TB, sc engine.Scenario, opts Options) ([]byte, Stats, *parsed) {
	t.Helper()
	var buf bytes.Buffer
	st, err := Write(&buf, newSim(t, sc), opts)
	if err != nil {
		t.Fatalf("Write: %v", err)
	}
	if st.Bytes != int64(buf.Len()) {
		t.Errorf("Stats.Bytes = %d, wrote %d", st.Bytes, buf.Len())
	}
	p, err := parseTrace(buf.Bytes())
	if err != nil {
		t.Fatalf("invalid trace: %v", err)
	}
	if int64(len(p.Events)) != st.Events {
		t.Errorf("Stats.Events = %d, parsed %d", st.Events, len(p.Events))
	}
	return buf.Bytes(), st, p
}

// observed is one visual event of an independent run, with its decision record.
type observed struct {
	engine.VisEvent
	Dec engine.Decision
}

// observeRun runs sc to until on its own and records every visual event: the
// oracle the traces are compared with.
func observeRun(t testing.TB, sc engine.Scenario, until int64) ([]observed, *engine.Sim) {
	t.Helper()
	sim := newSim(t, sc)
	var out []observed
	sim.Observe(func(e engine.VisEvent) {
		o := observed{VisEvent: e}
		if e.Kind == engine.VisDecision {
			o.Dec = sim.DecisionAt(int(e.Arg))
		}
		out = append(out, o)
	})
	sim.RunUntil(until)
	return out, sim
}

func threadLabel(sim *engine.Sim, id int) string {
	name, _, _ := sim.ThreadInfo(id)
	return name + " #" + strconv.Itoa(id)
}

// stateSliceName is the slice name a CPU in state st running thread shows.
func stateSliceName(sim *engine.Sim, st engine.CPUState, thread int) string {
	switch st {
	case engine.CPURunning:
		return threadLabel(sim, thread)
	case engine.CPUSpinning:
		return "spin"
	case engine.CPUHalted:
		return "halt"
	}
	return st.String()
}

// checkCoverage checks that each CPU track is covered by slices without gaps
// from start to end.
func checkCoverage(t *testing.T, p *parsed, ncpu int, start, end int64) {
	t.Helper()
	for cpu := range ncpu {
		l := p.Slices[cpu+1]
		if len(l) == 0 {
			t.Errorf("vCPU %d: no slices", cpu)
			continue
		}
		if l[0].StartNs != start || l[len(l)-1].End != end {
			t.Errorf("vCPU %d: slices cover [%d, %d), want [%d, %d)", cpu, l[0].StartNs, l[len(l)-1].End, start, end)
		}
		for i := 1; i < len(l); i++ {
			if l[i].StartNs != l[i-1].End {
				t.Errorf("vCPU %d: gap or overlap between %q ending %d and %q starting %d", cpu, l[i-1].Name, l[i-1].End, l[i].Name, l[i].StartNs)
				break
			}
		}
	}
}

// TestPullScenario checks a trace of the 32-vCPU pull scenario against an
// independent run of the same (deterministic) simulation: the tracks, what each
// CPU shows at sampled instants (from Snapshot), every decision with its reason,
// every IPI arrow, every migration and the completion counter.
func TestPullScenario(t *testing.T) {
	sc, start, until := pullScenario(t, 5)
	const bucket = 100_000
	_, st, p := writeTrace(t, sc, Options{StartNs: start, UntilNs: until, CompletionBucketNs: bucket})
	ncpu := sc.Machine.VCPUs
	if st.StartNs != start || st.EndNs != until || st.Truncated {
		t.Fatalf("Stats window [%d, %d) truncated %v, want [%d, %d)", st.StartNs, st.EndNs, st.Truncated, start, until)
	}

	// Tracks: one per vCPU in order, then "external".
	if p.Process != "vCPUs" {
		t.Errorf("process_name %q, want vCPUs", p.Process)
	}
	for cpu := range ncpu {
		if got, want := p.ThreadName[cpu+1], fmt.Sprintf("vCPU %d", cpu); got != want {
			t.Errorf("tid %d named %q, want %q", cpu+1, got, want)
		}
		if p.SortIndex[cpu+1] != cpu {
			t.Errorf("tid %d sort index %d, want %d", cpu+1, p.SortIndex[cpu+1], cpu)
		}
	}
	ext := ncpu + 1
	if p.ThreadName[ext] != "external" || p.SortIndex[ext] != ncpu {
		t.Errorf("tid %d: name %q sort %d, want external, %d", ext, p.ThreadName[ext], p.SortIndex[ext], ncpu)
	}
	checkCoverage(t, p, ncpu, start, until)

	// The oracle: the same run observed directly.
	obs, sim := observeRun(t, sc, until)
	tidOf := func(cpu int32) int {
		if cpu < 0 {
			return ext
		}
		return int(cpu) + 1
	}
	var wantDec, wantMig []string
	type send struct {
		from, to  int
		sent, arr int64
		kind      string
	}
	var wantFlows []send
	completions := map[int64]int64{} // bucket start -> count
	for _, o := range obs {
		if o.AtNs < start || o.AtNs >= until {
			continue
		}
		switch o.Kind {
		case engine.VisDecision:
			d := o.Dec
			s := fmt.Sprintf("%d tid %d %s: %s target %d value %d", d.AtNs, tidOf(d.CPU), d.Kind, d.Reason, d.Target, d.Value)
			if d.Thread >= 0 {
				s += " thread " + threadLabel(sim, int(d.Thread))
			}
			wantDec = append(wantDec, s)
		case engine.VisMigrate:
			wantMig = append(wantMig, fmt.Sprintf("%d tid %d %s to %d", o.AtNs, tidOf(o.CPU), threadLabel(sim, int(o.Thread)), o.Other))
		case engine.VisIPISend:
			if arr := o.AtNs + int64(o.Arg); arr < until {
				wantFlows = append(wantFlows, send{tidOf(o.CPU), tidOf(o.Other), o.AtNs, arr, o.IPI.String()})
			}
		case engine.VisComplete:
			completions[start+(o.AtNs-start)/bucket*bucket]++
		}
	}
	var gotDec, gotMig []string
	for tid := 1; tid <= ext; tid++ {
		for _, e := range p.Instants[tid] {
			switch e.Cat {
			case "decision":
				tgt, val := int64(-1), int64(0)
				if v, ok := e.Args["target"].(float64); ok {
					tgt = int64(v)
				}
				if v, ok := e.Args["value"].(float64); ok {
					val = int64(v)
				}
				s := fmt.Sprintf("%d tid %d %s: %s target %d value %d", e.TsNs, tid, e.Name, e.Args["reason"], tgt, val)
				if th, ok := e.Args["thread"].(string); ok {
					s += " thread " + th
				}
				gotDec = append(gotDec, s)
			case "migrate":
				gotMig = append(gotMig, fmt.Sprintf("%d tid %d %v to %v", e.TsNs, tid, e.Args["thread"], e.Args["to"]))
			}
		}
	}
	sortStrings := func(l []string) []string {
		// Instants were gathered per track; order them by time then text.
		out := append([]string(nil), l...)
		sortByTime(out)
		return out
	}
	if len(wantDec) < 100 {
		t.Fatalf("only %d decisions in the window: not the busy steady state this test is about", len(wantDec))
	}
	compareLists(t, "decisions", sortStrings(gotDec), sortStrings(wantDec))
	compareLists(t, "migrations", sortStrings(gotMig), sortStrings(wantMig))

	if len(wantFlows) < 100 {
		t.Fatalf("only %d IPIs in the window", len(wantFlows))
	}
	if len(p.Flows) != len(wantFlows) {
		t.Fatalf("%d flows, want %d (one per IPI sent and delivered in the window)", len(p.Flows), len(wantFlows))
	}
	for i, f := range p.Flows {
		w := wantFlows[i]
		if f.FromTid != w.from || f.ToTid != w.to || f.SentNs != w.sent || f.ArrivedNs != w.arr || f.Name != w.kind || f.Cat != "ipi."+w.kind {
			t.Fatalf("flow %d: %s/%s tid %d@%d -> tid %d@%d, want %s tid %d@%d -> tid %d@%d",
				i, f.Cat, f.Name, f.FromTid, f.SentNs, f.ToTid, f.ArrivedNs, w.kind, w.from, w.sent, w.to, w.arr)
		}
		if f.Anchor.Name != w.kind+" IPI" {
			t.Fatalf("flow %d ends at instant %q, want %q", i, f.Anchor.Name, w.kind+" IPI")
		}
	}
	if st.Flows != int64(len(p.Flows)) || st.Decisions != int64(len(gotDec)) || st.Migrations != int64(len(gotMig)) {
		t.Errorf("Stats %+v disagree with the trace: %d flows, %d decisions, %d migrations", st, len(p.Flows), len(gotDec), len(gotMig))
	}

	// What each CPU shows, sampled against Snapshot of a third run.
	snapSim := newSim(t, sc)
	var snap engine.Snapshot
	const samples = 40
	for k := 1; k <= samples; k++ {
		at := start + (until-start)*int64(k)/samples - int64(k*37%1000) // not on round times
		snapSim.RunUntil(at)
		snapSim.Snapshot(&snap)
		for cpu, c := range snap.CPUs {
			got, ok := p.sliceAt(cpu+1, at)
			if c.State == engine.CPURunning && c.Running < 0 {
				// Busy running no thread, spending what the last thread owed
				// (its IPI sends, or the switch into it when it blocked at
				// once): the trace leaves that time in that thread's slice.
				if !ok || !strings.Contains(got.Name, " #") {
					t.Fatalf("at %d ns vCPU %d shows %q, Snapshot says it is busy after a thread left", at, cpu, got.Name)
				}
				continue
			}
			want := stateSliceName(snapSim, c.State, c.Running)
			if !ok || got.Name != want {
				t.Fatalf("at %d ns vCPU %d shows %q, Snapshot says %q", at, cpu, got.Name, want)
			}
		}
	}

	// The counter's value over each bucket is the number of completions in it.
	var total int64
	for b := start; b < until; b += bucket {
		var v float64 = -1
		for _, c := range p.Counters {
			if c.TsNs <= b {
				v = c.Args["per_100us"].(float64)
			}
		}
		if int64(v) != completions[b] {
			t.Fatalf("counter over [%d, %d) = %v, want %d", b, b+bucket, v, completions[b])
		}
		total += completions[b]
	}
	if total == 0 {
		t.Fatal("no completions in the window")
	}
}

// sortByTime sorts "ts ..." lines by their leading number, then text.
func sortByTime(l []string) {
	key := func(s string) int64 {
		n, _ := strconv.ParseInt(s[:strings.IndexByte(s, ' ')], 10, 64)
		return n
	}
	slices.SortFunc(l, func(a, b string) int {
		return cmp.Or(cmp.Compare(key(a), key(b)), strings.Compare(a, b))
	})
}

func compareLists(t *testing.T, what string, got, want []string) {
	t.Helper()
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			t.Fatalf("%s: item %d\n got %s\nwant %s", what, i, got[i], want[i])
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%s: %d in the trace, want %d", what, len(got), len(want))
	}
}

// countingWriter counts bytes and throws them away.
type countingWriter struct{ n int64 }

func (c *countingWriter) Write(b []byte) (int, error) { c.n += int64(len(b)); return len(b), nil }

// TestSizeBound checks the documented bytes-per-simulated-millisecond bound on
// 50 ms of the 32-vCPU pull scenario's busy steady state, everything on.
func TestSizeBound(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: 50 simulated ms of a 32-vCPU run")
	}
	sc, start, until := pullScenario(t, 50)
	var cw countingWriter
	st, err := Write(&cw, newSim(t, sc), Options{StartNs: start, UntilNs: until, CompletionBucketNs: 100_000})
	if err != nil {
		t.Fatal(err)
	}
	ms := float64(until-start) / 1e6
	perMs := float64(cw.n) / ms
	t.Logf("%d bytes over %.0f simulated ms = %.0f bytes/ms (bound %d); %d events, %d slices, %d flows, %d decisions",
		cw.n, ms, perMs, BytesPerSimMsBound, st.Events, st.Slices, st.Flows, st.Decisions)
	// The bound means something only on a busy trace.
	if st.Flows < 1000 || st.Decisions < 1000 || st.Slices < 10000 {
		t.Fatalf("window [%d, %d) is not busy: %+v", start, until, st)
	}
	if perMs > BytesPerSimMsBound {
		t.Errorf("%.0f bytes per simulated ms, above the documented bound %d", perMs, BytesPerSimMsBound)
	}
}

// TestOptionsErrors: bad options are errors naming the field; nothing is written.
func TestOptionsErrors(t *testing.T) {
	sc := loadScenario(t, "testdata/two-cpu.json")
	end := sc.DurationMs * 1_000_000
	for _, tc := range []struct {
		opts  Options
		field string
	}{
		{Options{StartNs: -1}, "StartNs"},
		{Options{UntilNs: -5}, "UntilNs"},
		{Options{StartNs: end}, "StartNs"},
		{Options{StartNs: 2000, UntilNs: 1000}, "StartNs"},
		{Options{CompletionBucketNs: -1}, "CompletionBucketNs"},
		{Options{CompletionBucketNs: 999}, "CompletionBucketNs"},
		{Options{MaxBytes: -1}, "MaxBytes"},
	} {
		var buf bytes.Buffer
		_, err := Write(&buf, newSim(t, sc), tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("%+v: error %v, want one naming %s", tc.opts, err, tc.field)
		}
		if buf.Len() != 0 {
			t.Errorf("%+v: wrote %d bytes before failing", tc.opts, buf.Len())
		}
	}
	if _, err := Write(io.Discard, nil, Options{}); err == nil {
		t.Error("nil sim: no error")
	}
}

// failingWriter fails with err once more than limit bytes were written.
type failingWriter struct {
	n, limit int
	err      error
}

func (f *failingWriter) Write(b []byte) (int, error) {
	if f.n+len(b) > f.limit {
		return 0, f.err
	}
	f.n += len(b)
	return len(b), nil
}

// TestWriteError: a failing writer's error comes back and stops the run early.
func TestWriteError(t *testing.T) {
	sc, start, until := pullScenario(t, 50)
	sim := newSim(t, sc)
	diskFull := errors.New("disk full")
	_, err := Write(&failingWriter{limit: 100 << 10, err: diskFull}, sim, Options{StartNs: start, UntilNs: until})
	if !errors.Is(err, diskFull) {
		t.Fatalf("error %v, want one wrapping %v", err, diskFull)
	}
	if sim.NowNs() >= until {
		t.Errorf("the run went on to %d ns after the writer failed", sim.NowNs())
	}
}

// TestObserverDetached: Write leaves no observer behind.
func TestObserverDetached(t *testing.T) {
	sc := loadScenario(t, "testdata/two-cpu.json")
	sim := newSim(t, sc)
	var buf bytes.Buffer
	if _, err := Write(&buf, sim, Options{UntilNs: 1_000_000}); err != nil {
		t.Fatal(err)
	}
	n := buf.Len()
	sim.RunUntil(2_000_000)
	if buf.Len() != n {
		t.Errorf("the trace grew after Write returned")
	}
	// Continuing from where Write stopped gives a valid trace of the rest.
	var rest bytes.Buffer
	st, err := Write(&rest, sim, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st.StartNs != 2_000_000 || st.EndNs != sc.DurationMs*1_000_000 {
		t.Errorf("second trace covers [%d, %d)", st.StartNs, st.EndNs)
	}
	p, err := parseTrace(rest.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	checkCoverage(t, p, sc.Machine.VCPUs, st.StartNs, st.EndNs)
}

// TestExamplesValid: every preset scenario under every policy makes a valid
// trace whose CPU tracks are covered without gaps (the first 10 simulated ms).
func TestExamplesValid(t *testing.T) {
	files, err := fs.Glob(examples.FS, "*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	for _, f := range files {
		for _, pol := range []string{"osv", "scx_simple", "linux"} {
			t.Run(f+"/"+pol, func(t *testing.T) {
				data, err := fs.ReadFile(examples.FS, f)
				if err != nil {
					t.Fatal(err)
				}
				sc, err := engine.DecodeScenario(data, "sched.policy="+pol, "duration_ms=10", "warmup_ms=0")
				if err != nil {
					t.Fatal(err)
				}
				_, st, p := writeTrace(t, sc, Options{CompletionBucketNs: 1_000_000})
				checkCoverage(t, p, sc.Machine.VCPUs, 0, st.EndNs)
				if st.EndNs != 10_000_000 {
					t.Errorf("trace ends at %d ns, want the horizon", st.EndNs)
				}
			})
		}
	}
}

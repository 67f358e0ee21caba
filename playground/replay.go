package playground

// A recorded Linux trace replayed as the scenario's workload (workload.kind
// trace): the trace panel's Run. The page's binary has no trace decoders:
// the trace worker (static/schedplay-trace-worker.wasm, wasm/tracedecoder)
// reads the file and builds the replay model of the chosen window and
// processes, and the page hands the model here as JSON (SetTrace). The model
// is the scenario's; a share carries it (up to shareapi.MaxTraceShareBytes),
// a link cannot. The replay section (ReplayUI) sets each process's figures
// as recorded beside each arm's replayed ones: the recording is an arm of
// its own, "as recorded".

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/go-json-experiment/json"

	"schedplay/engine"
	"schedplay/internal/shareapi"
	"schedplay/kerneltrace"
	"schedplay/view"
)

// ReplayUI is the trace panel's section of the snapshot.
type ReplayUI struct {
	// Runs says the scenario replays a trace.
	Runs bool `json:"runs"`
	// Name is the trace's (its file's name); Threads, CPUs and WindowMs size
	// the model; AllTimed says every wakeup is a timed sleep.
	Name     string  `json:"name,omitzero"`
	Threads  int     `json:"threads,omitzero"`
	CPUs     int     `json:"cpus,omitzero"`
	WindowMs float64 `json:"window_ms,omitzero"`
	AllTimed bool    `json:"all_timed,omitzero"`
	// Columns name the figures' columns, short: "as recorded", then each
	// arm ("replayed" for one run, else "A", "B"); Titles name them in full
	// ("A · Platform bare metal"); Caption heads the table, saying what each
	// arm is and which have threads still to finish.
	Columns []string `json:"columns,omitzero"`
	Titles  []string `json:"titles,omitzero"`
	Caption string   `json:"caption,omitzero"`
	// Processes are the busiest processes as recorded (at most
	// replayRows), each with a figure per column.
	Processes []ReplayRow `json:"processes,omitzero"`
	// Unfinished counts, per arm, threads the replay had not finished.
	Unfinished []int `json:"unfinished,omitzero"`
	// ShareLimit is the most a share of the scenario may be, in bytes and
	// in words (the panel says it).
	ShareLimit     int    `json:"share_limit"`
	ShareLimitText string `json:"share_limit_text"`
}

// ReplayRow is one process: its CPU time and wake-to-run latency p99 per
// column (as recorded, then each arm's replay; -1 where an arm has no
// figures yet).
type ReplayRow struct {
	Name    string    `json:"name"`
	Pid     int32     `json:"pid"`
	Threads int       `json:"threads"`
	CPUMs   []float64 `json:"cpu_ms"`
	P99Us   []float64 `json:"p99_us"`
}

// replayRows bounds the processes the panel's table lists.
const replayRows = 12

// maxTraceNameBytes bounds the trace's name kept as the scenario's.
const maxTraceNameBytes = 80

// SetTrace replays model (a kerneltrace.Model as JSON) as the scenario from
// time zero, labelled name, every wakeup a timed sleep with allTimed
// (workload.trace_all_timed, a knob the page can then change or compare):
// the trace panel's Run. The scenario is the CLI's
// wrapper's (cmd/schedplay/tracewrap.go) within the page's limits: the
// trace's CPU count, native platform, sched.policy linux, no wake sources of
// the simulator's own (the trace holds the machine's), no warm-up, and twice
// the window and 100 ms more to run in, up to engine.MaxDurationMs. The
// page's knobs are dropped: the trace gives the machine. A model the engine
// refuses leaves the run as it was; the refusal is returned.
func (m *Model) SetTrace(modelJSON []byte, name string, allTimed bool) string {
	m.edits++
	m.message = ""
	var model kerneltrace.Model
	if err := json.Unmarshal(modelJSON, &model, json.RejectUnknownMembers(true)); err != nil {
		return "the trace's model does not decode: " + err.Error()
	}
	src, err := traceSource(&model, name, allTimed)
	if err != nil {
		return err.Error()
	}
	s, probs := applyKnobs(src, nil)
	if s.base.Workload.Kind != engine.WorkloadTrace {
		return "the trace's scenario was refused: " + strings.Join(probs, "; ")
	}
	m.metaVer++              // the preset picker names the trace
	m.chart = view.BusyVCPUs // a trace completes no requests to chart
	m.restartWith(s, probs)
	return ""
}

// traceSource wraps model in a scenario (see SetTrace).
func traceSource(model *kerneltrace.Model, name string, allTimed bool) (source, error) {
	if model.CPUs < 1 || model.CPUs > engine.MaxVCPUs {
		return source{}, fmt.Errorf("the trace has %d CPUs; the page replays 1 to %d", model.CPUs, engine.MaxVCPUs)
	}
	sc := engine.DefaultScenario()
	sc.Name = clipName(name)
	sc.Description = fmt.Sprintf("trace %s: %d threads on %d CPUs", sc.Name, len(model.Threads), model.CPUs)
	sc.Machine.VCPUs = model.CPUs
	sc.Sched.Policy = "linux"
	sc.WarmupMs = 0
	sc.Workload.WakeSourcesPerS = 0
	sc.Workload.TraceAllTimed = allTimed
	winMs := (model.EndNs - model.StartNs + 999_999) / 1_000_000
	sc.DurationMs = min(2*winMs+100, engine.MaxDurationMs)
	sc.Published = nil
	sc.Workload.Kind, sc.Workload.Trace = engine.WorkloadTrace, shareapi.Placeholder()
	// A knob, so that the platform's costs come with it (WithKnobs).
	sc, err := sc.WithKnobs("machine.platform=native")
	if err != nil {
		return source{}, err
	}
	doc, err := sc.Canonical()
	if err != nil {
		return source{}, err
	}
	// The model is checked with the knobs applied (applyKnobs): one pass
	// over a large model's JSON fewer than checking it here too.
	full := sc
	full.Workload.Trace = *model
	src := newSource(Preset{Data: doc}, full, false)
	src.plain, src.trace = doc, model
	return src, nil
}

// clipName keeps a file's name within maxTraceNameBytes, on a rune boundary.
func clipName(name string) string {
	if name == "" {
		return "trace"
	}
	if len(name) <= maxTraceNameBytes {
		return name
	}
	cut := maxTraceNameBytes
	for cut > 0 && !isRuneStart(name[cut]) {
		cut--
	}
	return name[:cut]
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// replayUI builds the trace panel's section.
func (m *Model) replayUI() ReplayUI {
	u := ReplayUI{ShareLimit: shareapi.MaxTraceShareBytes, ShareLimitText: shareapi.Size(shareapi.MaxTraceShareBytes)}
	base := &m.setup.base
	if base.Workload.Kind != engine.WorkloadTrace {
		return u
	}
	tm := &base.Workload.Trace
	u.Runs, u.Name, u.Threads, u.CPUs = true, base.Name, len(tm.Threads), tm.CPUs
	u.WindowMs, u.AllTimed = float64(tm.EndNs-tm.StartNs)/1e6, base.Workload.TraceAllTimed
	u.Columns, u.Titles = []string{"as recorded"}, []string{"as recorded"}
	var named, unfinished []string
	for i, a := range m.arms {
		short := string(rune('A' + i))
		title := short
		switch {
		case a.Name != "":
			title += " · " + a.Name
			named = append(named, short+": "+a.Name)
		case len(m.arms) == 1:
			short, title = "replayed", "replayed"
		}
		u.Columns, u.Titles = append(u.Columns, short), append(u.Titles, title)
		n := a.results.Trace.Unfinished
		u.Unfinished = append(u.Unfinished, n)
		if n > 0 {
			unfinished = append(unfinished, fmt.Sprintf("%s %d", short, n))
		}
	}
	u.Caption = "As recorded, and as replayed so far"
	if len(named) > 0 {
		u.Caption += " (" + strings.Join(named, " · ") + ")"
	}
	u.Caption += "."
	if len(unfinished) > 0 {
		u.Caption += " Threads not finished yet: " + strings.Join(unfinished, ", ") + "."
	}
	procs := slices.Clone(tm.Processes)
	slices.SortStableFunc(procs, func(a, b kerneltrace.Process) int {
		return cmp.Or(cmp.Compare(b.Recorded.CPUMs, a.Recorded.CPUMs), cmp.Compare(a.Pid, b.Pid))
	})
	for _, p := range procs[:min(len(procs), replayRows)] {
		row := ReplayRow{Name: p.Name, Pid: p.Pid, Threads: len(p.Threads),
			CPUMs: []float64{p.Recorded.CPUMs}, P99Us: []float64{p.Recorded.WakeLatP99Us}}
		for _, a := range m.arms {
			cpu, p99 := -1.0, -1.0
			for _, r := range a.results.Trace.Processes {
				if r.Pid == p.Pid {
					cpu, p99 = r.Replayed.CPUMs, r.Replayed.WakeLatP99Us
					break
				}
			}
			row.CPUMs, row.P99Us = append(row.CPUMs, cpu), append(row.P99Us, p99)
		}
		u.Processes = append(u.Processes, row)
	}
	return u
}

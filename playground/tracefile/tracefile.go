// Package tracefile is the page's side of a recorded Linux trace: it reads a
// file the trace panel was given (kerneltrace.ReadModelBytes: Perfetto, ftrace text,
// trace.dat), says what is in it (Summary: the processes and threads found
// and the CPU time the trace records of each, the time span), and builds the
// replay model of the window and processes the panel chose (Model), which
// the page sets as its scenario's workload (workload.kind trace).
//
// It holds the decoders, so only the trace worker links it
// (wasm/tracedecoder, static/schedplay-trace-worker.wasm, fetched when a trace
// is opened): the page's own binary and the engine workers never do. It is
// plain Go, tested natively; the worker's shell only moves bytes.
package tracefile

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"schedplay/kerneltrace"
)

// MaxCPUs is the most CPUs the page replays on (engine.MaxVCPUs, which a
// test keeps it equal to): a trace of a larger machine replays on this many.
// The engine is not imported: the trace worker would link all of it.
const MaxCPUs = 128

// MaxFileBytes is the largest trace file the page opens: the worker holds it
// and its decoded events in memory at once. A longer recording is cut to a
// window with the CLI first (schedplay run --window).
const MaxFileBytes = 64 << 20

// MaxListed bounds the processes a summary lists (the busiest first); the
// rest are counted (Summary.MoreProcesses).
const MaxListed = 200

// File is an opened trace.
type File struct {
	// data is the file, which each Model reads again (ReadModelBytes): the
	// file is smaller than its events would be, decoded and kept.
	data  []byte
	cpus  int
	first int64 // the first event's time
	name  string
	sum   Summary
}

// Summary is what the panel shows of a trace.
type Summary struct {
	Name   string `json:"name"`
	Format string `json:"format"`
	Bytes  int    `json:"bytes"`
	CPUs   int    `json:"cpus"`
	Events int    `json:"events"`
	// DurationMs is the span from the first event to the last; a window is
	// given in ms from the first event.
	DurationMs float64 `json:"duration_ms"`
	// Threads counts every thread found; Processes lists the busiest
	// MaxListed processes by recorded CPU time, MoreProcesses the rest.
	Threads       int       `json:"threads"`
	Processes     []Process `json:"processes"`
	MoreProcesses int       `json:"more_processes,omitzero"`
	// LostEvents counts CPU buffers that lost events (the window starts
	// after the last loss).
	LostEvents int `json:"lost_events,omitzero"`
	// TooManyCPUs says the trace has more CPUs than the engine runs: the
	// replay runs on MaxCPUs.
	TooManyCPUs bool `json:"too_many_cpus,omitzero"`
}

// Process is one process of the trace and its threads, busiest first.
type Process struct {
	Pid     int32    `json:"pid"`
	Name    string   `json:"name"`
	CPUMs   float64  `json:"cpu_ms"`
	Threads []Thread `json:"threads"`
}

// Thread is one thread and the CPU time the trace records of it.
type Thread struct {
	Tid   int32   `json:"tid"`
	Name  string  `json:"name"`
	CPUMs float64 `json:"cpu_ms"`
}

// Choice is what the panel asks for: the window, in ms from the trace's
// first event (ToMs 0: to the end), the processes kept by pid (none: all),
// and whether every wakeup replays as a timed sleep (Options.AllTimed; the
// page's panel sets the scenario's workload.trace_all_timed instead, a knob
// a comparison can then set per arm).
type Choice struct {
	FromMs   float64 `json:"from_ms"`
	ToMs     float64 `json:"to_ms"`
	Pids     []int32 `json:"pids,omitzero"`
	AllTimed bool    `json:"all_timed,omitzero"`
}

// Open reads a trace file named name (for the panel: the file's name). A
// file that is too large, empty, of no known format or corrupt is an error
// that says so (the decoders name the byte offset or line).
func Open(name string, data []byte) (*File, error) {
	if len(data) == 0 {
		return nil, errors.New(name + " is empty")
	}
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("%s is %s, above the page's limit of %s for a trace file: cut a window of it with the CLI (schedplay run --window)",
			name, sizeText(int64(len(data))), sizeText(MaxFileBytes))
	}
	m, tr, err := kerneltrace.ReadModelBytes(data, kerneltrace.Options{KeepCut: true})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if tr.Events == 0 {
		return nil, fmt.Errorf("%s: no scheduler events in it (%s): record sched_switch and sched_waking", name, tr.Format)
	}
	f := &File{data: data, cpus: tr.CPUs, first: tr.FirstNs, name: name}
	f.sum = summarize(name, len(data), tr, m)
	return f, nil
}

// summarize lists m's processes and threads, busiest first.
func summarize(name string, size int, tr *kerneltrace.Summary, m *kerneltrace.Model) Summary {
	s := Summary{Name: name, Format: string(tr.Format), Bytes: size, CPUs: tr.CPUs, Events: tr.Events,
		Threads: len(m.Threads), LostEvents: tr.LostEvents, TooManyCPUs: tr.CPUs > MaxCPUs}
	s.DurationMs = float64(tr.LastNs-tr.FirstNs) / 1e6
	for _, p := range m.Processes {
		sp := Process{Pid: p.Pid, Name: p.Name, CPUMs: p.Recorded.CPUMs}
		for _, id := range p.Threads {
			t := &m.Threads[id]
			sp.Threads = append(sp.Threads, Thread{Tid: t.Tid, Name: t.Name(), CPUMs: t.Recorded.CPUMs})
		}
		slices.SortStableFunc(sp.Threads, func(a, b Thread) int {
			return cmp.Or(cmp.Compare(b.CPUMs, a.CPUMs), cmp.Compare(a.Tid, b.Tid))
		})
		s.Processes = append(s.Processes, sp)
	}
	slices.SortStableFunc(s.Processes, func(a, b Process) int {
		return cmp.Or(cmp.Compare(b.CPUMs, a.CPUMs), cmp.Compare(a.Pid, b.Pid))
	})
	if len(s.Processes) > MaxListed {
		s.MoreProcesses = len(s.Processes) - MaxListed
		s.Processes = s.Processes[:MaxListed]
	}
	return s
}

// Summary is what the panel shows of f.
func (f *File) Summary() Summary { return f.sum }

// Model builds the replay model of the window and processes c asks for.
// Stretches cut by the window's edges are kept (Options.KeepCut), so the
// recorded CPU time is all replayed, as the CLI does. A window outside the
// trace, or filters that leave no thread, are errors that say so; the
// engine's own limits (threads, segments) are checked where the page runs
// the model, with the engine's words.
func (f *File) Model(c Choice) (*kerneltrace.Model, error) {
	first := f.first
	dur := f.sum.DurationMs
	if c.FromMs < 0 || c.ToMs < 0 || (c.ToMs > 0 && c.ToMs <= c.FromMs) || c.FromMs >= dur {
		return nil, fmt.Errorf("the window %s is not within the trace's 0 to %s ms: want FROM < TO", windowText(c), msText(dur))
	}
	opts := kerneltrace.Options{KeepCut: true, Pids: c.Pids, AllTimed: c.AllTimed, CPUs: min(f.cpus, MaxCPUs)}
	opts.StartNs = first + int64(c.FromMs*1e6)
	if c.ToMs > 0 && c.ToMs < dur {
		opts.EndNs = first + int64(c.ToMs*1e6)
	}
	m, _, err := kerneltrace.ReadModelBytes(f.data, opts)
	if err != nil {
		return nil, err
	}
	if len(m.Threads) == 0 {
		if len(c.Pids) > 0 {
			return nil, fmt.Errorf("nothing to replay: no thread of the chosen processes runs in the window %s", windowText(c))
		}
		return nil, fmt.Errorf("nothing to replay: no thread runs in the window %s", windowText(c))
	}
	return m, nil
}

func windowText(c Choice) string {
	if c.ToMs == 0 {
		return msText(c.FromMs) + " ms to the end"
	}
	return msText(c.FromMs) + "–" + msText(c.ToMs) + " ms"
}

func msText(ms float64) string { return fmt.Sprintf("%.4g", ms) }

// sizeText writes a byte count in MiB or KiB.
func sizeText(n int64) string {
	if n >= 1<<20 {
		if n%(1<<20) == 0 {
			return fmt.Sprintf("%d MiB", n>>20)
		}
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d KiB", (n+512)>>10)
}

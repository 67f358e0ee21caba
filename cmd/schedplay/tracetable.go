package main

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"schedplay/engine"
	"schedplay/kerneltrace"
)

// maxTraceRows bounds the threads (and processes) the table lists: the
// busiest by recorded CPU time; --format json has them all.
const maxTraceRows = 40

// writeTraceTable prints a replayed trace's figures per process and per
// thread, recorded beside replayed.
func writeTraceTable(b *strings.Builder, r engine.TraceResults) {
	if len(r.Threads) == 0 {
		return
	}
	mode := "closed loop: wakeups by other threads are dependencies"
	if r.AllTimed {
		mode = "all timed: every wakeup a sleep of its recorded length"
	}
	fmt.Fprintf(b, "\ntrace replay (%s; recorded on %d CPUs; rec = recorded, rep = replayed)\n", mode, r.CPUs)
	head := []string{"cpu ms rec", "rep", "w2r p50 µs rec", "rep", "p99 rec", "rep", "runnable ms rec", "rep", "migr rec", "rep"}
	procs := slices.Clone(r.Processes)
	slices.SortStableFunc(procs, func(x, y engine.TraceProcessResult) int { return cmp.Compare(y.Recorded.CPUMs, x.Recorded.CPUMs) })
	pt := table{align: "llr" + strings.Repeat("r", len(head))}
	pt.add(append([]string{"process", "pid", "threads"}, head...)...)
	for i, p := range procs {
		if i == maxTraceRows {
			break
		}
		pt.add(append([]string{p.Name, fmt.Sprint(p.Pid), fmt.Sprint(p.Threads)}, figureCells(p.Recorded, p.Replayed)...)...)
	}
	pt.write(b)
	more(b, len(procs), "processes")
	b.WriteString("\n")
	ths := slices.Clone(r.Threads)
	slices.SortStableFunc(ths, func(x, y engine.TraceThreadResult) int { return cmp.Compare(y.Recorded.CPUMs, x.Recorded.CPUMs) })
	tt := table{align: "lrr" + strings.Repeat("r", len(head))}
	tt.add(append([]string{"thread", "tid", "pid"}, head...)...)
	for i, t := range ths {
		if i == maxTraceRows {
			break
		}
		name := t.Name
		if !t.Done {
			name += " (unfinished)"
		}
		tt.add(append([]string{name, tidGen(t), fmt.Sprint(t.Pid)}, figureCells(t.Recorded, t.Replayed)...)...)
	}
	tt.write(b)
	more(b, len(ths), "threads")
	c := r.Counts
	fmt.Fprintf(b, "model: %d wake edges, %d timed sleeps (%d idle or interrupt, %d kernel threads, %d D-state, %d unknown waker), %d spawns, %d exits; %d spurious wakeups ignored; %d threads cut at the start, %d at the end",
		c.WakeEdges, c.Timers, c.TimerIdle+c.TimerIRQ, c.TimerKernel, c.TimerIOWait, c.TimerUnknownWaker, c.Spawns, c.Exits, c.Spurious, c.CutFirst, c.CutLast)
	if c.LostSwitches > 0 {
		fmt.Fprintf(b, "; %d switch-outs missing from the trace", c.LostSwitches)
	}
	if c.Dropped > 0 {
		fmt.Fprintf(b, "; %d threads left out by --process", c.Dropped)
	}
	b.WriteString("\n")
	if r.Unfinished > 0 {
		fmt.Fprintf(b, "note: %d threads had not run all their segments at the horizon (duration_ms)\n", r.Unfinished)
	}
}

// figureCells are the recorded and replayed figures side by side.
func figureCells(rec, rep kerneltrace.Figures) []string {
	f := func(v float64) string { return num(v, false) }
	return []string{f(rec.CPUMs), f(rep.CPUMs), f(rec.WakeLatP50Us), f(rep.WakeLatP50Us), f(rec.WakeLatP99Us), f(rep.WakeLatP99Us),
		f(rec.RunnableMs), f(rep.RunnableMs), fmt.Sprint(rec.Migrations), fmt.Sprint(rep.Migrations)}
}

// more says how many rows the table left out.
func more(b *strings.Builder, n int, what string) {
	if n > maxTraceRows {
		fmt.Fprintf(b, "(the %d busiest of %d %s by recorded CPU time; --format json lists all)\n", maxTraceRows, n, what)
	}
}

// tidGen is a thread's tid, with its generation after a slash when the
// trace reused the tid (31539/1).
func tidGen(t engine.TraceThreadResult) string {
	if t.Gen > 0 {
		return fmt.Sprintf("%d/%d", t.Tid, t.Gen)
	}
	return fmt.Sprint(t.Tid)
}

package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"schedplay/engine"
	"schedplay/rtapp"
)

// rt-app's outputs: the per-task table of a run's results, and the per-thread
// log files --rtapp-log writes in rt-app's own format, so that rt-app's
// plotting scripts (and LISA's parsers) read them unchanged.

// writeRTAppTable prints an rt-app run's per-task figures (engine.RTAppResults)
// and, when the run deadlocked, who waited for what.
func writeRTAppTable(b *strings.Builder, r engine.RTAppResults) {
	if len(r.Tasks) == 0 {
		return
	}
	b.WriteString("\nrt-app tasks (µs; run vs c_duration: wall time of the run events vs asked; period vs c_period: a loop's wall time vs its timer periods)\n")
	t := table{align: "lrrrrrrrrrrrr"}
	t.add("task", "threads", "done", "loops", "run", "c_duration", "period", "c_period", "wu_lat", "wu_lat max", "slack", "slack min", "overruns")
	for _, k := range r.Tasks {
		f := func(v float64) string { return num(v, false) }
		timed := func(v float64) string {
			if k.TimedLoops == 0 {
				return "-"
			}
			return f(v)
		}
		t.add(k.Name, fmt.Sprint(k.Threads), fmt.Sprint(k.Finished), fmt.Sprint(k.Loops), f(k.RunMeanUs), f(k.CDurationMeanUs),
			f(k.PeriodMeanUs), timed(k.CPeriodMeanUs), timed(k.WuLatMeanUs), timed(k.WuLatMaxUs), timed(k.SlackMeanUs),
			timed(k.SlackMinUs), fmt.Sprint(k.Overruns))
	}
	t.write(b)
	for _, n := range r.Notes {
		fmt.Fprintf(b, "note: %s\n", n)
	}
	for _, n := range r.Ignored {
		fmt.Fprintf(b, "ignored: %s\n", n)
	}
	if d := r.Deadlock; len(d.Threads) > 0 {
		fmt.Fprintf(b, "\ndeadlock at %s ms: every thread not done waits for another\n", num(d.AtMs, false))
		dt := table{align: "lll"}
		for _, x := range d.Threads {
			dt.add("  "+x.Thread, "("+x.Task+")", x.On)
		}
		dt.write(b)
	}
}

// rtappLogFlushBytes is how much of a thread's log is held before it is
// appended to its file: files are opened one at a time, so thousands of
// threads do not need thousands of open files.
const rtappLogFlushBytes = 16 << 10

// rtappLog writes each thread's rows to DIR/BASENAME-THREAD.log
// (setup_thread_logging), BASENAME being the description's log_basename.
type rtappLog struct {
	paths []string
	bufs  [][]byte
	err   error
}

// newRTAppLog creates dir and every thread's log with its header, and has sim
// send it the rows.
func newRTAppLog(sim *engine.Sim, dir string) (*rtappLog, error) {
	sc := sim.Scenario()
	d, err := rtapp.Decode([]byte(sc.Workload.RTApp))
	if err != nil {
		return nil, fmt.Errorf("--rtapp-log: %v", err)
	}
	names := sim.RTAppThreads()
	if names == nil {
		return nil, errors.New("--rtapp-log: the scenario's workload.kind is " + sc.Workload.Kind + ": only an rt-app workload (workload.kind=rtapp, or an rt-app file) writes rt-app logs")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("--rtapp-log: %v", err)
	}
	l := &rtappLog{bufs: make([][]byte, len(names))}
	for _, n := range names {
		p := filepath.Join(dir, d.Global.LogBasename+"-"+n+".log")
		if err := os.WriteFile(p, []byte(engine.RTAppLogHeader()), 0o644); err != nil {
			return nil, fmt.Errorf("--rtapp-log: %v", err)
		}
		l.paths = append(l.paths, p)
	}
	if err := sim.SetRTAppLog(l.row); err != nil {
		return nil, err
	}
	return l, nil
}

// row is log_timing (src/rt-app_utils.c).
func (l *rtappLog) row(r engine.RTAppLogRow) {
	b := fmt.Appendf(l.bufs[r.Idx], "%4d %8d %8d %8d %15d %15d %15d %10d %10d %10d %10d\n",
		r.Idx, r.Perf, r.Run, r.Period, r.Start, r.End, r.RelSt, r.Slack, r.CDuration, r.CPeriod, r.WuLat)
	l.bufs[r.Idx] = b
	if len(b) >= rtappLogFlushBytes {
		l.flush(r.Idx)
	}
}

func (l *rtappLog) flush(i int) {
	if len(l.bufs[i]) == 0 || l.err != nil {
		return
	}
	f, err := os.OpenFile(l.paths[i], os.O_APPEND|os.O_WRONLY, 0)
	if err == nil {
		_, err = f.Write(l.bufs[i])
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		l.err = fmt.Errorf("--rtapp-log: %v", err)
	}
	l.bufs[i] = l.bufs[i][:0]
}

// close writes what is held and reports the first error.
func (l *rtappLog) close() error {
	for i := range l.bufs {
		l.flush(i)
	}
	return l.err
}

// runRTAppLogged runs sc with its rt-app log written to dir (and, with a
// trace path, the trace).
func runRTAppLogged(sc engine.Scenario, dir string, tf traceFlags, compile engine.ScxCompiler, progress io.Writer) (engine.Results, error) {
	sim, err := engine.NewSimScx(sc, compile)
	if err != nil {
		return engine.Results{}, err
	}
	l, err := newRTAppLog(sim, dir)
	if err != nil {
		return engine.Results{}, err
	}
	if tf.path != "" {
		err = writeTrace(sim, tf)
	} else {
		sim.SetVisual(false)
		runWithProgress(sim, progress, time.Now)
	}
	if cerr := l.close(); err == nil {
		err = cerr
	}
	return sim.Results(), err
}

// writeTaskGroups prints each task group's cpu.stat (engine.TaskGroupResult).
func writeTaskGroups(b *strings.Builder, groups []engine.TaskGroupResult) {
	if len(groups) == 0 {
		return
	}
	b.WriteString("\ntask groups (cpu.stat over the run: usage counts the groups below; cpu.max quota/period in µs)\n")
	t := table{align: "lrrrrrrr"}
	t.add("group", "cpu.weight", "cpu.max", "usage ms", "CPUs", "periods", "throttled", "throttled ms")
	for _, g := range groups {
		quota := "max"
		if g.MaxUs > 0 {
			quota = fmt.Sprint(g.MaxUs)
		}
		t.add(g.Path, fmt.Sprint(g.Weight), quota+" "+fmt.Sprint(g.PeriodUs), num(g.CPUMs, false), num(g.CPUFrac, false),
			fmt.Sprint(g.NrPeriods), fmt.Sprint(g.NrThrottled), num(g.ThrottledMs, false))
	}
	t.write(b)
}

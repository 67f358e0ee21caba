package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	"schedplay/engine"
)

// cmdRun: schedplay run FILE [--set path=value ...] [--policy POLICY.star] [--format table|json|csv]
// [--trace out.json] [--checkpoint-at T --checkpoint-out PATH] [--from PATH] [--rtapp-log DIR]
// [--window FROM:TO] [--process NAME|PID ...]
func (a *app) cmdRun(args []string) error {
	fs := a.newFlagSet("run", "FILE [--set path=value ...] [--policy POLICY.star] [--format table|json|csv] [--trace out.json] [--checkpoint-at T --checkpoint-out PATH] [--from PATH] [--rtapp-log DIR] [--window FROM:TO] [--process NAME|PID ...] [--group PATH,weight=W,max=Q/P ...]")
	var sets stringList
	format := formatFlag("table")
	fs.Var(&sets, "set", "override a knob, `path=value` (repeatable; see schedplay knobs)")
	fs.Var(&format, "format", "output `format`: table, json or csv")
	var pf policyFlag
	fs.StringVar(&pf.path, "policy", "", "run a sched_ext policy written in Starlark from `file` (sched.policy=scx; docs/policies.md)")
	var tf traceFlags
	fs.StringVar(&tf.path, "trace", "", "also write a trace `file`: Perfetto's protobuf when it ends in .pftrace, .perfetto-trace or .pb (ftrace sched events, readable back with schedplay run), else Chrome trace-event JSON (Perfetto, chrome://tracing)")
	fs.Float64Var(&tf.fromMs, "trace-from-ms", -1, "start of the traced window in simulated `ms` (default: end of warm-up)")
	fs.Float64Var(&tf.lenMs, "trace-ms", 20, "length of the traced window in simulated `ms` (300-400 KB per ms at 32 vCPUs)")
	var cf checkpointFlags
	fs.StringVar(&cf.at, "checkpoint-at", "", "also save the run's state at simulated `time` T (with a unit: 12s, 250ms) to --checkpoint-out")
	fs.StringVar(&cf.out, "checkpoint-out", "", "the `file` --checkpoint-at writes")
	fs.StringVar(&cf.from, "from", "", "resume the run from a checkpoint `file` of the same scenario (and --set) instead of time zero")
	var logDir string
	fs.StringVar(&logDir, "rtapp-log", "", "also write rt-app's per-thread logs (rt-app-TASK-N.log, log_timing's columns) into `dir` (an rt-app workload)")
	var to traceOpts
	fs.StringVar(&to.window, "window", "", "replay only `FROM:TO`, ms from the first event, of a kernel trace (FILE a Perfetto, ftrace-text or trace.dat file)")
	fs.Var(&to.processes, "process", "replay only the kernel trace's process `NAME or PID` (repeatable); its wakeups by others become timed sleeps")
	var groups groupFlags
	fs.Var(&groups, "group", "set a task group's cpu.weight and cpu.max, `PATH[,weight=W][,max=QUOTA/PERIOD]` in µs (repeatable; sched.groups, for rt-app taskgroup keys under sched.policy=linux)")
	pos, err := parse(fs, args, a)
	if err != nil {
		return err
	}
	if err := wantArgs(fs, pos, "FILE"); err != nil {
		return err
	}
	src, err := a.load(pos[0])
	if err != nil {
		return err
	}
	if err := cf.check(fs, tf); err != nil {
		return err
	}
	if (to.window != "" || len(to.processes) > 0) && !looksTrace(src.data) {
		return &usageError{fs, fmt.Errorf("--window and --process select from a kernel trace, and %s is not one (Perfetto, ftrace text or trace.dat)", src.label)}
	}
	src.trace = to
	if pf.path != "" {
		// --policy replaces the scheduler: the scenario is checked under
		// it, so that what only a policy may take (an rt-app task's nice,
		// which a policy reads as p.weight) is not refused first.
		sets = append(sets, "sched.policy=scx")
	}
	sc, err := src.decodeToRun(sets...)
	if err != nil {
		return err
	}
	if err := pf.apply(&sc); err != nil {
		return err
	}
	if err := groups.apply(&sc); err != nil {
		return err
	}
	tuneGCForStarlark(sc) // one simulation in this process: its heap is small
	if logDir != "" {
		if cf.used() {
			return &usageError{fs, errors.New("--rtapp-log writes a whole run's log: it does not combine with --checkpoint-at or --from")}
		}
		res, err := runRTAppLogged(sc, logDir, tf, pf.compiler(), a.stderr)
		if err != nil {
			return err
		}
		return writeRun(a.stdout, string(format), sc, res)
	}
	if cf.used() {
		res, err := runCheckpointed(sc, src.label, cf, pf.compiler())
		if err != nil {
			return err
		}
		return writeRun(a.stdout, string(format), sc, res)
	}
	res, err := a.runOne(sc, tf, pf.compiler())
	if err != nil {
		return err
	}
	return writeRun(a.stdout, string(format), sc, res)
}

// runOne runs sc to its horizon. With a trace path the trace writer drives the
// simulation itself (it must drain the bounded event buffers as it goes) and the
// results are read from the finished simulation afterwards. compile compiles a
// sched_ext policy's source (sched.policy=scx), which a.simulate does not run.
func (a *app) runOne(sc engine.Scenario, tf traceFlags, compile engine.ScxCompiler) (engine.Results, error) {
	if tf.path == "" && sc.DurationMs > engine.MaxDurationMs {
		sim, err := engine.NewSimScx(sc, compile)
		if err != nil {
			return engine.Results{}, err
		}
		sim.SetVisual(false)
		runWithProgress(sim, a.stderr, time.Now)
		return sim.Results(), nil
	}
	if tf.path == "" {
		if sc.Sched.Policy == "scx" {
			return runScx(sc, compile)
		}
		return a.simulate(sc)
	}
	sim, err := engine.NewSimScx(sc, compile)
	if err != nil {
		return engine.Results{}, err
	}
	if err := writeTrace(sim, tf); err != nil {
		return engine.Results{}, err
	}
	return sim.Results(), nil
}

// writeRun prints one run's results in the chosen format.
func writeRun(w io.Writer, format string, sc engine.Scenario, r engine.Results) error {
	switch format {
	case "json":
		return writeJSON(w, r)
	case "csv":
		ms := metrics(r)
		head, vals := make([]string, len(ms)), make([]string, len(ms))
		for i, m := range ms {
			head[i], vals[i] = m.name, exact(m.value, m.isInt)
		}
		return writeCSV(w, [][]string{head, vals})
	}
	return writeRunTable(w, sc, r)
}

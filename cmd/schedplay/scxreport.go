package main

import (
	"fmt"
	"strings"

	"schedplay/engine"
)

// What a sched_ext policy's run says beyond its metrics: why the policy was
// ejected. The metric table has scx_exit.at_ns, a number; the reason is text
// (the callback, the policy's file:line:col, the message and the Starlark
// traceback), which the table of numbers leaves out, so it follows the table.

// writeScxExit says when and why the policy was ejected, the reason whole
// and indented under one heading line; nothing for a run whose policy was
// not ejected.
func writeScxExit(b *strings.Builder, x engine.ScxExit) {
	if !x.Ejected() {
		return
	}
	fmt.Fprintf(b, "\npolicy ejected at %s ms (scx_exit.at_ns %d); its tasks ran on the fair class from then on:\n",
		exact(float64(x.AtNs)/1e6, false), x.AtNs)
	for line := range strings.Lines(strings.TrimRight(x.Reason, "\n")) {
		b.WriteString("  " + line)
	}
	b.WriteByte('\n')
}

// writeScxWaiting lists the tasks the policy left runnable and not running
// at the end of the run (Results.ScxWaiting): a policy that parks them where
// nothing runs them shows here, with the DSQ, before its watchdog fires.
// The engine lists the longest-waiting few; the rest are counted.
func writeScxWaiting(b *strings.Builder, w engine.ScxWaiting, nowNs int64) {
	if w.Count == 0 {
		return
	}
	fmt.Fprintf(b, "\nstill waiting at the end: %d %s runnable and not running (scx_waiting), the longest-waiting first\n",
		w.Count, plural(w.Count, "task", "tasks"))
	t := table{align: "rlrrl"}
	t.add("pid", "name", "since ms", "waited ms", "where")
	for _, x := range w.Tasks {
		since, waited := "?", "?"
		if x.SinceNs >= 0 {
			since, waited = num(float64(x.SinceNs)/1e6, false), num(float64(nowNs-x.SinceNs)/1e6, false)
		}
		t.add(fmt.Sprint(x.PID), x.Name, since, waited, x.Where)
	}
	t.write(b)
	if rest := w.Count - len(w.Tasks); rest > 0 {
		fmt.Fprintf(b, "and %d more\n", rest)
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

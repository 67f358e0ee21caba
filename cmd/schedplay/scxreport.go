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

package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"schedplay/engine"
)

// A run longer than a browser tab's limit (engine.MaxDurationMs; the CLI
// runs up to engine.MaxCLIDurationMs) may take a while: it reports how far
// it has got on stderr, once a run has taken progressFirst of wall time,
// then every progressEvery on a terminal (one line, rewritten) and every
// progressEveryLog elsewhere (a line each). The simulation runs in slices of
// simulated time, which changes nothing in it (RunUntil is resumable).

const (
	progressFirst    = 2 * time.Second
	progressEvery    = 500 * time.Millisecond
	progressEveryLog = 10 * time.Second
	progressSlices   = 200
)

// runWithProgress runs sim to its end, reporting on w when the run is long.
// now is the wall clock (time.Now outside tests).
func runWithProgress(sim *engine.Sim, w io.Writer, now func() time.Time) {
	end := sim.EndNs()
	if end <= engine.MaxDurationMs*1_000_000 || w == nil {
		sim.RunUntil(end)
		return
	}
	tty := isTerminal(w)
	every := progressEveryLog
	if tty {
		every = progressEvery
	}
	start := now()
	next := start.Add(progressFirst)
	shown := false
	slice := max(end/progressSlices, 1)
	for !sim.Done() {
		sim.RunUntil(min(sim.NowNs()+slice, end))
		if t := now(); t.After(next) && !sim.Done() {
			line := fmt.Sprintf("schedplay: simulated %.0f of %.0f s (%d%%), %.0f s so far",
				float64(sim.NowNs())/1e9, float64(end)/1e9, sim.NowNs()*100/end, t.Sub(start).Seconds())
			if tty {
				fmt.Fprintf(w, "\r%s", line)
			} else {
				fmt.Fprintln(w, line)
			}
			shown, next = true, t.Add(every)
		}
	}
	if shown && tty {
		fmt.Fprintf(w, "\rschedplay: simulated %.0f s in %.0f s%20s\n", float64(sim.NowNs())/1e9, now().Sub(start).Seconds(), "")
	}
}

// isTerminal reports whether w is a character device (a terminal), where a
// line can be rewritten in place.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"schedplay/engine"
	"schedplay/trace"
)

// traceFlags selects the simulated-time window a --trace file covers. A whole run
// of a preset is gigabytes (about 300-400 KB per simulated ms on the 32-vCPU pull
// scenario, see package trace), so by default the trace covers 20 ms starting at
// the end of the warm-up, where the run is in its steady state.
type traceFlags struct {
	path          string
	fromMs, lenMs float64
}

// writeTrace runs sim, writing the trace window as Chrome trace-event JSON to
// o.path, then runs it to the horizon so the caller can read sim.Results().
func writeTrace(sim *engine.Sim, o traceFlags) (err error) {
	sc := sim.Scenario()
	from := int64(o.fromMs * 1e6)
	if o.fromMs < 0 {
		from = sc.WarmupMs * 1e6
	}
	if o.lenMs <= 0 {
		return fmt.Errorf("--trace-ms %g: need a positive window", o.lenMs)
	}
	if from >= sim.EndNs() {
		return fmt.Errorf("--trace-from-ms %g: the run ends at %d ms", float64(from)/1e6, sc.DurationMs)
	}
	until := min(from+int64(o.lenMs*1e6), sim.EndNs())
	f, err := os.Create(o.path)
	if err != nil {
		return fmt.Errorf("--trace: %w", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("--trace: %w", cerr)
		}
	}()
	w := bufio.NewWriterSize(f, 1<<16)
	write := trace.Write
	if perfettoPath(o.path) {
		write = trace.WritePerfetto
	}
	if _, err := write(w, sim, trace.WindowOptions(from, until)); err != nil {
		return fmt.Errorf("--trace: %w", err)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("--trace: %w", err)
	}
	sim.Run()
	return nil
}

// perfettoPath says whether a --trace file is to be Perfetto's protobuf (by
// the names Perfetto's own tools give one: .pftrace, .perfetto-trace, .pb)
// rather than Chrome's trace-event JSON.
func perfettoPath(path string) bool {
	for _, ext := range []string{".pftrace", ".perfetto-trace", ".pb"} {
		if strings.HasSuffix(path, ext) {
			return true
		}
	}
	return false
}

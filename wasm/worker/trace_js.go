package main

import (
	"bytes"
	"syscall/js"
	"time"

	"schedplay/playground/runner"
)

// progressEveryMs paces the progress messages of a trace job: often enough for
// a smooth bar, rarely enough to cost nothing.
const progressEveryMs = 100

// serveTrace is the worker's trace mode (static/engine-worker.js?job=trace): it
// takes one runner.TraceJob, re-runs the arm and posts {progress} now and then,
// then the trace as an ArrayBuffer (transferred, not copied), or {error}. The
// page ends the worker when it has the file, or to cancel.
func serveTrace(self js.Value, first []byte) {
	post := func(msg any) { self.Call("postMessage", msg) }
	job, err := runner.DecodeTraceJob(first)
	if err != nil {
		post(map[string]any{"error": err.Error()})
		return
	}
	var out bytes.Buffer
	last := time.Now()
	_, err = runner.WriteTrace(&out, job, policyCompiler(), func(done float64) {
		if time.Since(last) >= progressEveryMs*time.Millisecond {
			last = time.Now()
			post(map[string]any{"progress": done})
		}
	})
	if err != nil {
		post(map[string]any{"error": err.Error()})
		return
	}
	u8 := js.Global().Get("Uint8Array").New(out.Len())
	js.CopyBytesToJS(u8, out.Bytes())
	buf := u8.Get("buffer")
	self.Call("postMessage", buf, []any{buf})
}

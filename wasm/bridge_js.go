package main

import (
	"schedplay/playground/runner"
	"strconv"
	"syscall/js"
)

// registerBridge publishes window.schedplayCore, the page script's handle on the
// model. Every function takes and returns strings (JSON where structured), but
// traceJob, which hands over the job's bytes as a Uint8Array, and setTrace,
// which takes a trace's model as one; so the JavaScript
// side stays a plain DOM layer; static/app.js wraps it as the public
// window.schedplay API. problems are preset-loading problems to report.
func registerBridge(g *game, problems []string) {
	core := js.Global().Get("Object").New()
	fn := func(name string, f func(args []js.Value) any) {
		core.Set(name, js.FuncOf(func(_ js.Value, args []js.Value) any {
			g.mu.Lock()
			defer g.mu.Unlock()
			defer g.pace() // a command may start or stop a race
			return f(args)
		}))
	}
	str := func(args []js.Value, i int) string {
		if i < len(args) && args[i].Type() == js.TypeString {
			return args[i].String()
		}
		return ""
	}
	num := func(args []js.Value, i int) float64 {
		if i < len(args) && args[i].Type() == js.TypeNumber {
			return args[i].Float()
		}
		return 0
	}
	encoded := func(b []byte, err error) any {
		if err != nil {
			return `{"error":` + strconv.Quote(err.Error()) + `}`
		}
		return string(b)
	}
	m := g.m
	fn("load", func(args []js.Value) any {
		var shared []byte
		if len(args) > 1 && args[1].Type() == js.TypeString {
			shared = []byte(args[1].String())
		}
		m.Load(str(args, 0), shared)
		return nil
	})
	// snapshot(since) is the page's one read, once a frame: the sections newer
	// than since (playground/snapshot.go).
	fn("snapshot", func(args []js.Value) any { return encoded(m.SnapshotJSON(uint64(max(num(args, 0), 0)))) })
	fn("state", func([]js.Value) any { return encoded(m.StateJSON()) })
	fn("scenario", func([]js.Value) any { return encoded(m.ScenarioJSON()) })
	fn("fragment", func([]js.Value) any { return m.Fragment() })
	fn("shareFragment", func([]js.Value) any { return m.ShareFragment() })
	fn("embedCode", func(args []js.Value) any { return m.EmbedCode(str(args, 0)) })
	fn("set", func(args []js.Value) any { return m.Set(str(args, 0), str(args, 1)) })
	// setPolicy(source) runs source as the scenario's own sched_ext policy
	// from time zero (the editor's Run); "" takes the page's policy away.
	fn("setPolicy", func(args []js.Value) any { return m.SetPolicy(str(args, 0)) })
	// setWorkload(description) runs an rt-app description as the scenario's
	// workload from time zero (the workload editor's Run); "" takes it away.
	fn("setWorkload", func(args []js.Value) any { return m.SetWorkload(str(args, 0)) })
	// setTrace(model, name, allTimed) replays a trace's model (a Uint8Array
	// of its JSON, as the trace worker builds it) as the scenario from time
	// zero (the trace panel's Run); returns "" or why the engine refused it.
	fn("setTrace", func(args []js.Value) any {
		if len(args) == 0 || !args[0].InstanceOf(js.Global().Get("Uint8Array")) {
			return "setTrace: want the model as a Uint8Array"
		}
		b := make([]byte, args[0].Length())
		js.CopyBytesToGo(b, args[0])
		return m.SetTrace(b, str(args, 1), len(args) > 2 && args[2].Truthy())
	})
	// traceJob returns {file, job, policy} (job: the bytes to post to the worker
	// that runs it, static/trace.js; policy: that worker must be the policy
	// worker) or {error}.
	fn("traceJob", func(args []js.Value) any {
		job, file, err := m.TraceJob(int(num(args, 0)))
		if err != nil {
			return map[string]any{"error": err.Error()}
		}
		decoded, err := runner.DecodeTraceJob(job)
		if err != nil {
			return map[string]any{"error": err.Error()}
		}
		u8 := js.Global().Get("Uint8Array").New(len(job))
		js.CopyBytesToJS(u8, job)
		return map[string]any{"file": file, "job": u8, "policy": decoded.RunsPolicy()}
	})
	fn("click", func(args []js.Value) any { m.Click(num(args, 0), num(args, 1)); return nil })
	fn("cmd", func(args []js.Value) any {
		switch str(args, 0) {
		case "play":
			m.Play()
		case "pause":
			m.Pause()
		case "toggle":
			if m.Playing() {
				m.Pause()
			} else {
				m.Play()
			}
		case "step":
			m.Step()
		case "reset":
			m.Reset()
		case "sweep":
			m.StartSweep()
		case "runTo":
			m.RunTo(int64(num(args, 1)))
		case "jumpTo":
			return m.JumpTo(int64(num(args, 1)))
		case "prefetch":
			m.PrefetchSaved()
		case "antialias":
			g.ebitenAA = num(args, 1) != 0
		case "perfReset":
			m.ResetPerf()
		case "move":
			m.MoveSelection(int(num(args, 1)), int(num(args, 2)))
		case "select":
			m.Select(int(num(args, 1)), int(num(args, 2)), int(num(args, 3)))
		default:
			return "unknown command " + strconv.Quote(str(args, 0))
		}
		return ""
	})
	probs := js.Global().Get("Array").New()
	for _, p := range problems {
		probs.Call("push", p)
	}
	core.Set("presetProblems", probs)
	js.Global().Set("schedplayCore", core)
}

// bootArgs reads window.schedplayBoot = {fragment, shared, share}: share is
// the share page's ID ("" elsewhere).
func bootArgs() (frag string, shared []byte, share string) {
	b := js.Global().Get("schedplayBoot")
	if b.Type() != js.TypeObject {
		return "", nil, ""
	}
	if f := b.Get("fragment"); f.Type() == js.TypeString {
		frag = f.String()
	}
	if s := b.Get("shared"); s.Type() == js.TypeString {
		shared = []byte(s.String())
	}
	if s := b.Get("share"); s.Type() == js.TypeString {
		share = s.String()
	}
	return frag, shared, share
}

func logError(err error) {
	js.Global().Get("console").Call("error", "schedplay: "+err.Error())
}

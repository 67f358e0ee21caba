package main

import (
	"errors"
	"syscall/js"

	"schedplay/playground/runner"
)

// workerTransport posts command batches to the engine workers (static/
// engine-worker.js running wasm/worker), transferring each buffer.
type workerTransport struct {
	workers    []js.Value
	uint8Array js.Value
}

func (t *workerTransport) Workers() int { return len(t.workers) }

func (t *workerTransport) Post(w int, msg []byte) {
	u8 := t.uint8Array.New(len(msg))
	js.CopyBytesToJS(u8, msg)
	buf := u8.Get("buffer")
	t.workers[w].Call("postMessage", buf, []any{buf})
}

// startRunner starts the engine workers, one per compared arm when the browser
// reports at least three cores (else one for both: the page's own thread, which
// draws, needs a core too), and returns a runner over them and its name for
// state(). A browser that cannot start workers is told why
// over the stage: the page's binary carries no simulation code of its own (that
// would put the page over its size budget). With policy the workers are the
// policy worker (engine-worker.js?policy=1), which runs a scenario's own
// sched_ext policy. stop terminates the workers (when the page moves to the
// policy workers).
//
// Each answer a worker posts is also signalled on answered (without blocking:
// one signal stands for every answer not yet taken), so the page can take
// them between frames (game.service).
func startRunner(policy bool, answered chan<- struct{}) (run runner.Runner, name string, stop func()) {
	g := js.Global()
	n := 1
	if hc := g.Get("navigator").Get("hardwareConcurrency"); hc.Type() == js.TypeNumber && hc.Int() >= 3 {
		n = 2
	}
	t := &workerTransport{uint8Array: g.Get("Uint8Array")}
	workers, err := newWorkers(n, policy)
	if err != nil {
		logError(err)
		return &runner.Unavailable{Reason: "this page runs the simulator in Web Workers, and the browser would not start one (" + err.Error() + ")"}, "none", func() {}
	}
	t.workers = workers
	remote := runner.NewRemote(t)
	arrayBuffer := g.Get("ArrayBuffer")
	for i, w := range workers {
		w.Set("onmessage", js.FuncOf(func(_ js.Value, args []js.Value) any {
			data := args[0].Get("data")
			if !data.InstanceOf(arrayBuffer) {
				remote.Fail(i, data.Get("error").String())
				return nil
			}
			u8 := t.uint8Array.New(data)
			msg := make([]byte, u8.Length())
			js.CopyBytesToGo(msg, u8)
			remote.Deliver(i, msg)
			select {
			case answered <- struct{}{}:
			default:
			}
			return nil
		}))
		w.Set("onerror", js.FuncOf(func(_ js.Value, args []js.Value) any {
			remote.Fail(i, "the engine worker failed: "+args[0].Get("message").String())
			return nil
		}))
	}
	name = "1 worker"
	if n > 1 {
		name = "2 workers"
	}
	if policy {
		name += " (policy)"
	}
	return remote, name, func() {
		for _, w := range workers {
			w.Call("terminate")
		}
	}
}

// newWorkers starts n workers (policy workers with policy), or reports why the
// browser would not.
func newWorkers(n int, policy bool) (workers []js.Value, err error) {
	defer func() {
		if p := recover(); p != nil {
			err, _ = p.(error)
			if err == nil {
				err = errors.New("new Worker failed")
			}
		}
	}()
	ctor := js.Global().Get("Worker")
	if ctor.Type() != js.TypeFunction {
		return nil, errors.New("this browser has no Web Workers")
	}
	url := "/engine-worker.js"
	if policy {
		url += "?policy=1"
	}
	for range n {
		workers = append(workers, ctor.New(url))
	}
	return workers, nil
}

// Command worker is the playground's engine worker: the engine and a runner.Server
// and nothing else (no Ebiten), built with GOOS=js GOARCH=wasm into
// static/schedplay-worker.wasm and started by static/engine-worker.js in a
// dedicated Web Worker, one per compared arm where the machine has the cores.
// Started as engine-worker.js?job=trace it runs one trace job instead: it writes
// one Chrome trace (trace_js.go) and ends. In this repository "worker" means this
// program's Web Worker; the Cloudflare deployment (web/cloudflare) is always "the
// Cloudflare Worker". Built with -tags scx it is the policy worker
// (static/schedplay-policy-worker.wasm, policy_js.go): the same program with the
// Starlark binding, which runs a scenario's own sched_ext policy.
//
// It only moves bytes: messages from the page go to Server.Handle; between them
// it runs the Server for workBudgetMs at a time and posts the encoded answers
// back (their buffers transferred, not copied). After each budget it yields to
// the worker's event loop, so a Cancel from the page is seen within one budget
// however dense the scenario.
package main

import (
	"sync"
	"syscall/js"
	"time"

	"schedplay/playground/runner"
)

// workBudgetMs is how long the worker runs the engine before it looks at its
// messages again: long enough that yielding costs little, short enough that a
// pause is felt at once.
const workBudgetMs = 8

// inbox holds the page's messages until the work loop takes them.
type inbox struct {
	mu   sync.Mutex
	msgs [][]byte
	wake chan struct{} // signalled (never blocking) when a message arrives
}

func (in *inbox) put(msg []byte) {
	in.mu.Lock()
	in.msgs = append(in.msgs, msg)
	in.mu.Unlock()
	select {
	case in.wake <- struct{}{}:
	default:
	}
}

func (in *inbox) take() [][]byte {
	in.mu.Lock()
	defer in.mu.Unlock()
	msgs := in.msgs
	in.msgs = nil
	return msgs
}

func main() {
	start := time.Now()
	// Go's monotonic clock under js/wasm is performance.now().
	clock := func() float64 { return float64(time.Since(start).Nanoseconds()) / 1e6 }
	srv := runner.NewServer(clock)
	srv.SetCompiler(policyCompiler())
	self := js.Global()
	uint8Array := self.Get("Uint8Array")
	console := self.Get("console")

	in := &inbox{wake: make(chan struct{}, 1)}
	receive := func(data js.Value) {
		u8 := uint8Array.New(data)
		msg := make([]byte, u8.Length())
		js.CopyBytesToGo(msg, u8)
		in.put(msg)
	}
	// engine-worker.js queued what arrived while this program was loading.
	if early := self.Get("schedplayQueue"); early.Type() == js.TypeObject {
		for i := range early.Length() {
			receive(early.Index(i))
		}
	}
	self.Set("onmessage", js.FuncOf(func(_ js.Value, args []js.Value) any {
		receive(args[0].Get("data"))
		return nil
	}))
	if self.Get("schedplayJob").String() == "trace" {
		<-in.wake // a worker started for a trace job gets one message: the job
		serveTrace(self, in.take()[0])
		return
	}

	// Yielding through a MessageChannel lets the worker's event loop deliver the
	// page's messages without the 4 ms clamp of nested setTimeout calls.
	yielded := make(chan struct{}, 1)
	channel := self.Get("MessageChannel").New()
	channel.Get("port1").Set("onmessage", js.FuncOf(func(js.Value, []js.Value) any {
		select {
		case yielded <- struct{}{}:
		default:
		}
		return nil
	}))
	port2 := channel.Get("port2")
	yield := func() {
		port2.Call("postMessage", nil)
		<-yielded
	}
	post := func(msg []byte) {
		u8 := uint8Array.New(len(msg))
		js.CopyBytesToJS(u8, msg)
		buf := u8.Get("buffer")
		self.Call("postMessage", buf, []any{buf})
	}

	// Where the worker's wall time goes, for TestMeasureSpeed (which reads
	// self.schedplayTime through DevTools): running the engine, waiting for
	// the page's next request, and yielding to the event loop.
	stats := js.Global().Get("Object").New()
	self.Set("schedplayTime", stats)
	var idleMs, yieldMs, workMs float64
	for {
		stats.Set("work_ms", workMs)
		stats.Set("idle_ms", idleMs)
		stats.Set("yield_ms", yieldMs)
		for _, msg := range in.take() {
			if err := srv.Handle(msg); err != nil {
				console.Call("error", "schedplay engine worker: "+err.Error())
			}
		}
		t0 := clock()
		more := srv.Work(clock() + workBudgetMs)
		workMs += clock() - t0
		if out := srv.Flush(); out != nil {
			post(out)
		}
		t1 := clock()
		if more {
			yield()
			yieldMs += clock() - t1
		} else {
			<-in.wake
			idleMs += clock() - t1
		}
	}
}

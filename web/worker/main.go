//go:build js && wasm

package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"runtime/debug"
	"syscall/js"

	"schedplay/web"

	"github.com/syumai/workers"
	"github.com/syumai/workers/cloudflare"
)

func main() {
	workers.ServeNonBlock(&worker{log: slog.New(slog.NewTextHandler(os.Stderr, nil))})
	workers.Ready()
	// main never returns: entry.mjs keeps this instance for every request of its
	// isolate, and a Go program ends with main. (workers.Serve returns once the
	// first response is done, which suits only an instance per request.)
	select {}
}

// worker serves each request with a web.Server built from that request's
// bindings. entry.mjs hands the running instance each request's env just before
// calling in, and it stays this request's only while Go runs without waiting on
// JavaScript: Go runs every goroutine it can before a call from JavaScript
// returns (runtime/lock_js.go, handleEvent), and the shim starts ServeHTTP on
// that path, so the bindings are read before any other request can replace env.
// Building the Server is cheap (16 µs natively); reading bindings later (after a
// KV call) could see another request's env.
type worker struct {
	log *slog.Logger // never nil
}

func (wk *worker) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// A panic would end the Go program, and with it every request in flight on
	// this isolate's instance; answer this one with a 500 instead, as net/http
	// does for `schedplay serve`.
	defer func() {
		if v := recover(); v != nil {
			wk.log.Error("worker: panic", "method", r.Method, "path", r.URL.Path, "panic", v, "stack", string(debug.Stack()))
			http.Error(w, "internal error", http.StatusInternalServerError)
		}
	}()
	srv, err := wk.server()
	if err != nil {
		wk.log.Error("worker: misconfigured", "err", err)
		http.Error(w, "worker misconfigured", http.StatusInternalServerError)
		return
	}
	srv.ServeHTTP(w, r)
}

// server wires the share handler to the current request's bindings.
func (wk *worker) server() (*web.Server, error) {
	store, err := web.NewKVStore(kvBinding)
	if err != nil {
		return nil, err
	}
	assets := cloudflare.GetBinding(assetsBinding)
	if assets.IsUndefined() {
		return nil, fmt.Errorf("binding %s is undefined", assetsBinding)
	}
	srv, err := web.NewServer(web.WithStore(store), web.WithLogger(wk.log), web.WithPage(assetsPage(assets)),
		web.WithPublicURL(cloudflare.Getenv(publicURLVar)))
	if err != nil { // every other option is set and valid, so it is PUBLIC_URL
		return nil, fmt.Errorf("%s: %w", publicURLVar, err)
	}
	return srv, nil
}

// assetsPage fetches the playground page from the Workers assets binding, so the
// Worker serves exactly the index.html that / serves. It calls the binding's
// fetch through syscall/js rather than the shim's http.Client adapter: that
// adapter links net/http's client and HTTP/2 code, which grew the Worker's wasm
// from 7.6 to 12.2 MiB.
func assetsPage(assets js.Value) web.PageFunc {
	return func(context.Context) ([]byte, error) {
		// The assets binding ignores the host; only the path selects the file.
		resp, err := await(assets.Call("fetch", "https://assets.invalid/"))
		if err != nil {
			return nil, fmt.Errorf("assets: GET /: %w", err)
		}
		if status := resp.Get("status").Int(); status != http.StatusOK {
			return nil, fmt.Errorf("assets: GET / answered %d", status)
		}
		text, err := await(resp.Call("text"))
		if err != nil {
			return nil, fmt.Errorf("assets: reading /: %w", err)
		}
		return []byte(text.String()), nil
	}
}

// await waits for a JavaScript promise to settle. It does not give up early: the
// callbacks must outlive the promise, and the runtime bounds each request anyway.
func await(promise js.Value) (js.Value, error) {
	type result struct {
		v   js.Value
		err error
	}
	done := make(chan result, 1)
	onFulfilled := js.FuncOf(func(_ js.Value, args []js.Value) any {
		done <- result{v: args[0]}
		return nil
	})
	defer onFulfilled.Release()
	onRejected := js.FuncOf(func(_ js.Value, args []js.Value) any {
		done <- result{err: errors.New(js.Global().Get("String").Invoke(args[0]).String())}
		return nil
	})
	defer onRejected.Release()
	promise.Call("then", onFulfilled, onRejected)
	r := <-done
	return r.v, r.err
}

//go:build js && wasm

package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"syscall/js"

	"schedplay/web"

	"github.com/syumai/workers"
	"github.com/syumai/workers/cloudflare"
)

// Binding names, as declared in wrangler.toml.
const (
	kvBinding     = "SHARES"
	assetsBinding = "ASSETS"
)

func main() {
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	store, err := web.NewKVStore(kvBinding)
	if err != nil {
		workers.Serve(failing(logger, err))
		return
	}
	srv, err := web.NewServer(web.WithStore(store), web.WithLogger(logger), web.WithPage(assetsPage))
	if err != nil {
		workers.Serve(failing(logger, err))
		return
	}
	workers.Serve(srv)
}

// assetsPage fetches the playground page from the Workers assets binding, so the
// Worker serves exactly the index.html that / serves. It calls the binding's
// fetch through syscall/js rather than the shim's http.Client adapter: that
// adapter links net/http's client and HTTP/2 code, which grew the Worker's wasm
// from 7.6 to 12.2 MiB (and every request instantiates the module anew).
func assetsPage(context.Context) ([]byte, error) {
	assets := cloudflare.GetBinding(assetsBinding)
	if assets.IsUndefined() {
		return nil, fmt.Errorf("binding %s is undefined", assetsBinding)
	}
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

// failing answers every request with a 500 when the Worker is misconfigured (a
// missing binding), logging why, rather than crashing the isolate.
func failing(logger *slog.Logger, err error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		logger.Error("worker: misconfigured", "err", err)
		http.Error(w, "worker misconfigured", http.StatusInternalServerError)
	})
}

//go:build js && wasm

package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"runtime/debug"
	"syscall/js"

	"schedplay/scxstar"
	"schedplay/view"
	"schedplay/web"
	"schedplay/web/internal/jsawait"

	"github.com/syumai/workers"
	"github.com/syumai/workers/cloudflare"
)

func main() {
	workers.ServeNonBlock(&handler{log: slog.New(slog.NewTextHandler(os.Stderr, nil))})
	workers.Ready()
	// main never returns: entry.mjs keeps this instance for every request of its
	// isolate, and a Go program ends with main. (workers.Serve returns once the
	// first response is done, which suits only an instance per request.)
	select {}
}

// handler serves each request with a web.Server built from that request's
// bindings. entry.mjs hands the running instance each request's env just before
// calling in, and it stays this request's only while Go runs without waiting on
// JavaScript: Go runs every goroutine it can before a call from JavaScript
// returns (runtime/lock_js.go, handleEvent), and the shim starts ServeHTTP on
// that path, so the bindings are read before any other request can replace env.
// Building the Server is cheap (16 µs natively); reading bindings later (after a
// KV call) could see another request's env.
type handler struct {
	log *slog.Logger // never nil
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// A panic would end the Go program, and with it every request in flight on
	// this isolate's instance; answer this one with a 500 instead, as net/http
	// does for `schedplay serve`.
	defer func() {
		if v := recover(); v != nil {
			h.log.Error("cloudflare: panic", "method", r.Method, "path", r.URL.Path, "panic", v, "stack", string(debug.Stack()))
			http.Error(w, "internal error", http.StatusInternalServerError)
		}
	}()
	srv, err := h.server()
	if err != nil {
		h.log.Error("cloudflare: misconfigured", "err", err)
		http.Error(w, "server misconfigured", http.StatusInternalServerError)
		return
	}
	srv.ServeHTTP(w, r)
}

// server wires the share handler to the current request's bindings.
func (h *handler) server() (*web.Server, error) {
	store, err := web.NewKVStore(kvBinding)
	if err != nil {
		return nil, err
	}
	assets := cloudflare.GetBinding(assetsBinding)
	if assets.IsUndefined() {
		return nil, fmt.Errorf("binding %s is undefined", assetsBinding)
	}
	budget, err := previewBudget(cloudflare.Getenv(previewBudgetVar))
	if err != nil {
		return nil, err
	}
	// The policy compiler, as `schedplay serve` has it: a share that carries
	// its own sched_ext policy is previewed with it, within the same budget
	// (its Starlark steps count, preview.PolicyStepsPerEvent), and one that
	// does not compile gets a card that says so.
	srv, err := web.NewServer(web.WithStore(store), web.WithLogger(h.log), web.WithPage(assetsPage(assets)),
		web.WithPreviewBudget(budget), web.WithPublicURL(cloudflare.Getenv(publicURLVar)),
		web.WithCompiler(scxstar.CompilerNamed(view.PolicyFile)))
	if err != nil { // every other option is set and valid, so it is PUBLIC_URL
		return nil, fmt.Errorf("%s: %w", publicURLVar, err)
	}
	return srv, nil
}

// assetsPage fetches the playground page from the Workers assets binding, so the
// Cloudflare Worker serves exactly the index.html that / serves. It calls the
// binding's fetch through syscall/js rather than the shim's http.Client adapter:
// that adapter links net/http's client and HTTP/2 code, which grew this program's
// wasm from 7.6 to 12.2 MiB.
func assetsPage(assets js.Value) web.PageFunc {
	return func(context.Context) ([]byte, error) {
		// The assets binding ignores the host; only the path selects the file.
		resp, err := jsawait.Await(assets.Call("fetch", "https://assets.invalid/"))
		if err != nil {
			return nil, fmt.Errorf("assets: GET /: %w", err)
		}
		if status := resp.Get("status").Int(); status != http.StatusOK {
			return nil, fmt.Errorf("assets: GET / answered %d", status)
		}
		text, err := jsawait.Await(resp.Call("text"))
		if err != nil {
			return nil, fmt.Errorf("assets: reading /: %w", err)
		}
		return []byte(text.String()), nil
	}
}

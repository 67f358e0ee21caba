//go:build js && wasm

// Package jsawait waits for JavaScript promises from Go in the Workers runtime. The
// KV store (package web) and the Cloudflare Worker's assets binding
// (web/cloudflare) both call JavaScript APIs directly through syscall/js rather
// than through the syumai/workers adapters: the KV adapter reads values only as
// text (a PNG card does not survive that), and the fetch adapter links net/http's
// client.
package jsawait

import (
	"errors"
	"syscall/js"
)

// Await waits for a JavaScript promise to settle. It does not give up early: the
// callbacks must outlive the promise. The Go instance outlives requests (one per
// isolate), so a promise that never settles would hold its goroutine for the
// isolate's life; the ones awaited here (KV reads and writes, fetches of the
// bundled assets) are settled by the Workers runtime.
func Await(promise js.Value) (js.Value, error) {
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

// Command tracedecoder is the playground's trace worker: the trace decoders
// (kerneltrace, through playground/tracefile) and nothing else, built with
// GOOS=js GOARCH=wasm into static/schedplay-trace-worker.wasm and started by
// static/trace-worker.js in a Web Worker when the page's trace panel opens a
// file, so neither the page's binary nor the engine workers carry the
// decoders.
//
// It only moves bytes. The page posts
//
//	{op: "open", name, data: ArrayBuffer}  -> {op: "opened", summary: JSON} (tracefile.Summary)
//	{op: "model", choice: JSON}            -> {op: "model", model: Uint8Array} (kerneltrace.Model as JSON)
//
// and any failure comes back as {op, error}: a corrupt, empty or too large
// file, a window or filter that leaves nothing to replay. A panic is caught
// and reported the same way, so the worker answers every message.
package main

import (
	"fmt"
	"syscall/js"

	"github.com/go-json-experiment/json"

	"schedplay/playground/tracefile"
)

func main() {
	self := js.Global()
	msgs := make(chan js.Value, 4)
	// trace-worker.js queued what arrived while this program was loading.
	if early := self.Get("schedplayQueue"); early.Type() == js.TypeObject {
		for i := range early.Length() {
			msgs <- early.Index(i)
		}
	}
	self.Set("onmessage", js.FuncOf(func(_ js.Value, args []js.Value) any {
		msgs <- args[0].Get("data")
		return nil
	}))
	var file *tracefile.File
	for msg := range msgs {
		op := msg.Get("op").String()
		reply := self.Get("Object").New()
		reply.Set("op", op)
		if err := handle(op, msg, reply, &file); err != nil {
			reply.Set("error", err.Error())
		}
		self.Call("postMessage", reply)
	}
}

// handle answers one message into reply.
func handle(op string, msg, reply js.Value, file **tracefile.File) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the trace worker failed: %v", p)
		}
	}()
	switch op {
	case "open":
		*file = nil // the last file's memory goes before the next is read
		u8 := js.Global().Get("Uint8Array").New(msg.Get("data"))
		data := make([]byte, u8.Length())
		js.CopyBytesToGo(data, u8)
		f, err := tracefile.Open(msg.Get("name").String(), data)
		if err != nil {
			return err
		}
		sum, err := json.Marshal(f.Summary())
		if err != nil {
			return err
		}
		*file = f
		reply.Set("summary", string(sum))
	case "model":
		if *file == nil {
			return fmt.Errorf("no trace is open")
		}
		var c tracefile.Choice
		if err := json.Unmarshal([]byte(msg.Get("choice").String()), &c); err != nil {
			return fmt.Errorf("the panel's choice: %w", err)
		}
		m, err := (*file).Model(c)
		if err != nil {
			return err
		}
		b, err := json.Marshal(m)
		if err != nil {
			return err
		}
		u8 := js.Global().Get("Uint8Array").New(len(b))
		js.CopyBytesToJS(u8, b)
		reply.Set("model", u8)
	default:
		return fmt.Errorf("unknown message %q", op)
	}
	return nil
}

//go:build js && wasm

// The KV binding exists only inside the Workers runtime (syscall/js), so this file
// builds only for js/wasm; host builds and tests use MemStore and BoltStore.

package web

import (
	"context"
	"errors"
	"fmt"
	"syscall/js"

	"github.com/syumai/workers/cloudflare"

	"schedplay/web/internal/jsawait"
)

// KVStore is a Store in a Cloudflare Workers KV namespace.
//
// Values go in and out as bytes (ArrayBuffer), not text: a share's card is a PNG,
// which a round trip through a JavaScript string would corrupt. Values written
// as text by earlier versions read back as their UTF-8 bytes, which is what was
// stored. The KV binding is called directly because syumai/workers' kv package
// reads values only as text or as a stream it cannot tell missing from empty.
//
// KV has no compare-and-set, so Put is read-then-write. Two different scenarios
// racing for the same 66-bit ID prefix within KV's propagation window could
// overwrite each other; the odds are negligible, and two writers of the same ID
// otherwise always write identical bytes.
type KVStore struct {
	ns js.Value // the KVNamespace binding
}

// NewKVStore opens the KV namespace bound to the Cloudflare Worker as binding
// (wrangler.toml's kv_namespaces binding name). It must run inside a request, when
// the runtime context that holds the bindings exists.
func NewKVStore(binding string) (*KVStore, error) {
	ns := cloudflare.GetBinding(binding)
	if ns.IsUndefined() || ns.IsNull() {
		return nil, fmt.Errorf("kv namespace %s: the binding is undefined", binding)
	}
	return &KVStore{ns: ns}, nil
}

// Put implements Store.
func (s *KVStore) Put(ctx context.Context, id string, data []byte) error {
	old, err := s.Get(ctx, id)
	switch {
	case err == nil && string(old) == string(data):
		return nil
	case err == nil:
		return ErrConflict
	case !errors.Is(err, ErrNotFound):
		return err
	}
	buf := js.Global().Get("Uint8Array").New(len(data))
	js.CopyBytesToJS(buf, data)
	if _, err := jsawait.Await(s.ns.Call("put", id, buf)); err != nil {
		return fmt.Errorf("kv put %s: %w", id, err)
	}
	return nil
}

// Get implements Store.
func (s *KVStore) Get(_ context.Context, id string) ([]byte, error) {
	v, err := jsawait.Await(s.ns.Call("get", id, map[string]any{"type": "arrayBuffer"}))
	if err != nil {
		return nil, fmt.Errorf("kv get %s: %w", id, err)
	}
	if v.IsNull() || v.IsUndefined() {
		return nil, ErrNotFound
	}
	buf := js.Global().Get("Uint8Array").New(v)
	out := make([]byte, buf.Length())
	js.CopyBytesToGo(out, buf)
	return out, nil
}

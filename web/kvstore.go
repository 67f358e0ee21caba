//go:build js && wasm

// The KV binding exists only inside the Workers runtime (syscall/js), so this file
// builds only for js/wasm; host builds and tests use MemStore and BoltStore.

package web

import (
	"context"
	"errors"
	"fmt"

	"github.com/syumai/workers/cloudflare/kv"
)

// kvMissing is what kv.Namespace.GetString returns for a missing key: the shim
// stringifies JavaScript's null. Canonical scenario JSON always starts with '{',
// so it can never be a stored value.
const kvMissing = "<null>"

// KVStore is a Store in a Cloudflare Workers KV namespace.
//
// KV has no compare-and-set, so Put is read-then-write. Two different scenarios
// racing for the same 66-bit ID prefix within KV's propagation window could
// overwrite each other; the odds are negligible, and two writers of the same ID
// otherwise always write identical bytes.
type KVStore struct {
	ns *kv.Namespace // never nil
}

// NewKVStore opens the KV namespace bound to the Worker as binding (wrangler.toml's
// kv_namespaces binding name). It must run inside a request, when the runtime
// context that holds the bindings exists.
func NewKVStore(binding string) (*KVStore, error) {
	ns, err := kv.NewNamespace(binding)
	if err != nil {
		return nil, fmt.Errorf("kv namespace %s: %w", binding, err)
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
	if err := s.ns.PutString(id, string(data), nil); err != nil {
		return fmt.Errorf("kv put %s: %w", id, err)
	}
	return nil
}

// Get implements Store.
func (s *KVStore) Get(_ context.Context, id string) ([]byte, error) {
	v, err := s.ns.GetString(id, nil)
	if err != nil {
		return nil, fmt.Errorf("kv get %s: %w", id, err)
	}
	if v == kvMissing {
		return nil, ErrNotFound
	}
	return []byte(v), nil
}

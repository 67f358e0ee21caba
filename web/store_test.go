package web

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"testing"
)

// storeKinds are the Store implementations that run on the host; every one must
// pass storeCases. (KVStore runs only inside the Cloudflare Worker;
// web/cloudflare's integration test covers it through the API.)
func storeKinds() []struct {
	name string
	open func(t *testing.T) Store
} {
	return []struct {
		name string
		open func(t *testing.T) Store
	}{
		{"memory", func(*testing.T) Store { return NewMemStore() }},
		{"bbolt", func(t *testing.T) Store { return openTestBolt(t, filepath.Join(t.TempDir(), "shares.db")) }},
	}
}

func openTestBolt(t testing.TB, path string) *BoltStore {
	t.Helper()
	st, err := OpenBolt(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func TestStores(t *testing.T) {
	ctx := context.Background()
	a, b := []byte(`{"a":1}`), []byte(`{"b":2}`)
	cases := []struct {
		desc string
		run  func(t *testing.T, st Store)
	}{
		{"get of an unknown ID is ErrNotFound", func(t *testing.T, st Store) {
			if _, err := st.Get(ctx, "nothing-here"); !errors.Is(err, ErrNotFound) {
				t.Fatalf("Get = %v, want ErrNotFound", err)
			}
		}},
		{"put then get returns the bytes", func(t *testing.T, st Store) {
			mustPut(t, st, "id1", a)
			mustGet(t, st, "id1", a)
		}},
		{"put of the same bytes again is a no-op", func(t *testing.T, st Store) {
			mustPut(t, st, "id1", a)
			mustPut(t, st, "id1", bytes.Clone(a))
			mustGet(t, st, "id1", a)
		}},
		{"put of other bytes under a taken ID is ErrConflict and keeps the first", func(t *testing.T, st Store) {
			mustPut(t, st, "id1", a)
			if err := st.Put(ctx, "id1", b); !errors.Is(err, ErrConflict) {
				t.Fatalf("Put over different bytes = %v, want ErrConflict", err)
			}
			mustGet(t, st, "id1", a)
		}},
		{"IDs are independent", func(t *testing.T, st Store) {
			mustPut(t, st, "id1", a)
			mustPut(t, st, "id2", b)
			mustGet(t, st, "id1", a)
			mustGet(t, st, "id2", b)
			if _, err := st.Get(ctx, "id"); !errors.Is(err, ErrNotFound) {
				t.Fatalf("a prefix of a stored ID: Get = %v, want ErrNotFound", err)
			}
		}},
		{"put copies its argument", func(t *testing.T, st Store) {
			buf := bytes.Clone(a)
			mustPut(t, st, "id1", buf)
			buf[0] = 'X'
			mustGet(t, st, "id1", a)
		}},
		{"get returns a copy the caller owns", func(t *testing.T, st Store) {
			mustPut(t, st, "id1", a)
			got, err := st.Get(ctx, "id1")
			if err != nil {
				t.Fatal(err)
			}
			got[0] = 'X'
			mustGet(t, st, "id1", a)
		}},
	}
	for _, kind := range storeKinds() {
		for _, tc := range cases {
			t.Run(kind.name+"/"+tc.desc, func(t *testing.T) { tc.run(t, kind.open(t)) })
		}
	}
}

func mustPut(t *testing.T, st Store, id string, data []byte) {
	t.Helper()
	if err := st.Put(context.Background(), id, data); err != nil {
		t.Fatalf("Put(%s) = %v", id, err)
	}
}

func mustGet(t *testing.T, st Store, id string, want []byte) {
	t.Helper()
	got, err := st.Get(context.Background(), id)
	if err != nil {
		t.Fatalf("Get(%s) = %v", id, err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("Get(%s) = %s, want %s", id, got, want)
	}
}

func TestBoltPersists(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shares.db")
	st, err := OpenBolt(path)
	if err != nil {
		t.Fatal(err)
	}
	mustPut(t, st, "id1", []byte("kept"))
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	mustGet(t, openTestBolt(t, path), "id1", []byte("kept"))
}

func TestBoltRefusesSecondOpener(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shares.db")
	openTestBolt(t, path)
	if st, err := OpenBolt(path); err == nil {
		st.Close()
		t.Fatal("a second OpenBolt of a held file succeeded")
	}
}

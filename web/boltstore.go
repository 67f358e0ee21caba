//go:build !(js && wasm)

// bbolt locks its file with flock and maps it with mmap, neither of which exists
// for js/wasm; the Cloudflare Worker uses KVStore instead.

package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// boltBucket names the one bucket of the file: ID -> canonical scenario JSON.
const boltBucket = "shares"

// BoltStore is a Store in one bbolt file, the default of `schedplay serve`.
//
// Each new share is its own write transaction (one fsync, about a millisecond
// here). bbolt's Batch would fold concurrent writes into one fsync, but it holds
// every write for up to its 10 ms MaxBatchDelay, which made a lone share ten times
// slower; a local server mostly sees lone shares.
type BoltStore struct {
	db *bolt.DB // never nil until Close
}

// OpenBolt opens (creating if needed) the bbolt file at path. Only one process may
// hold the file; a second one fails after a second instead of waiting forever.
func OpenBolt(path string) (*BoltStore, error) {
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		if errors.Is(err, bolt.ErrTimeout) {
			return nil, fmt.Errorf("open %s: another process holds it (is a schedplay serve already running?)", path)
		}
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		_, err := tx.CreateBucketIfNotExists([]byte(boltBucket))
		return err
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return &BoltStore{db: db}, nil
}

// Close releases the file.
func (s *BoltStore) Close() error { return s.db.Close() }

// Put implements Store. Most shares of a popular scenario find it stored, so
// Put first looks in a read-only transaction (no lock on the writer, no fsync)
// and writes only when the ID is free, checking again inside the write.
func (s *BoltStore) Put(ctx context.Context, id string, data []byte) error {
	switch old, err := s.Get(ctx, id); {
	case err == nil && bytes.Equal(old, data):
		return nil
	case err == nil:
		return ErrConflict
	case !errors.Is(err, ErrNotFound):
		return err
	}
	key := []byte(id)
	var conflict bool
	err := s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(boltBucket))
		if old := b.Get(key); old != nil { // written since the look above
			conflict = !bytes.Equal(old, data)
			return nil
		}
		return b.Put(key, bytes.Clone(data))
	})
	if err != nil {
		return fmt.Errorf("bolt put %s: %w", id, err)
	}
	if conflict {
		return ErrConflict
	}
	return nil
}

// Get implements Store.
func (s *BoltStore) Get(_ context.Context, id string) ([]byte, error) {
	var out []byte
	err := s.db.View(func(tx *bolt.Tx) error {
		// Bytes from Get live only as long as the transaction: copy them out.
		if v := tx.Bucket([]byte(boltBucket)).Get([]byte(id)); v != nil {
			out = bytes.Clone(v)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("bolt get %s: %w", id, err)
	}
	if out == nil {
		return nil, ErrNotFound
	}
	return out, nil
}

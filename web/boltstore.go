//go:build !(js && wasm)

// bbolt locks its file with flock and maps it with mmap, neither of which exists
// for js/wasm; the Worker uses KVStore instead.

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
// Writes go through bbolt's Batch, which folds concurrent shares into one
// transaction and so into one fsync.
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

// Put implements Store.
func (s *BoltStore) Put(_ context.Context, id string, data []byte) error {
	key := []byte(id)
	var conflict bool
	// Batch may run this function more than once (it retries a failed batch one
	// call at a time), so it reports a conflict through conflict, set afresh on each
	// run, and never fails the shared transaction for it.
	err := s.db.Batch(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(boltBucket))
		old := b.Get(key)
		conflict = old != nil && !bytes.Equal(old, data)
		if old != nil {
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

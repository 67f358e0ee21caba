package web

import (
	"bytes"
	"context"
	"errors"
	"sync"
)

// ErrNotFound is returned by Store.Get for an ID nothing was stored under.
// Handlers answer it with 404.
var ErrNotFound = errors.New("web: share not found")

// ErrConflict is returned by Store.Put when the ID already holds different bytes:
// two canonical scenarios whose hash prefixes collide. The share handler then
// retries with a longer prefix of the same hash (see putShare).
var ErrConflict = errors.New("web: share ID holds a different scenario")

// Store keeps shared scenarios: canonical scenario JSON keyed by its content ID,
// and beside each the share's link preview and card under keys derived from the
// ID (previewKey, cardKey; never valid IDs). Values are bytes: the card is a PNG.
//
// Put is write-once: storing the same bytes under an ID again succeeds and changes
// nothing; storing different bytes under a taken ID fails with ErrConflict and
// keeps the old bytes. Get returns ErrNotFound for an unknown ID. Implementations
// must be safe for concurrent use, must copy data on Put (the caller may reuse its
// buffer) and must return bytes the caller owns.
type Store interface {
	Put(ctx context.Context, id string, data []byte) error
	Get(ctx context.Context, id string) ([]byte, error)
}

// MemStore is a Store in a map. It forgets everything on exit, so it is meant for
// tests and throwaway servers.
type MemStore struct {
	mu sync.RWMutex
	m  map[string][]byte // mu guards m; values are private copies
}

// NewMemStore returns an empty MemStore.
func NewMemStore() *MemStore { return &MemStore{m: map[string][]byte{}} }

// Put implements Store.
func (s *MemStore) Put(_ context.Context, id string, data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if old, ok := s.m[id]; ok {
		if bytes.Equal(old, data) {
			return nil
		}
		return ErrConflict
	}
	s.m[id] = bytes.Clone(data)
	return nil
}

// Get implements Store.
func (s *MemStore) Get(_ context.Context, id string) ([]byte, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	v, ok := s.m[id]
	if !ok {
		return nil, ErrNotFound
	}
	return bytes.Clone(v), nil
}

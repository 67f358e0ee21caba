package web

import (
	"bytes"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"

	bolt "go.etcd.io/bbolt"

	"schedplay/web/internal/sharetest"
)

// TestConcurrentShares sends 200 shares of 50 distinct scenarios at once to a
// bbolt-backed server over loopback, then checks that every scenario got one ID,
// every ID reads back the canonical scenario, nothing is lost or extra, and that
// all of it survives closing and reopening the data directory. In -short mode it
// sends 48 shares of 12 (each distinct share computes a preview and a card, most
// of the test's time).
func TestConcurrentShares(t *testing.T) {
	distinct, total := 50, 200
	if testing.Short() {
		distinct, total = 12, 48
	}
	path := filepath.Join(t.TempDir(), "shares.db")
	st, err := OpenBolt(path)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(newTestServer(t, st))

	ids := make([]string, total)
	var wg sync.WaitGroup
	for i := range total {
		wg.Go(func() {
			r, err := sharetest.TryShare(ts.Client(), ts.URL, sharetest.Scenario(i%distinct))
			if err != nil {
				t.Error(err)
			}
			ids[i] = r.ID
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	want := map[string][]byte{} // ID -> canonical scenario
	for i, id := range ids {
		n := i % distinct
		if ids[n] != id {
			t.Errorf("scenario %d got IDs %q and %q", n, ids[n], id)
		}
		want[id] = sharetest.Canonical(t, sharetest.Scenario(n))
	}
	if len(want) != distinct {
		t.Fatalf("%d distinct IDs for %d distinct scenarios", len(want), distinct)
	}
	check := func(t *testing.T, base string) {
		t.Helper()
		for id, canonical := range want {
			resp, got := sharetest.Do(t, ts.Client(), "GET", base+"/api/share/"+id, nil)
			if resp.StatusCode != 200 || !bytes.Equal(got, canonical) {
				t.Errorf("GET /api/share/%s: %s %s; want the canonical scenario", id, resp.Status, got)
			}
		}
	}
	check(t, ts.URL)
	ts.Close()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	// The file holds exactly the distinct shares, each with its preview, card
	// and saved states: none lost, none extra.
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	var keys int
	db.View(func(tx *bolt.Tx) error {
		keys = tx.Bucket([]byte(boltBucket)).Stats().KeyN
		return nil
	})
	db.Close()
	if keys != 4*distinct {
		t.Errorf("the bbolt file holds %d keys, want %d: %d shares, each with a preview, a card and saved states", keys, 4*distinct, distinct)
	}

	// A restart with the same data directory serves them all again.
	ts = httptest.NewServer(newTestServer(t, openTestBolt(t, path)))
	defer ts.Close()
	check(t, ts.URL)
}

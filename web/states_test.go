package web

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"schedplay/docs"
	"schedplay/internal/shareapi"
	"schedplay/playground"
	"schedplay/playground/runner"
	"schedplay/web/internal/sharetest"
)

// statesScenario is a small comparison whose preview runs past its warm-up.
const statesScenario = `{"version":1,"name":"states","seed":5,"duration_ms":400,"warmup_ms":100,"series_interval_ms":50,
	"machine":{"vcpus":4},"workload":{"kind":"request_server","clients":6},
	"arms":[{"name":"off","set":{"sched.wake_pull":"false"}},{"name":"on","set":{"sched.wake_pull":"true"}}]}`

type fakeClock struct{ now float64 }

func (c *fakeClock) read() float64 { c.now += 0.01; return c.now }

// A share keeps the states its preview passed through, served to a page of the
// same engine: a page opening the shared link and jumping to the warm-up's end
// starts there (its arms' scenarios are the ones the states were taken of) and
// shows what it shows when it runs from zero. Another engine, an unknown
// share, and a share made before states were kept get a 404.
func TestShareStates(t *testing.T) {
	st := NewMemStore()
	ts := httptest.NewServer(newTestServer(t, st))
	defer ts.Close()
	r, err := sharetest.TryShare(ts.Client(), ts.URL, []byte(statesScenario))
	if err != nil {
		t.Fatal(err)
	}
	table, _ := docs.Load()
	path := shareapi.StatesPath(r.ID, table.Fingerprint)
	resp, pack := sharetest.Do(t, ts.Client(), "GET", ts.URL+path, nil)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/octet-stream" || !strings.Contains(resp.Header.Get("Cache-Control"), "immutable") {
		t.Fatalf("GET %s: %s %v", path, resp.Status, resp.Header)
	}
	saved := playground.NewSavedStates(nil)
	if err := saved.Add(pack, playground.SavedWithShare); err != nil {
		t.Fatal(err)
	}
	canonical := sharetest.Canonical(t, []byte(statesScenario))
	open := func(saved *playground.SavedStates) *playground.Model {
		c := &fakeClock{}
		m := playground.New(playground.Options{Clock: c.read, BudgetMs: 5, Runner: runner.NewLocal(c.read), Saved: saved, Shared: canonical})
		if msg := m.JumpTo(100e6); msg != "" {
			t.Fatal(msg)
		}
		for i := 1; i < 100_000; i++ {
			m.Update(float64(i) * 16)
			if s := m.State(); s.Jump == nil && s.Pending == 0 && !s.Playing {
				return m
			}
		}
		t.Fatal("the jump never settled")
		return nil
	}
	got, want := open(saved).State(), open(nil).State()
	if !strings.Contains(got.Resumed, "saved with this share at 100 ms") {
		t.Errorf("the shared page's notice: %q", got.Resumed)
	}
	for i := range got.Arms {
		// Only the runner's work differs: it did not simulate the warm-up.
		if got.Arms[i].RunnerMs >= want.Arms[i].RunnerMs {
			t.Errorf("arm %d: the runner spent %v ms resuming and %v from zero", i, got.Arms[i].RunnerMs, want.Arms[i].RunnerMs)
		}
		got.Arms[i].RunnerMs, want.Arms[i].RunnerMs = 0, 0
	}
	a, _ := json.Marshal(got.Arms)
	b, _ := json.Marshal(want.Arms)
	if got.NowNs != want.NowNs || string(a) != string(b) {
		t.Errorf("resumed from the share's states the page shows\n%s\nfrom zero\n%s", a, b)
	}

	// A share from before states were kept.
	old := sharetest.Canonical(t, sharetest.Scenario(3))
	if err := st.Put(context.Background(), "OLDOLDOLDOL", old); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		desc, path string
		status     int
		has        string
	}{
		{"another engine", "/api/share/" + r.ID + "/checkpoints?e=0123456789abcdef", 404, "another"},
		{"no engine", "/api/share/" + r.ID + "/checkpoints", 404, "another"},
		{"an unknown share", shareapi.StatesPath("NOSUCHSHARE", table.Fingerprint), 404, "no shared scenario"},
		{"a share from before states", shareapi.StatesPath("OLDOLDOLDOL", table.Fingerprint), 404, "no saved states"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			resp, body := sharetest.Do(t, ts.Client(), "GET", ts.URL+tc.path, nil)
			if resp.StatusCode != tc.status || !strings.Contains(string(body), tc.has) {
				t.Errorf("GET %s: %s %s", tc.path, resp.Status, body)
			}
		})
	}
	if resp, _ := sharetest.Do(t, ts.Client(), "POST", ts.URL+path, nil); resp.StatusCode != 405 {
		t.Errorf("POST: %s", resp.Status)
	}
}

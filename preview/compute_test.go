package preview

import (
	"fmt"
	"testing"

	"github.com/go-json-experiment/json"

	"schedplay/engine"
)

// scenario decodes a test scenario: a small request server compared with idle
// pull off and on, changed by sets.
func scenario(t testing.TB, sets ...string) engine.Scenario {
	t.Helper()
	doc := `{"version":1,"name":"small","seed":3,"duration_ms":400,"warmup_ms":100,"series_interval_ms":50,
		"machine":{"vcpus":4},"workload":{"kind":"request_server","clients":8},
		"arms":[{"name":"pull off","set":{"sched.wake_pull":"false"}},{"name":"pull on","set":{"sched.wake_pull":"1"}}]}`
	sc, err := engine.DecodeScenario([]byte(doc), sets...)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// armResults is what `schedplay run` computes for arm i of sc.
func armResults(t *testing.T, sc engine.Scenario, i int) engine.Results {
	t.Helper()
	var set []string
	for k, v := range sc.Arms[i].Set {
		set = append(set, k+"="+v)
	}
	asc, err := sc.WithKnobs(set...)
	if err != nil {
		t.Fatal(err)
	}
	r, err := engine.Run(asc)
	if err != nil {
		t.Fatal(err)
	}
	r.Series = nil
	return r
}

func TestComputeComplete(t *testing.T) {
	sc := scenario(t)
	p, err := Compute(sc, 1<<40)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Complete || p.ReachedMs != 400 || p.FromMs != 100 || p.ToMs != 400 {
		t.Errorf("complete %v, reached %v, window %v-%v; want a complete run measured 100-400", p.Complete, p.ReachedMs, p.FromMs, p.ToMs)
	}
	if len(p.Arms) != 2 || p.Arms[0].Name != "pull off" || p.Arms[1].Name != "pull on" {
		t.Fatalf("arms %+v", p.Arms)
	}
	// A complete preview's numbers are the engine's own for each arm.
	for i := range p.Arms {
		got, _ := json.Marshal(p.Arms[i].Results)
		want, _ := json.Marshal(armResults(t, sc, i))
		if string(got) != string(want) {
			t.Errorf("arm %d results\n%s\nwant what engine.Run gives\n%s", i, got, want)
		}
		if n := len(p.Arms[i].Tiles); n != 4 {
			t.Errorf("arm %d has %d tiles, want 4", i, n)
		}
		if n := len(p.Arms[i].Series); n != 8 || p.Arms[i].SeriesMs != 50 {
			t.Errorf("arm %d series: %d points of %v ms, want 8 of 50", i, n, p.Arms[i].SeriesMs)
		}
	}
	// "1" and "false" differ; the knob is named once.
	if len(p.Compared) != 1 || p.Compared[0] != (Knob{"sched.wake_pull", "false", "1"}) {
		t.Errorf("compared = %+v", p.Compared)
	}
	if p.AtMs < p.FromMs || p.AtMs > p.ToMs {
		t.Errorf("tiles at %v ms, outside the measured window %v-%v", p.AtMs, p.FromMs, p.ToMs)
	}
}

func TestComputeBounded(t *testing.T) {
	sc := scenario(t, "duration_ms=10000", "warmup_ms=5000", "series_interval_ms=1")
	full, err := Compute(sc, 1<<40)
	if err != nil {
		t.Fatal(err)
	}
	for _, budget := range []int64{50_000, 400_000} {
		t.Run(fmt.Sprint(budget), func(t *testing.T) {
			p, err := Compute(sc, budget)
			if err != nil {
				t.Fatal(err)
			}
			// One lockstep step of every arm may run past the budget.
			step := full.Events / lockSteps
			if p.Complete || p.Events < budget || p.Events > budget+2*step {
				t.Errorf("complete %v after %d events; want cut short within a step (%d) of %d", p.Complete, p.Events, step, budget)
			}
			if p.ReachedMs >= p.HorizonMs || p.FromMs > p.ReachedMs/2 || p.ToMs != p.ReachedMs {
				t.Errorf("reached %v of %v ms, window %v-%v; want a window over the later half of the prefix", p.ReachedMs, p.HorizonMs, p.FromMs, p.ToMs)
			}
			for i, a := range p.Arms {
				if a.Results.SimSeconds*1e3 != p.ReachedMs {
					t.Errorf("arm %d stopped at %v s, want the lockstep time %v ms", i, a.Results.SimSeconds, p.ReachedMs)
				}
				if len(a.Series) > maxSeries {
					t.Errorf("arm %d has %d series points, above %d", i, len(a.Series), maxSeries)
				}
			}
			again, _ := Compute(sc, budget)
			a, _ := json.Marshal(p)
			b, _ := json.Marshal(again)
			if string(a) != string(b) {
				t.Error("two computations of the same scenario and budget differ")
			}
		})
	}
}

func TestComputeErrors(t *testing.T) {
	sc := scenario(t)
	bad := sc
	bad.Arms = []engine.Arm{{Name: "ok"}, {Name: "too many vcpus", Set: map[string]string{"machine.vcpus": "4096"}}}
	for _, tc := range []struct {
		desc   string
		sc     engine.Scenario
		budget int64
		want   string
	}{
		{"no budget", sc, 0, "preview: the event budget must be positive"},
		{"arm out of range", bad, 1000, `preview: arms.1.set.machine.vcpus: arm "too many vcpus" sets machine.vcpus=4096: 4096 is above the maximum 128`},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			_, err := Compute(tc.sc, tc.budget)
			if err == nil || len(err.Error()) < len(tc.want) || err.Error()[:len(tc.want)] != tc.want {
				t.Errorf("Compute = %v, want an error starting %q", err, tc.want)
			}
		})
	}
}

func TestChooseWindow(t *testing.T) {
	froms := windowFroms(12000, 24000) // warm-up, 0, 375, 750, 1500, 3000, 6000, 12000 (once)
	for _, tc := range []struct {
		desc      string
		reachedMs int64
		complete  bool
		want      int64
	}{
		{"complete", 24000, true, 12000},
		{"past twice the warm-up", 24000, false, 12000},
		{"cut at 3.6 s", 3600, false, 1500},
		{"cut at 0.5 s", 500, false, 0},
		{"cut at 0.75 s", 750, false, 375},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			if got := froms[chooseWindow(froms, tc.reachedMs*1e6, tc.complete)]; got != tc.want {
				t.Errorf("window from %d ms, want %d (froms %v)", got, tc.want, froms)
			}
		})
	}
}

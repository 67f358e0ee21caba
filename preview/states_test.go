package preview

import (
	"bytes"
	"slices"
	"testing"

	"github.com/go-json-experiment/json"

	"schedplay/engine"
)

// ComputeStates gives the preview Compute gives, and every arm's checkpoints
// at the warm-up's end and at moments spread over what the budget let it run,
// the last where it stopped; each is byte for byte the checkpoint a run of
// that arm from zero takes there, measured as the page's runner measures it.
func TestComputeStates(t *testing.T) {
	for _, tc := range []struct {
		desc   string
		budget int64
		warm   bool // the run gets past the warm-up
	}{
		{"cut short past the warm-up", 120_000, true},
		{"cut short in the warm-up", 2_000, false},
		{"complete", 1 << 40, true},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			sc := scenario(t)
			want, err := Compute(sc, tc.budget)
			if err != nil {
				t.Fatal(err)
			}
			got, pack, err := ComputeStates(sc, tc.budget)
			if err != nil {
				t.Fatal(err)
			}
			a, _ := json.Marshal(got)
			b, _ := json.Marshal(want)
			if !bytes.Equal(a, b) {
				t.Fatalf("ComputeStates' preview differs from Compute's:\n%s\n%s", a, b)
			}
			cks, err := engine.ReadCheckpointPack(pack)
			if err != nil {
				t.Fatal(err)
			}
			arms, _ := sc.ArmScenarios()
			byArm := map[engine.ScenarioKey][]engine.PackedCheckpoint{}
			for _, ck := range cks {
				byArm[ck.Key] = append(byArm[ck.Key], ck)
			}
			reached := int64(got.ReachedMs * 1e6)
			for i, arm := range arms {
				mine := byArm[arm.Scenario.Key()]
				var at []int64
				for _, ck := range mine {
					at = append(at, ck.NowNs)
				}
				if len(at) < 2 || len(at) > maxStates+2 || at[len(at)-1] != reached || !slices.IsSorted(at) ||
					slices.Contains(at, 100e6) != tc.warm {
					t.Fatalf("arm %d saved at %v; want the warm-up's end (%v), a spread, and the end %d", i, at, tc.warm, reached)
				}
				sim, _ := engine.NewSim(arm.Scenario)
				w := sim.AddWindow(0, arm.Scenario.WarmupMs)
				for _, ck := range mine {
					sim.RunUntil(ck.NowNs)
					ref, err := sim.AppendCheckpoint(nil, engine.CheckpointOptions{Windows: []int{0, w}})
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(ck.Data, ref) {
						t.Errorf("arm %d at %d ns: the preview's checkpoint differs from a run's from zero", i, ck.NowNs)
					}
				}
			}
		})
	}
}

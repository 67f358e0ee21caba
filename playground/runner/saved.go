package runner

import (
	"fmt"

	"schedplay/engine"
)

// SaveStates runs sc from time zero as a Host runs an arm (measuring its
// warm-up as well, the window the page shows until the measured one begins)
// and returns its checkpoints at each of moments, packed
// (engine.AppendCheckpointPack): what StartFrom resumes. Moments must ascend
// within the horizon; a finite workload that ends before one is saved where
// it ended. The page's bundle ships such packs (internal/wasmbuild).
func SaveStates(sc engine.Scenario, moments []int64) ([]byte, error) {
	sim, err := engine.NewSim(sc)
	if err != nil {
		return nil, err
	}
	sim.SetVisual(false)
	wins := []int{0}
	if sc.WarmupMs > 0 {
		wins = append(wins, sim.AddWindow(0, sc.WarmupMs))
	}
	var cks [][]byte
	for i, at := range moments {
		if at < 0 || at > sim.EndNs() || i > 0 && at <= moments[i-1] {
			return nil, fmt.Errorf("runner.SaveStates: moment %d ns is not after the one before, or outside the run", at)
		}
		sim.RunUntil(at)
		ck, err := sim.AppendCheckpoint(nil, engine.CheckpointOptions{Windows: wins})
		if err != nil {
			return nil, err
		}
		cks = append(cks, ck)
	}
	return engine.AppendCheckpointPack(nil, cks...)
}

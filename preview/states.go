package preview

import (
	"slices"

	"schedplay/engine"
)

// states are the checkpoints ComputeStates keeps: the warm-up's end, and at
// most maxStates moments spread over the run (every every-th step) plus the
// last.
type states struct {
	warm   *saved
	spread []saved
	every  int
}

type saved struct {
	k   int      // the step
	at  int64    // the moment
	cks [][]byte // by arm
}

// save takes every arm's checkpoint at step k (-1: the warm-up's end).
func (st *states) save(runs []*armRun, k int) error {
	st.every = max(st.every, 1)
	var cks [][]byte
	for _, r := range runs {
		ck, err := r.sim.AppendCheckpoint(nil, engine.CheckpointOptions{Windows: r.kept})
		if err != nil {
			return err
		}
		cks = append(cks, ck)
	}
	s := saved{k, runs[0].sim.NowNs(), cks}
	if k < 0 {
		st.warm = &s
		return nil
	}
	st.spread = append(st.spread, s)
	if len(st.spread) > maxStates {
		// Keep the multiples of the doubled interval, and the newest (the run's
		// end when it is the last).
		st.every *= 2
		kept := st.spread[:0]
		for i, s := range st.spread {
			if s.k%st.every == 0 || i == len(st.spread)-1 {
				kept = append(kept, s)
			}
		}
		st.spread = kept
	}
	return nil
}

// pack packs the states in the order of their moments.
func (st *states) pack() ([]byte, error) {
	list := st.spread
	if st.warm != nil {
		i := 0
		for i < len(list) && list[i].at <= st.warm.at {
			i++
		}
		list = slices.Insert(slices.Clone(list), i, *st.warm)
	}
	var all [][]byte
	for _, s := range list {
		all = append(all, s.cks...)
	}
	return engine.AppendCheckpointPack(nil, all...)
}

package engine

// Bounded stepping for front ends that run the engine away from the page (the
// playground's Web Worker): RunUntil with a cap on the events it may process, so
// that one call never holds a thread for longer than its caller allows, whatever
// the event density of the scenario.

// RunUntilN processes at most n events due before tNs (capped at the horizon) and
// returns how many it processed. When that is fewer than n, every event before tNs
// has run and the clock is at tNs (or the run is done), exactly as RunUntil(tNs)
// leaves it; calling RunUntilN until it returns less than n is RunUntil in bounded
// pieces, with identical results.
func (s *Sim) RunUntilN(tNs int64, n int) int {
	if tNs > s.end {
		tNs = s.end
	}
	done := 0
	for done < n && !s.Done() && s.stepBefore(tNs) {
		done++
	}
	if done < n && tNs > s.now && !s.Done() {
		s.advanceTo(tNs)
	}
	return done
}

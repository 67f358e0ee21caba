package runner

import "schedplay/engine"

// collector gathers, between two frames, what the stage animates: the newest
// MaxFlights IPIs (sent, or with ghosts the ones the scheduler chose not to send)
// and the newest MaxMigrations migrations.
type collector struct {
	flights    []Flight
	migrations []Migration
}

// add takes in a chunk's visual events. slides keeps migrations (only slow motion
// animates them); ghosts finds the suppressed wakeup IPIs among the decisions.
func (c *collector) add(sim *engine.Sim, vis []engine.VisEvent, slides, ghosts bool, ipiNs int64) {
	for _, e := range vis {
		switch e.Kind {
		case engine.VisDecision:
			if !ghosts {
				continue
			}
			// Arg is the decision's ring slot; a slot reused since (more than a
			// ring of decisions in one chunk) no longer matches the event.
			d := sim.DecisionAt(int(e.Arg))
			if d.Kind == engine.DecIPISuppressed && d.AtNs == e.AtNs && d.CPU == e.CPU && d.Target == e.Other && d.Thread == e.Thread {
				c.addFlight(Flight{Kind: engine.IPIWakeup, From: d.CPU, To: d.Target, SentNs: e.AtNs, DueNs: e.AtNs + ipiNs, Ghost: true})
			}
		case engine.VisIPISend:
			c.addFlight(Flight{Kind: e.IPI, From: e.CPU, To: e.Other, SentNs: e.AtNs, DueNs: e.AtNs + int64(max(e.Arg, 1))})
		case engine.VisMigrate:
			if !slides {
				continue
			}
			if len(c.migrations) == MaxMigrations {
				c.migrations = append(c.migrations[:0], c.migrations[1:]...)
			}
			c.migrations = append(c.migrations, Migration{Thread: e.Thread, From: e.CPU, To: e.Other})
		}
	}
}

// addFlight keeps the newest MaxFlights.
func (c *collector) addFlight(f Flight) {
	if len(c.flights) == MaxFlights {
		c.flights = append(c.flights[:0], c.flights[1:]...)
	}
	c.flights = append(c.flights, f)
}

// take appends what was gathered to the destination slices, returns them, and
// starts afresh.
func (c *collector) take(flights []Flight, migrations []Migration) ([]Flight, []Migration) {
	flights = append(flights, c.flights...)
	migrations = append(migrations, c.migrations...)
	c.flights, c.migrations = c.flights[:0], c.migrations[:0]
	return flights, migrations
}

package engine

// Sim is one running simulation. It is not safe for concurrent use.
type Sim struct {
	sc  Scenario
	now int64
}

// NewSim validates sc and builds the machine and workload at time 0.
func NewSim(sc Scenario) (*Sim, error) {
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	return &Sim{sc: sc}, nil
}

// Scenario returns the scenario the simulation runs.
func (s *Sim) Scenario() Scenario { return s.sc }

// NowNs is the simulated time in nanoseconds.
func (s *Sim) NowNs() int64 { return s.now }

// EndNs is the simulated horizon.
func (s *Sim) EndNs() int64 { return s.sc.DurationMs * 1e6 }

// Done reports whether the horizon has been reached.
func (s *Sim) Done() bool { return s.now >= s.EndNs() }

// Step processes one event; it returns false when the run is done.
func (s *Sim) Step() bool { return false }

// StepN processes up to n events and returns how many it processed.
func (s *Sim) StepN(n int) int { return 0 }

// RunUntil processes every event due at or before tNs (capped at the horizon) and
// moves the clock to tNs.
func (s *Sim) RunUntil(tNs int64) {}

// Run runs to the horizon and returns the results.
func (s *Sim) Run() Results { s.RunUntil(s.EndNs()); return s.Results() }

// Results computes the metrics over the measured window so far.
func (s *Sim) Results() Results { return Results{} }

// Snapshot fills dst with the machine's current state, reusing dst's slices.
func (s *Sim) Snapshot(dst *Snapshot) {}

// DrainVis appends the visual events since the previous drain to dst. The buffer
// is bounded: if more than its capacity happened since the last drain, the oldest
// are dropped and the first returned event is preceded by a gap.
func (s *Sim) DrainVis(dst []VisEvent) []VisEvent { return dst }

// Decisions appends the retained decision records (oldest first) to dst.
func (s *Sim) Decisions(dst []Decision) []Decision { return dst }

// LastDecision returns the newest decision about a CPU (thread < 0) or a thread.
func (s *Sim) LastDecision(cpu, thread int) (Decision, bool) { return Decision{}, false }

// Run simulates sc to its horizon and returns the results.
func Run(sc Scenario) (Results, error) {
	s, err := NewSim(sc)
	if err != nil {
		return Results{}, err
	}
	return s.Run(), nil
}

package preview

import (
	"schedplay/docs"
	"schedplay/engine"
)

// Preview is what a share's link preview shows, computed once when the share is
// made (Compute) and stored with it: the headline results of each arm, their
// throughput over simulated time, and one moment of their vCPU tiles. The JSON
// tags are its stored form; fields are only ever added, so an old record still
// decodes.
type Preview struct {
	// Name is the scenario's name ("" when it has none); VCPUs, Workload and
	// Clients describe the machine and workload every arm shares.
	Name string `json:"name,omitzero"`
	// Policy is set when the scenario runs a sched_ext policy of its own
	// (sched.policy=scx with sched.scx.source): its first comment line, or
	// "unnamed" when it starts with none (PolicyName).
	Policy string `json:"policy,omitzero"`
	// PolicyError is set when the engine refused that policy (it does not
	// compile): no arm ran, Arms is empty and the card says why.
	PolicyError *PolicyError `json:"policy_error,omitzero"`
	VCPUs       int          `json:"vcpus"`
	Workload    string       `json:"workload"`
	Clients     int          `json:"clients,omitzero"`
	// Platform is "kvm" when an arm runs under KVM, else the arms' platform
	// ("" in a record made before it was stored).
	Platform string `json:"platform,omitzero"`
	Seed     uint64 `json:"seed"`
	// HorizonMs is the scenario's simulated duration; ReachedMs how far the arms
	// were simulated (the same for every arm still running: they advance in
	// lockstep). Complete is true when every arm reached its end, and the results
	// are then exactly what `schedplay run` prints for each arm.
	HorizonMs float64 `json:"horizon_ms"`
	ReachedMs float64 `json:"reached_ms"`
	Complete  bool    `json:"complete"`
	// Events is the engine events processed, all arms together, and
	// PolicySteps the steps their sched_ext policies ran: Events plus
	// PolicySteps/PolicyStepsPerEvent is bounded by the budget Compute was
	// given.
	Events      int64 `json:"events"`
	PolicySteps int64 `json:"policy_steps,omitzero"`
	// FromMs..ToMs is the window of simulated time the results cover: the
	// scenario's measured window when Complete, otherwise the later part of the
	// prefix that was simulated (see chooseWindow).
	FromMs float64 `json:"from_ms"`
	ToMs   float64 `json:"to_ms"`
	// AtMs is the moment the tiles show.
	AtMs float64 `json:"at_ms"`
	// Compared lists the knobs whose values differ between the two arms.
	Compared []Knob `json:"compared,omitzero"`
	// Arms holds one entry for a single run, two for a comparison (the first two
	// of the scenario's arms, as the playground compares them).
	Arms []Arm `json:"arms"`
}

// Knob is one compared knob: its path and its value in arm A and arm B ("" when
// the arm leaves it at the scenario's value).
type Knob struct {
	Path string `json:"path"`
	A    string `json:"a,omitzero"`
	B    string `json:"b,omitzero"`
}

// Arm is one side of the comparison.
type Arm struct {
	Name string `json:"name,omitzero"`
	// Results are the engine's results over the preview's window, without their
	// series (Series below replaces it).
	Results engine.Results `json:"results"`
	// Series is throughput per second in buckets SeriesMs wide from time 0; the
	// last bucket may be shorter (it ends where the arm stopped).
	Series   []float64 `json:"series"`
	SeriesMs float64   `json:"series_ms"`
	// Tiles are the vCPUs at Preview.AtMs, by CPU id; IPIs the interrupts in
	// flight then.
	Tiles []Tile `json:"tiles"`
	IPIs  []IPI  `json:"ipis,omitzero"`
	// Gauge is true when the spin window adapts, so halted tiles show it too, as
	// the playground does.
	Gauge bool `json:"gauge,omitzero"`
	// Published are the scenario's published figures for this arm's settings,
	// by metric key (view.PublishedSet).
	Published map[string]float64 `json:"published,omitzero"`
	// Calibrated is the calibration's point this arm's run is, nil when the
	// calibration did not run these settings: its verdicts as they were when
	// the preview was computed, so the stored card and the description agree.
	Calibrated *docs.Point `json:"calibrated,omitzero"`
}

// Tile is one vCPU at an instant.
type Tile struct {
	// State is the engine's CPUState name: running, spinning, halted, waking, irq.
	State string `json:"state"`
	// Run is the role letter of the running thread (see roleLetter), "" when none.
	Run string `json:"run,omitzero"`
	// Chips has one role letter per queued thread in run order, then the
	// incoming ones in upper case, at most maxChips of them; Queued counts all.
	Chips  string `json:"chips,omitzero"`
	Queued int    `json:"queued,omitzero"`
	// Spin is the spin window as a fraction of its cap, in [0, 1].
	Spin float64 `json:"spin,omitzero"`
}

// IPI is an inter-processor interrupt in flight: its engine IPIKind name and the
// CPUs it goes between.
type IPI struct {
	Kind string `json:"kind"`
	From int    `json:"from"`
	To   int    `json:"to"`
}

// maxChips bounds the chips a tile records: no tile on the card shows more
// (the rest is a "+n" count), and 4096 clients on one vCPU would otherwise
// make the record as large as the scenario's thread table.
const maxChips = 16

// roleLetter is how a Tile writes a thread role.
func roleLetter(r engine.ThreadRole) byte {
	switch r {
	case engine.RoleWaker:
		return 'k'
	case engine.RoleSpawner:
		return 's'
	case engine.RoleBalancer:
		return 'b'
	case engine.RoleKernel:
		return 'h'
	}
	return 'w'
}

package playground

import (
	"slices"
	"strconv"
	"unicode"
	"unicode/utf8"

	"schedplay/engine"
)

// Control describes one HTML control beside the canvas; the page builds its panel
// from this list. Which knobs the panel offers, in which group and under which
// element id, is the page's choice (panelKnobs). Everything else comes from the
// engine's knob schema (engine.Knobs): the label, unit, tooltip (the knob's Doc),
// the choices of a select, the slider's ladder (from Min, Max and Log), and when
// the control is shown at all (Knob.Applies, see controlsUI).
type Control struct {
	// ID is the element id, which the e2e tests and embedding pages use: vcpus,
	// clients, spin-cap, adaptive-spin, wake-pull, policy, platform, ...
	ID string `json:"id"`
	// Path is the engine knob the control sets.
	Path  string `json:"path"`
	Label string `json:"label"`
	Group string `json:"group"`
	// Kind is "range" (a slider over ladder positions), "toggle", "select" or
	// "number".
	Kind string `json:"kind"`
	Unit string `json:"unit,omitzero"`
	// Tip says what the control does, in one sentence (the element's title).
	Tip string `json:"tip"`
	// Options are the choices of a "select".
	Options []Option `json:"options,omitzero"`

	knob engine.Knob
	// ladder holds the slider's values for "range" (slider position i means
	// ladder[i]); a value outside it is inserted where it belongs (valueOf).
	ladder []float64
	// names are display names of a select's values (panelKnob.names).
	names map[string]string
	// pairs are more comparisons the compare picker offers (panelKnob.pairs).
	pairs [][2]string
	// noCompare keeps the control out of the compare picker (panelKnob).
	noCompare bool
}

// Option is one choice of a select.
type Option struct {
	Value string `json:"value"`
	Label string `json:"label"`
}

// Control groups, in panel order.
const (
	GroupMachine  = "Machine"
	GroupWorkload = "Workload"
	GroupSched    = "Scheduler"
	GroupRun      = "Run"
)

// panelKnob is one knob the panel offers.
type panelKnob struct {
	id, path, group string
	// ladder replaces the schema's ladder where the schema cannot give a good one
	// (see clientsLadder); it is kept to the schema's range.
	ladder []float64
	// names are display names of a choice knob's values where the bare value reads
	// poorly; the values themselves are the schema's, and a value without a name
	// shows as itself.
	names map[string]string
	// offer lists values the schema accepts but does not list as choices
	// that the select offers all the same, after them.
	offer []string
	// pairs are comparisons offered beside the first two choices.
	pairs [][2]string
	// choices replaces a select's values and their order (the schema's
	// choices, then offer) where the panel offers others (machineChoices);
	// noCompare keeps it out of the compare picker (two machines of other
	// CPU counts do not share a stage).
	choices   []string
	noCompare bool
}

// panelKnobs lists the panel's knobs in order. Within Scheduler the policy comes
// first and the knobs of one policy follow it; a knob that refines another
// (adaptive spin, then its floor) follows the one it refines, since it appears
// only when that one makes it apply.
func panelKnobs() []panelKnob {
	topoValues, topoNames := machineChoices()
	return []panelKnob{
		{id: "vcpus", path: "machine.vcpus", group: GroupMachine},
		// The machine's shape beside its CPU count (machine.go): Set takes
		// BigLittle too, which is capacities rather than a topology.
		{id: "topology", path: "machine.topology", group: GroupMachine, choices: topoValues, names: topoNames, noCompare: true},
		{id: "platform", path: "machine.platform", group: GroupMachine,
			names: map[string]string{"native": "bare metal", "kvm": "KVM guest"}},
		{id: "host-halt-poll", path: "machine.host_halt_poll_ns", group: GroupMachine},
		{id: "clients", path: "workload.clients", group: GroupWorkload, ladder: clientsLadder()},
		{id: "requests-per-conn", path: "workload.requests_per_conn", group: GroupWorkload},
		{id: "rx-queues", path: "workload.rx_queues", group: GroupWorkload, ladder: rxQueuesLadder()},
		{id: "rss", path: "workload.rss", group: GroupWorkload},
		{id: "policy", path: "sched.policy", group: GroupSched,
			// "scx" runs the scenario's own policy (sched.scx.source), which
			// the page's editor writes (policy.go).
			names: map[string]string{"osv": "OSv", "scx_simple": "sched_ext scx_simple", "linux": "Linux (EEVDF)",
				"scx": "sched_ext: your own policy"}, offer: []string{"scx"}, pairs: [][2]string{{"scx_simple", "scx"}}},
		{id: "wake-sync", path: "sched.wake_sync", group: GroupSched,
			names: map[string]string{"old": "old: any CPU idle", "new": "new: a CPU idle and the waker's queue empty",
				"proposed": "proposed: the waker's queue empty"}},
		{id: "base-slice", path: "sched.base_slice_us", group: GroupSched},
		{id: "hz", path: "sched.hz", group: GroupSched, ladder: []float64{100, 250, 300, 1000}},
		{id: "rt-runtime", path: "sched.rt_runtime_us", group: GroupSched, ladder: []float64{-1, 500_000, 800_000, 900_000, 950_000, 990_000}},
		{id: "wake-pull", path: "sched.wake_pull", group: GroupSched},
		{id: "balance", path: "sched.balance_interval_ms", group: GroupSched},
		{id: "balancer", path: "sched.balancer", group: GroupSched,
			names: map[string]string{"stock": "stock: one thread a pass", "drain": "drain: the whole imbalance (PR 1464)"}},
		{id: "spin-cap", path: "sched.idle_spin.cap", group: GroupSched},
		{id: "adaptive-spin", path: "sched.idle_spin.adaptive", group: GroupSched},
		{id: "spin-rule", path: "sched.idle_spin.rule", group: GroupSched,
			names: map[string]string{"asymmetric": "asymmetric (published)", "symmetric": "symmetric (rejected)"}},
		{id: "spin-floor", path: "sched.idle_spin.floor", group: GroupSched},
		{id: "seed", path: "seed", group: GroupRun},
		{id: "duration", path: "duration_ms", group: GroupRun},
	}
}

// clientsLadder is the one hand-kept ladder. The schema steps clients by factors
// (1-2-5: 1, 2, 5, 10, 20, 50, 100), which would skip every client count the
// published figures are measured at (8, 16, 32, 48, 64, 96: multiples of 8, the
// guests having 8 or 32 vCPUs), so no published point could be reached with the
// slider. These steps hit each of them, more finely where clients pass the vCPUs.
func clientsLadder() []float64 {
	return []float64{1, 2, 4, 8, 12, 16, 24, 32, 40, 48, 56, 64, 80, 96, 128, 160, 192, 256}
}

// rxQueuesLadder steps the queue pairs a device advertises through the vCPU
// counts the presets have (8, 16, 32), where one queue a vCPU is the natural
// setting; the schema's 1-2-5 steps would miss all three.
func rxQueuesLadder() []float64 {
	return []float64{1, 2, 4, 8, 16, 32, 64, 96, 128, 256}
}

// Controls returns the panel's controls, derived from the engine's schema. A
// panel knob the engine does not have is left out.
func Controls() []Control {
	schema := map[string]engine.Knob{}
	for _, k := range engine.Knobs() {
		schema[k.Path] = k
	}
	var out []Control
	for _, p := range panelKnobs() {
		k, ok := schema[p.path]
		if !ok {
			continue
		}
		c := Control{ID: p.id, Path: p.path, Group: p.group, Label: capitalize(k.Label), Unit: k.Unit, Tip: k.Doc,
			knob: k, names: p.names, pairs: p.pairs, noCompare: p.noCompare}
		switch k.Kind {
		case engine.KindBool:
			c.Kind = "toggle"
		case engine.KindChoice:
			c.Kind = "select"
			values := append(slices.Clone(k.Choices), p.offer...)
			if p.choices != nil {
				values = p.choices
			}
			for _, v := range values {
				c.Options = append(c.Options, Option{v, formatKnob(k, p.names, v)})
			}
		default:
			c.ladder = schemaLadder(k)
			if p.ladder != nil {
				c.ladder = clampLadder(p.ladder, k)
			}
			c.Kind = "range"
			if c.ladder == nil {
				c.Kind = "number"
			}
		}
		out = append(out, c)
	}
	return out
}

// capitalize starts a label with a capital for the panel ("spin cap" -> "Spin
// cap"), except a word that is already mixed case ("vCPUs").
func capitalize(s string) string {
	if s == "" {
		return s
	}
	first, n := utf8.DecodeRuneInString(s)
	second, _ := utf8.DecodeRuneInString(s[n:])
	if unicode.IsUpper(second) {
		return s
	}
	return string(unicode.ToUpper(first)) + s[n:]
}

// format renders a value with its unit ("200 µs", "on", "bare metal"); a typed
// value (the seed) shows as typed.
func (c *Control) format(v string) string {
	if c.Kind == "number" {
		return v
	}
	return formatKnob(c.knob, c.names, v)
}

// applies reports whether the control changes anything in one of the scenarios
// (the arms shown): a knob that matters in either arm of a comparison is shown.
func (c *Control) applies(scs []engine.Scenario) bool {
	return slices.ContainsFunc(scs, c.knob.Applies)
}

// ControlValue is a control's current state, in the snapshot's controls section.
type ControlValue struct {
	ID string `json:"id"`
	// Value is the knob value as the engine reads it.
	Value string `json:"value"`
	// Display is the value with its unit ("100 000 iterations", "200 µs", "on").
	Display string `json:"display"`
	// Index and Ladder drive a range slider (positions 0..len-1).
	Index  int       `json:"index"`
	Ladder []float64 `json:"ladder,omitzero"`
	// Locked says the control is compared in both arms (it shows each arm's value).
	Locked bool `json:"locked,omitzero"`
	// Disabled says another control sets this one's value (a topology the
	// vCPU count); Note says which.
	Disabled bool   `json:"disabled,omitzero"`
	Note     string `json:"note,omitzero"`
	// Hidden says the knob changes nothing in the scenarios shown (engine
	// Knob.Applies): hackbench has no clients, bare metal no host halt polling.
	Hidden bool `json:"hidden,omitzero"`
}

// valueOf is the control's state for value v (as Scenario.Get writes it).
func (c *Control) valueOf(v string) ControlValue {
	cv := ControlValue{ID: c.ID, Value: v, Display: c.format(v)}
	switch c.Kind {
	case "range":
		x, _ := strconv.ParseFloat(v, 64)
		l := c.ladder
		i, found := slices.BinarySearch(l, x)
		if !found {
			l = slices.Insert(slices.Clone(l), i, x)
		}
		cv.Ladder, cv.Index = l, i
	case "toggle":
		cv.Value = "0"
		if v == "true" {
			cv.Value = "1"
		}
	}
	return cv
}

package play

import (
	"slices"
	"strconv"

	"schedplay/engine"
	"schedplay/wasm/view"
)

// Control describes one HTML control beside the canvas. The page builds its panel
// from this table, so labels, units, tooltips and value ladders live in one place
// (and are tested here).
type Control struct {
	// ID is the element id, which the e2e tests and embedding pages use: vcpus,
	// clients, spin-cap, adaptive-spin, wake-pull, policy, platform, ...
	ID string `json:"id"`
	// Path is the engine knob the control sets.
	Path  string `json:"path"`
	Label string `json:"label"`
	Group string `json:"group"`
	// Kind is "range" (a slider over Ladder positions), "toggle", "select" or
	// "number".
	Kind string `json:"kind"`
	Unit string `json:"unit,omitzero"`
	// Tip says what the control does, in one sentence (the element's title).
	Tip string `json:"tip"`
	// Ladder holds the slider's values for "range" (slider position i means
	// Ladder[i]); a value outside the ladder is inserted where it belongs.
	Ladder []int64 `json:"-"`
	// Options are the choices of a "select", only those the engine accepts.
	Options []Option `json:"options,omitzero"`
	// candidates are the select values to offer if the engine accepts them.
	candidates []Option
	// format renders a value with its unit.
	format func(v string) string
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

func ladder(from, to int64) []int64 {
	var l []int64
	for v := from; v <= to; v++ {
		l = append(l, v)
	}
	return l
}

func fmtInt(unit string) func(string) string {
	return func(v string) string {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return v
		}
		if unit == "" {
			return view.Grouped(n)
		}
		return view.Grouped(n) + " " + unit
	}
}

func fmtOnOff(v string) string {
	if v == "true" || v == "1" {
		return "on"
	}
	return "off"
}

func fmtNsOff(v string) string { return fmtDurationOff(v, 1) }

func fmtMsOff(v string) string { return fmtDurationOff(v, 1e6) }

// fmtDurationOff formats an integer knob of nsPerUnit nanoseconds, 0 as "off".
func fmtDurationOff(v string, nsPerUnit float64) string {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return v
	}
	if n == 0 {
		return "off"
	}
	return view.Duration(float64(n) * nsPerUnit)
}

func fmtMs(v string) string {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return v
	}
	return view.Duration(float64(n) * 1e6)
}

// controlTable is the full list, before probing which select options and knobs the
// engine knows. The scheduler tips summarise mechanisms that docs/mechanisms.md
// describes in full (sections "Idle-CPU pull", "Adaptive idle spin", "WAKE_SYNC").
func controlTable() []Control {
	return []Control{
		{ID: "vcpus", Path: "machine.vcpus", Label: "vCPUs", Group: GroupMachine, Kind: "range",
			Tip: "How many virtual CPUs the guest has.", Ladder: ladder(1, 64), format: fmtInt("")},
		{ID: "platform", Path: "machine.platform", Label: "Platform", Group: GroupMachine, Kind: "select",
			Tip:        "Bare metal, where halting is cheap, or a KVM guest, where a halt is a VM exit.",
			candidates: []Option{{"native", "bare metal"}, {"kvm", "KVM guest"}}},
		{ID: "host-halt-poll", Path: "machine.host_halt_poll_ns", Label: "Host halt-poll", Group: GroupMachine, Kind: "range",
			Tip:    "How long the KVM host polls for a wake before descheduling a halted vCPU (halt_poll_ns).",
			Ladder: []int64{0, 10_000, 25_000, 50_000, 100_000, 200_000, 400_000, 1_000_000}, format: fmtNsOff},
		{ID: "clients", Path: "workload.clients", Label: "Clients", Group: GroupWorkload, Kind: "range",
			Tip:    "Concurrent client connections, each served by its own worker thread.",
			Ladder: []int64{1, 2, 4, 8, 12, 16, 24, 32, 40, 48, 56, 64, 80, 96, 128, 160, 192, 256}, format: fmtInt("")},
		{ID: "wake-pull", Path: "sched.wake_pull", Label: "Idle-CPU pull", Group: GroupSched, Kind: "toggle",
			Tip: "An idle vCPU asks the busiest one to donate a queued thread (OSV_WAKE_PULL=1).", format: fmtOnOff},
		{ID: "adaptive-spin", Path: "sched.idle_spin.adaptive", Label: "Adaptive idle spin", Group: GroupSched, Kind: "toggle",
			Tip: "Each vCPU halves its idle spin after repeated useless halts and snaps back to the cap when a spin catches a wake.", format: fmtOnOff},
		{ID: "spin-cap", Path: "sched.idle_spin.cap", Label: "Spin cap", Group: GroupSched, Kind: "range", Unit: "iter",
			Tip:    "Idle-loop polling iterations before a vCPU halts (the adaptive window's upper bound).",
			Ladder: []int64{0, 256, 1000, 2500, 5000, 10_000, 25_000, 50_000, 100_000, 250_000, 1_000_000}, format: fmtInt("iter")},
		{ID: "spin-floor", Path: "sched.idle_spin.floor", Label: "Spin floor", Group: GroupSched, Kind: "range", Unit: "iter",
			Tip:    "The smallest idle spin the adaptive window may shrink to.",
			Ladder: []int64{0, 64, 128, 256, 512, 1024, 2048, 4096}, format: fmtInt("iter")},
		{ID: "policy", Path: "sched.policy", Label: "Policy", Group: GroupSched, Kind: "select",
			Tip:        "The guest scheduler the model runs.",
			candidates: []Option{{"osv", "OSv"}, {"scx_simple", "sched_ext scx_simple"}, {"linux", "Linux (EEVDF-like)"}}},
		{ID: "wake-sync", Path: "sched.wake_sync", Label: "WAKE_SYNC rule", Group: GroupSched, Kind: "select",
			Tip:        "Where sched_ext puts a synchronous wakee: the old rule takes the waker's CPU whenever any CPU is idle, the new one only when the waker's queue is empty too.",
			candidates: []Option{{"old", "old: waker's CPU"}, {"new", "new: waker's CPU if its queue is empty"}}},
		{ID: "balance", Path: "sched.balance_interval_ms", Label: "Balancer interval", Group: GroupSched, Kind: "range",
			Tip:    "How often each vCPU's load balancer may push one thread to the least loaded vCPU.",
			Ladder: []int64{0, 10, 20, 50, 100, 200, 500, 1000}, format: fmtMsOff},
		{ID: "seed", Path: "seed", Label: "Seed", Group: GroupRun, Kind: "number",
			Tip: "The random seed: the same seed and knobs give the same run, number for number.", format: func(v string) string { return v }},
		{ID: "duration", Path: "duration_ms", Label: "Duration", Group: GroupRun, Kind: "range",
			Tip:    "Simulated time the run lasts; metrics are measured after the warm-up.",
			Ladder: []int64{100, 200, 500, 1000, 2000, 5000, 10_000, 14_000, 20_000, 30_000, 60_000, 120_000}, format: fmtMs},
	}
}

// Controls returns the control table with select options narrowed to the values
// the engine accepts on base, and controls for knobs the engine does not know (a
// WAKE_SYNC rule before sched_ext exists) left out. New engine values thus appear
// in the page without changing it, as long as they are among the candidates.
func Controls(base engine.Scenario) []Control {
	var out []Control
	for _, c := range controlTable() {
		if _, known := engine.LookupKnob(c.Path); !known {
			continue
		}
		if c.Kind == "select" {
			for _, o := range c.candidates {
				if accepts(base, c.Path, o.Value) {
					c.Options = append(c.Options, o)
				}
			}
			if len(c.Options) == 0 {
				continue
			}
			c.format = optionLabel(c.Options)
		}
		out = append(out, c)
	}
	return out
}

// accepts reports whether the engine accepts value for a select's knob on sc. The
// select knobs are set on a copy and validated directly: decoding JSON for each
// candidate is slow in the browser's first seconds.
func accepts(sc engine.Scenario, path, value string) bool {
	switch path {
	case "sched.policy":
		sc.Sched.Policy = value
	case "sched.wake_sync":
		sc.Sched.WakeSync = value
	case "machine.platform":
		sc.Machine.Platform = value
	default:
		_, err := sc.WithKnobs(path + "=" + value)
		return err == nil
	}
	return sc.Validate() == nil
}

func optionLabel(opts []Option) func(string) string {
	return func(v string) string {
		for _, o := range opts {
			if o.Value == v {
				return o.Label
			}
		}
		return v
	}
}

// ControlValue is a control's current state, sent to the page with every UI update.
type ControlValue struct {
	ID string `json:"id"`
	// Value is the knob value as the engine reads it.
	Value string `json:"value"`
	// Display is the value with its unit ("100 000 iter", "200 µs", "on").
	Display string `json:"display"`
	// Index and Ladder drive a range slider (positions 0..len-1).
	Index  int     `json:"index"`
	Ladder []int64 `json:"ladder,omitzero"`
	// Locked says the control is compared in both arms (it shows each arm's value).
	Locked bool   `json:"locked,omitzero"`
	Note   string `json:"note,omitzero"`
}

// valueOf reads a control's value from knob values (see knobValues).
func (c *Control) valueOf(vals map[string]string) ControlValue {
	v := vals[c.Path]
	cv := ControlValue{ID: c.ID, Value: v, Display: v}
	if c.format != nil {
		cv.Display = c.format(v)
	}
	if c.Kind == "range" {
		n, _ := strconv.ParseInt(v, 10, 64)
		l := c.Ladder
		i, found := slices.BinarySearch(l, n)
		if !found {
			l = slices.Insert(slices.Clone(l), i, n)
		}
		cv.Ladder, cv.Index = l, i
	}
	if c.Kind == "toggle" {
		cv.Value = "0"
		if v == "true" {
			cv.Value = "1"
		}
	}
	return cv
}

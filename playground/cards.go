package playground

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"schedplay/engine"
	"schedplay/view"
)

// Card is a headline metric: A's value, B's and the change in compare mode.
type Card struct {
	ID     string `json:"id"`
	Label  string `json:"label"`
	A      string `json:"a"`
	B      string `json:"b,omitzero"`
	Change string `json:"change,omitzero"`
	// Verdict is "better", "worse" or "" for the change.
	Verdict string `json:"verdict,omitzero"`
	Note    string `json:"note,omitzero"`
	// Published is the source's measured figure(s) for the same settings.
	Published string `json:"published,omitzero"`
}

// metric describes a headline card.
type metric struct {
	id, label string
	// higher is +1 when more is better, -1 when less is, 0 when neither.
	higher int
	value  func(r engine.Results, a *Arm) float64
	format func(v float64, a *Arm) string
	note   func(arms []*Arm) string
	// published is the key of the metric in a scenario's published values.
	published string
	// kvmOnly marks a view from the KVM host, shown when an arm runs on KVM.
	kvmOnly bool
}

// metrics are the headline cards for a workload: a finite run (hackbench) is
// judged by how long it took, a server by its throughput.
func metrics(kind string) []metric {
	vcpus := func(v float64, _ *Arm) string { return view.VCPUs(v) }
	compact := func(v float64, _ *Arm) string { return view.Compact(v) }
	first := metric{id: "throughput", label: "throughput /s", higher: +1,
		value: func(r engine.Results, _ *Arm) float64 { return r.ThroughputPerS }, format: compact, published: "throughput_per_s"}
	p99Label := "p99 latency"
	if kind == engine.WorkloadHackbench {
		// A hackbench run's "latency" is when each task finished, from the start.
		p99Label = "p99 task finish"
		first = metric{id: "elapsed", label: "run time", higher: -1,
			value: func(r engine.Results, _ *Arm) float64 {
				if r.ElapsedS == 0 {
					return math.NaN()
				}
				return r.ElapsedS
			},
			format: func(v float64, _ *Arm) string { return view.Duration(v * 1e9) },
			note: func(arms []*Arm) string {
				for _, a := range arms {
					if a.Results().ElapsedS == 0 {
						return "running"
					}
				}
				return ""
			}, published: "elapsed_s"}
	}
	return []metric{
		first,
		{id: "busy", label: "busy vCPUs", value: func(r engine.Results, _ *Arm) float64 { return r.BusyVCPUsMean }, format: vcpus,
			note: func(arms []*Arm) string { return fmt.Sprintf("of %d", arms[0].Sc.Machine.VCPUs) }, published: "busy_vcpus_mean"},
		// What the host sees of the vCPU threads: one that spins in the guest's
		// idle loop or that the host halt-polls is busy too, as the published
		// busy-vCPU figures were measured.
		{id: "busy-host", label: "busy vCPUs (host)", value: func(r engine.Results, _ *Arm) float64 { return r.BusyVCPUsHostMean }, format: vcpus,
			note: func(arms []*Arm) string {
				return fmt.Sprintf("of %d · incl. spin and host polling", arms[0].Sc.Machine.VCPUs)
			},
			published: "busy_vcpus_host_mean", kvmOnly: true},
		{id: "p99", label: p99Label, higher: -1,
			value: func(r engine.Results, _ *Arm) float64 {
				if r.LatencyUs.P99 == 0 {
					return math.NaN() // nothing completed yet
				}
				return r.LatencyUs.P99
			},
			format: func(v float64, _ *Arm) string { return view.Duration(v * 1e3) }, published: "latency_us.p99"},
		{id: "idle-over", label: "idle while overloaded", higher: -1,
			value:  func(r engine.Results, _ *Arm) float64 { return r.IdleWhileOverloadedFrac },
			format: func(v float64, _ *Arm) string { return view.Percent(v) },
			note: func(arms []*Arm) string {
				// The running counter: vCPU time spent idle while a runqueue waited.
				var parts []string
				for i, a := range arms {
					d := view.Duration(float64(a.Snap.Live.IdleOverNs))
					if len(arms) > 1 {
						d = string(rune('A'+i)) + " " + d
					}
					parts = append(parts, d)
				}
				return "of vCPU time · " + strings.Join(parts, " · ") + " so far"
			}, published: "idle_while_overloaded_frac"},
		{id: "ipis", label: "IPIs /s", value: func(r engine.Results, _ *Arm) float64 { return r.IPIsPerS.Total }, format: compact,
			published: "ipis_per_s.total"},
		// A halt is a VM exit only under a hypervisor; on bare metal it costs no
		// exit, and the card would name something that does not happen.
		{id: "halts", label: "halt VM exits /s", higher: -1, value: func(r engine.Results, _ *Arm) float64 { return r.HaltExitsPerS },
			format: compact, published: "halt_exits_per_s", kvmOnly: true},
	}
}

// cards builds the headline cards from the results each arm shows.
func (m *Model) cards(rs []engine.Results) []Card {
	var cards []Card
	onKVM := slices.ContainsFunc(m.arms, func(a *Arm) bool { return a.Sc.Machine.Platform == "kvm" })
	for _, mt := range metrics(m.setup.base.Workload.Kind) {
		if mt.kvmOnly && !onKVM {
			continue
		}
		c := Card{ID: mt.id, Label: mt.label}
		va := mt.value(rs[0], m.arms[0])
		c.A = fmtMetric(mt, va, m.arms[0])
		if mt.note != nil {
			c.Note = mt.note(m.arms)
		}
		// The published figures for the same settings, beside the model's.
		var pubs []string
		for _, a := range m.arms {
			if v, ok := a.published[mt.published]; ok {
				pubs = append(pubs, fmtMetric(mt, v, a))
			} else {
				pubs = append(pubs, "")
			}
		}
		switch {
		case len(pubs) == 2 && pubs[0] != "" && pubs[1] != "":
			c.Published = pubs[0] + " → " + pubs[1]
		case len(pubs) == 2 && (pubs[0] != "" || pubs[1] != ""):
			c.Published = "A " + cmp.Or(pubs[0], "–") + " · B " + cmp.Or(pubs[1], "–")
		case len(pubs) == 1 && pubs[0] != "":
			c.Published = pubs[0]
		}
		if len(m.arms) > 1 {
			vb := mt.value(rs[1], m.arms[1])
			c.B = fmtMetric(mt, vb, m.arms[1])
			// A change between values the card shows alike (an idle guest's
			// "<0.1% -> <0.1%") is below what the card can show, and would read
			// as a contradiction.
			if c.A != c.B {
				c.Change = view.Change(va, vb)
			}
			if c.Change != "" && mt.higher != 0 && math.Abs(vb-va) > 0.02*math.Abs(va) {
				if (vb > va) == (mt.higher > 0) {
					c.Verdict = "better"
				} else {
					c.Verdict = "worse"
				}
			}
		}
		cards = append(cards, c)
	}
	return cards
}

func fmtMetric(mt metric, v float64, a *Arm) string {
	if math.IsNaN(v) {
		return "–"
	}
	return mt.format(v, a)
}

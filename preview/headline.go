package preview

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"schedplay/docs"
	"schedplay/engine"
	"schedplay/view"
)

// Metric is one headline number of a preview, as the share card and the link
// description show it: the headline metric table's entry (view.Metrics), its
// values written by the table's rules (the text the page's cards show), and
// the evidence beside them: the published figures for the same settings and
// the calibration's verdict.
type Metric struct {
	Def view.MetricDef
	view.Shown
	docs.Evidence
}

// kvm says whether an arm runs under KVM (the host's metrics apply). A record
// made before the platform was stored says nothing; its card showed every
// metric, as it still does.
func (p *Preview) kvm() bool { return p.Platform != "native" }

// Headline returns the metrics the share card shows (view.CardMetrics).
func (p *Preview) Headline() []Metric {
	if len(p.Arms) == 0 { // the policy did not compile (PolicyError): nothing ran
		return nil
	}
	rs := make([]*engine.Results, len(p.Arms))
	pubs := make([]map[string]float64, len(p.Arms))
	points := make([]*docs.Point, len(p.Arms))
	for i := range p.Arms {
		rs[i], pubs[i], points[i] = &p.Arms[i].Results, p.Arms[i].Published, p.Arms[i].Calibrated
	}
	reached := int64(math.Round(p.ReachedMs * 1e6))
	var out []Metric
	// A stored preview has its arms' results, which say whether the runs took
	// row locks (the card's four are the same either way).
	locks := slices.ContainsFunc(p.Arms, func(a Arm) bool { return a.Results.RowLocks.TPCBScale > 0 })
	for _, d := range view.CardMetrics(p.Workload, view.Shows{KVM: p.kvm(), RowLocks: locks}) {
		out = append(out, Metric{Def: d, Shown: d.Show(reached, rs...), Evidence: docs.EvidenceFor(&d, pubs, points)})
	}
	return out
}

// Title names the preview: the scenario and, in a comparison, its two arms and
// the knobs that differ between them.
func (p *Preview) Title() string {
	name := p.Name
	if name == "" {
		name = fmt.Sprintf("%d vCPUs, %s", p.VCPUs, p.Workload)
	}
	name = view.Clip(name, 60)
	if p.Policy != "" {
		name += " · custom policy: " + p.Policy
	}
	if p.PolicyError != nil {
		return name + " (does not compile)"
	}
	if len(p.Arms) < 2 {
		return name
	}
	t := name + ": " + p.ArmLabel(0) + " vs " + p.ArmLabel(1)
	switch n := len(p.Compared); {
	case n == 1:
		t += " (" + p.Compared[0].Path + ")"
	case n == 2:
		t += " (" + p.Compared[0].Path + ", " + p.Compared[1].Path + ")"
	case n > 2:
		t += fmt.Sprintf(" (%d knobs)", n)
	}
	return t
}

// ArmLabel is arm i's name, or its letter when it has none.
func (p *Preview) ArmLabel(i int) string {
	if n := p.Arms[i].Name; n != "" {
		return view.Clip(n, 40)
	}
	return string(rune('A' + i))
}

// Machine describes what every arm runs: "32 vCPUs · request_server · 64 clients".
func (p *Preview) Machine() string {
	parts := []string{fmt.Sprintf("%d vCPUs", p.VCPUs), p.Workload}
	if p.Clients > 0 && p.Workload != engine.WorkloadHackbench && p.Workload != engine.WorkloadIdle {
		parts = append(parts, fmt.Sprintf("%d clients", p.Clients))
	}
	return strings.Join(parts, " · ")
}

// Coverage says what simulated time the numbers cover: the measured window of
// a complete run, or the prefix a bounded one reached.
func (p *Preview) Coverage() string {
	if p.Complete {
		return "measured " + view.Seconds(p.FromMs) + "–" + view.Seconds(p.ToMs) + " of simulated time"
	}
	return "first " + view.Seconds(p.ReachedMs) + " of " + view.Seconds(p.HorizonMs) + " simulated"
}

// Description is the headline result in one line, said to be the model's,
// then the published figures beside it and the calibration's verdict on them:
// "In the model, pull on: 2.6x throughput, mean latency 5.78 ms → 2.22 ms
// (first 3.6 s of 24 s simulated). Published: throughput 7.82k → 22.7k; the
// model does not reproduce this change: model 1.10x (calibration median) vs published 2.91x."
func (p *Preview) Description() string {
	if e := p.PolicyError; e != nil {
		return "The custom policy does not compile, so the model did not run: " + e.Message + ". Open the link to edit it."
	}
	ms := p.Headline()
	var parts []string
	var evidence *Metric
	for i, m := range ms[:min(2, len(ms))] {
		switch {
		case len(p.Arms) < 2:
			parts = append(parts, m.Def.Short+" "+m.A)
		case m.Def.Ratio && strings.HasSuffix(m.Change, "x"):
			parts = append(parts, m.Change+" "+m.Def.Short)
		default:
			s := m.Def.Short + " " + m.A + " → " + m.B
			if m.Change != "" {
				s += " (" + m.Change + ")"
			}
			parts = append(parts, s)
		}
		if evidence == nil && m.Published != "" {
			evidence = &ms[i]
		}
	}
	lead := p.Machine()
	if len(p.Arms) == 2 {
		lead = p.ArmLabel(1)
	}
	d := "In the model, " + lead + ": " + strings.Join(parts, ", ")
	if !p.Complete {
		d += " (" + p.Coverage() + ")"
	}
	d += "."
	switch {
	case evidence == nil:
	case evidence.Trust != nil:
		d += " Published: " + evidence.Def.Short + " " + evidence.Published + "; " + evidence.Trust.Sentence + "."
	default:
		d += " Published for these settings: " + evidence.Def.Short + " " + evidence.Published + "."
	}
	for i := range p.Arms {
		at, reason, ok := p.ejection(i)
		if !ok {
			continue
		}
		x := "Policy ejected at " + at + ", tasks back on the fair class: " + reason
		if len(p.Arms) == 2 {
			x = p.ArmLabel(i) + ": policy ejected at " + at + ", tasks back on the fair class: " + reason
		}
		d += " " + strings.TrimSuffix(x, ".") + "."
	}
	return d
}

package playground

import (
	"fmt"
	"slices"
	"strings"

	"schedplay/docs"
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
	// Trust is the calibration's verdict on the model at these settings: how
	// far to trust the number. It is absent for a run the calibration did not
	// cover (one whose settings a user changed).
	Trust *CardTrust `json:"trust,omitzero"`
}

// CardTrust is the calibration's verdict as a card shows it (docs.Trust).
type CardTrust struct {
	// Class is hit, direction, miss or fitted (docs.Class); Mark its sign,
	// Short its words ("direction only"), for an embed's narrow card.
	Class string `json:"class"`
	Mark  string `json:"mark"`
	Short string `json:"short"`
	// Text says it in full: "the model reproduces the direction, not the
	// size: model 0.10x (calibration median) vs published 0.26x".
	Text string `json:"text"`
	// Why is the calibration's reason for a miss; Link the section of the
	// model notes that explains the result.
	Why  string `json:"why,omitzero"`
	Link string `json:"link"`
}

// cardNote is what a card says under its value on the page (the share card
// has no room for it), by metric ID.
func cardNote(id string, arms []*Arm) string {
	vcpus := arms[0].Sc.Machine.VCPUs
	switch id {
	case "elapsed":
		for _, a := range arms {
			if a.Results().ElapsedS == 0 {
				return "still running"
			}
		}
	case "busy":
		return fmt.Sprintf("of %d", vcpus)
	case "replayed":
		return "of the CPU time the trace records"
	case "fairness":
		return "Jain's index over the workers' CPU time · 1 = all equal"
	case "wait-max", "wait-p99":
		return "runnable until switched in"
	case "busy-host":
		return fmt.Sprintf("of %d · incl. spin and host polling", vcpus)
	case "idle-over":
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
	}
	return ""
}

// cards builds the headline cards from the results each arm shows, through
// the headline metric table the share card reads too (view.Metrics), so the
// same results read the same on both, and with the same evidence beside them
// (docs.EvidenceFor).
func (m *Model) cards(rs []engine.Results) []Card {
	shows := view.Shows{
		KVM:      slices.ContainsFunc(m.arms, func(a *Arm) bool { return a.Sc.Machine.Platform == "kvm" }),
		RowLocks: slices.ContainsFunc(m.arms, func(a *Arm) bool { return a.Sc.Workload.TPCBScale > 0 }),
		Deadline: slices.ContainsFunc(rs, func(r engine.Results) bool {
			return slices.ContainsFunc(r.RTApp.Tasks, func(t engine.RTAppTaskResults) bool { return t.Class == "dl" })
		}),
	}
	shown := make([]*engine.Results, len(rs))
	for i := range rs {
		shown[i] = &rs[i]
	}
	pubs := make([]map[string]float64, len(m.arms))
	points := make([]*docs.Point, len(m.arms))
	for i, a := range m.arms {
		pubs[i], points[i] = a.published, a.calibrated
	}
	var cards []Card
	for _, d := range view.Metrics(m.setup.base.Workload.Kind, shows) {
		s := d.Show(m.pipe.shownNs, shown...)
		e := docs.EvidenceFor(&d, pubs, points)
		c := Card{ID: d.ID, Label: d.Label, A: s.A, B: s.B, Change: s.Change, Verdict: string(s.Verdict),
			Note: cardNote(d.ID, m.arms), Published: e.Published}
		if t := e.Trust; t != nil {
			c.Trust = &CardTrust{Class: string(t.Class), Mark: t.Mark, Short: t.Short, Text: t.Sentence, Why: t.Why, Link: t.Link}
		}
		cards = append(cards, c)
	}
	return cards
}

package docs

import (
	"cmp"

	"schedplay/view"
)

// How a number says how far to trust it. Beside a model number that the
// calibration judged (verdicts.json), every surface says the same: whether the
// model reproduces the published result, the model's median over the
// calibration's runs against the published value, and where the model notes
// say why. The page's cards, the share card and the link description all
// write it from here, in view's formats. (It is here rather than in view so
// that view, which the engine worker links, does not carry the table.)

// Trust is the calibration's verdict on one number, written out.
type Trust struct {
	Class Class
	// Mark is the verdict in one character: ✓ reproduced, ≈ the direction
	// only, ✗ not reproduced, ○ fitted (not counted).
	Mark string
	// Short is the verdict in a few words ("direction only"), for the share
	// card; Sentence in full, for the page and the link description.
	Short, Sentence string
	// Model is the model's median over the calibration's runs, Published the
	// published value, both as written ("1.10x" and "2.91x" for a change).
	Model, Published string
	// Why is the calibration's reason for a miss; Link the model notes
	// section that explains the result.
	Why, Link string
}

// ChangeTrust writes the verdict on a published A/B change.
func ChangeTrust(c Change) Trust {
	t := Trust{Class: c.Class, Published: view.Ratio(c.Published), Model: "–", Why: c.Why, Link: notesLink(c.Section)}
	if c.Model != nil {
		t.Model = view.Ratio(*c.Model)
	}
	var phrase string
	switch c.Class {
	case Hit:
		t.Mark, t.Short, phrase = "✓", "reproduced", "the model reproduces this change"
		if c.Direction == "wash" {
			phrase = "the model reproduces this: no real change"
		}
	case Direction:
		t.Mark, t.Short, phrase = "≈", "direction only", "the model reproduces the direction, not the size"
	default:
		t.Mark, t.Short, phrase = "✗", "not reproduced", "the model does not reproduce this change"
	}
	t.Sentence = phrase + ": model " + t.Model + " (calibration median) vs published " + t.Published
	return t
}

// FigureTrust writes the verdict on a published figure, its values written by
// format (the metric's).
func FigureTrust(f Figure, format func(float64) string) Trust {
	t := Trust{Class: f.Class, Published: format(f.Published), Model: "–", Why: f.Why, Link: notesLink(f.Section)}
	if f.Model != nil {
		t.Model = format(*f.Model)
	}
	var phrase string
	switch f.Class {
	case Hit:
		t.Mark, t.Short, phrase = "✓", "right size", "the model's figure is of the published size"
	case Fitted:
		t.Mark, t.Short, phrase = "○", "fitted, not counted", "fitted to a published figure, so it cannot confirm the model"
	default:
		t.Mark, t.Short, phrase = "✗", "wrong size", "the model's figure is not of the published size"
	}
	t.Sentence = phrase + ": model " + t.Model + " (calibration median) vs published " + t.Published
	return t
}

func notesLink(section string) string {
	if section == "" {
		return NotesPath
	}
	return NotesPath + "#" + section
}

// Evidence is what a surface shows beside a metric's model numbers: the
// published figures for the same settings and, for a run the calibration
// covered, its verdict.
type Evidence struct {
	// Published is the published value of each arm, "7.82k → 22.7k" (or "A
	// 7.82k · B –" when only one arm has one), "" when none has.
	Published string
	// Trust is the calibration's verdict, nil for a run it did not cover (one
	// whose settings a user changed): in a comparison the verdict on the
	// change, for one run the verdict on its figure.
	Trust *Trust
}

// EvidenceFor finds the evidence for metric d. published holds each arm's
// published figures by metric key (PublishedSet.Figures), points each arm's
// calibrated point (nil when the calibration did not run the arm's settings).
func EvidenceFor(d *view.MetricDef, published []map[string]float64, points []*Point) Evidence {
	var e Evidence
	pubs := make([]string, len(published))
	have := 0
	for i, p := range published {
		if v, ok := p[d.Key]; ok {
			pubs[i] = d.Format(v)
			have++
		}
	}
	switch {
	case have == 0:
	case len(pubs) == 1:
		e.Published = pubs[0]
	case have == len(pubs):
		e.Published = pubs[0] + " → " + pubs[1]
	default:
		e.Published = "A " + cmp.Or(pubs[0], "–") + " · B " + cmp.Or(pubs[1], "–")
	}
	switch {
	case len(points) == 2 && points[0] != nil && points[1] != nil:
		if c, ok := points[1].Change(points[0], d.Key); ok {
			t := ChangeTrust(c)
			e.Trust = &t
		}
	case len(points) == 1 && points[0] != nil:
		if f, ok := points[0].Figure(d.Key); ok {
			t := FigureTrust(f, d.Format)
			e.Trust = &t
		}
	}
	return e
}

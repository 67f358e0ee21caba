// Package docs holds what the generated documents in this directory give the
// programs: the calibration's verdict table (verdicts.json), which says, for
// every published figure and A/B change of every example, whether the model
// reproduces it. `schedplay calibrate` writes it from the same judgement
// calibration.md shows; it is embedded so the page's cards and a share's link
// preview can say, beside a number, how far to trust it.
package docs

import (
	"bytes"
	_ "embed"
	"fmt"
	"io/fs"

	"github.com/go-json-experiment/json"

	"schedplay/engine"
	"schedplay/examples"
)

// verdictsJSON is verdicts.json (a string: the embedded bytes cannot be
// changed).
//
//go:embed verdicts.json
var verdictsJSON string

// NotesPath is where the model notes (model-notes.md, rendered by `schedplay
// calibrate` into static/notes/) are served, by `schedplay serve` and as the
// Cloudflare Worker's static assets alike; a verdict's Section is an anchor
// in that page.
const NotesPath = "/notes/model-notes.html"

// Table is verdicts.json.
type Table struct {
	// Fingerprint is that of the calibration record the verdicts were judged
	// from (calibration.json).
	Fingerprint string  `json:"fingerprint"`
	Points      []Point `json:"points"`

	// examples holds the scenarios the points are configurations of;
	// configs[i] is point i's configuration (runConfig), made on the first
	// Lookup.
	examples fs.FS
	configs  [][]byte
}

// Class is a verdict.
type Class string

const (
	// Hit: a change had the published direction in every run and its median is
	// in band in each window; a figure's median is in band in each window.
	Hit Class = "hit"
	// Direction: a change had the published direction in every run, but its
	// size is out of band.
	Direction Class = "direction"
	// Miss: a change went another way in some run; a figure is out of band.
	Miss Class = "miss"
	// Fitted: a figure of a scenario whose workload was fitted to a published
	// number; it cannot confirm the model and is not counted.
	Fitted Class = "fitted"
)

// Point is one published point as calibration ran it: the example with the
// point's arm and settings, in the example's own seed, horizon and window.
type Point struct {
	// ID names the point: its example's file and its index in the example's
	// published list ("tpcb-32vcpu.json#7").
	ID string `json:"id"`
	// Case is the example's name, Label the point's ("pull off,
	// workload.clients=64").
	Case  string `json:"case"`
	Label string `json:"label"`
	// File and Sets are the configuration calibration ran: examples/File with
	// the knob settings Sets ("path=value": the arm's, then the point's own).
	// A run has this point's verdicts only when it is exactly that
	// configuration.
	File string   `json:"file"`
	Sets []string `json:"sets,omitzero"`
	// Figures are the point's published figures, Changes its A/B changes as
	// the later arm B against an earlier arm A.
	Figures []Figure `json:"figures,omitzero"`
	Changes []Change `json:"changes,omitzero"`
}

// Verdict is what every row says: the class, why it is not a hit, and the
// section of the model notes that explains it.
type Verdict struct {
	Class Class `json:"class"`
	// Why is the calibration's reason for a miss ("not up in 50 of 50 runs").
	Why string `json:"why,omitzero"`
	// Section is the anchor, in the notes page, of the section about this
	// result ("" when the notes have none).
	Section string `json:"section,omitzero"`
}

// Figure is a published figure against the model.
type Figure struct {
	// Metric is the results' dotted name ("throughput_per_s").
	Metric    string  `json:"metric"`
	Published float64 `json:"published"`
	// Model is the model's median over the calibration's runs in the example's
	// window (absent when no run measured it).
	Model *float64 `json:"model,omitzero"`
	Verdict
}

// Change is a published A/B change (B / A of one metric) against the model's.
type Change struct {
	// Against is arm A's point (its ID); the Point holding the change is B.
	Against string `json:"against"`
	Metric  string `json:"metric"`
	// Published is the published B / A; Direction its direction in the
	// calibration's terms (up, down, or wash within ±15%).
	Published float64 `json:"published"`
	Direction string  `json:"direction"`
	// Model is the model's median B / A over the calibration's runs in the
	// example's window (absent when no run measured it).
	Model *float64 `json:"model,omitzero"`
	Verdict
}

// Load decodes the embedded table, whose points are configurations of the
// embedded examples.
func Load() (Table, error) {
	var t Table
	if err := json.Unmarshal([]byte(verdictsJSON), &t, json.RejectUnknownMembers(true)); err != nil {
		return Table{}, fmt.Errorf("docs/verdicts.json: %w", err)
	}
	t.examples = examples.FS
	return t, nil
}

// Lookup returns the point a run of sc is, or nil when the calibration did
// not run that configuration (a scenario whose settings a user changed). The
// configurations are compared whole, so no scenario can pass for another;
// the first Lookup decodes them (a few milliseconds), later ones compare.
func (t *Table) Lookup(sc engine.Scenario) *Point {
	if t.configs == nil && t.examples != nil {
		t.configs = make([][]byte, len(t.Points))
		for i, p := range t.Points {
			data, err := fs.ReadFile(t.examples, p.File)
			if err != nil {
				continue // an example removed since: nothing runs it
			}
			if psc, err := engine.DecodeScenario(data, p.Sets...); err == nil {
				t.configs[i] = runConfig(psc)
			}
		}
	}
	want := runConfig(sc)
	for i, c := range t.configs {
		if c != nil && bytes.Equal(c, want) {
			return &t.Points[i]
		}
	}
	return nil
}

// Point returns the point with the given ID ("tpcb-32vcpu.json#7"), or nil.
func (t *Table) Point(id string) *Point {
	for i := range t.Points {
		if t.Points[i].ID == id {
			return &t.Points[i]
		}
	}
	return nil
}

// ChangeOf returns point id's verdict on its published change of metric
// against point against, by their IDs.
func (t *Table) ChangeOf(id, against, metric string) (Change, bool) {
	p, a := t.Point(id), t.Point(against)
	if p == nil || a == nil {
		return Change{}, false
	}
	return p.Change(a, metric)
}

// Figure returns the point's verdict on a published figure.
func (p *Point) Figure(metric string) (Figure, bool) {
	for _, f := range p.Figures {
		if f.Metric == metric {
			return f, true
		}
	}
	return Figure{}, false
}

// Change returns the point's verdict on a published change against point a.
func (p *Point) Change(a *Point, metric string) (Change, bool) {
	for _, c := range p.Changes {
		if c.Against == a.ID && c.Metric == metric {
			return c, true
		}
	}
	return Change{}, false
}

// runConfig is what a run of sc simulates: the scenario's canonical JSON
// without its name, description, arms, published points and fitted notes,
// which label and judge a run without changing it. Two scenarios with the same
// configuration give the same results.
func runConfig(sc engine.Scenario) []byte {
	sc.Name, sc.Description, sc.Arms, sc.Published, sc.Fitted = "", "", nil, nil, nil
	data, err := sc.Canonical()
	if err != nil {
		return nil // a decoded scenario always encodes; nil matches nothing
	}
	return data
}

// SameRun reports whether a and b simulate the same run (runConfig).
func SameRun(a, b engine.Scenario) bool {
	ca := runConfig(a)
	return ca != nil && bytes.Equal(ca, runConfig(b))
}

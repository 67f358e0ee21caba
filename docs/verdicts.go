// Package docs holds what the generated documents in this directory give the
// programs: the calibration's verdict table (verdicts.json), which says, for
// every published figure and A/B change of every example, whether the model
// reproduces it. `schedplay calibrate` writes it from the same judgement
// calibration.md shows; it is embedded so the page's cards and a share's link
// preview can say, beside a number, how far to trust it.
package docs

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"

	"github.com/go-json-experiment/json"

	"schedplay/engine"
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
	// Key identifies the point's configuration (ConfigKey): a run has this
	// point's verdicts only when it is exactly that configuration.
	Key string `json:"key"`
	// Case is the example's name, Label the point's ("pull off,
	// workload.clients=64").
	Case  string `json:"case"`
	Label string `json:"label"`
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
	// Against is arm A's point (its Key); the Point holding the change is B.
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

// Load decodes the embedded table.
func Load() (Table, error) {
	var t Table
	if err := json.Unmarshal([]byte(verdictsJSON), &t, json.RejectUnknownMembers(true)); err != nil {
		return Table{}, fmt.Errorf("docs/verdicts.json: %w", err)
	}
	return t, nil
}

// Lookup returns the point a run of sc is, or nil when the calibration did
// not run that configuration (a scenario whose settings a user changed).
func (t *Table) Lookup(sc engine.Scenario) *Point {
	key := ConfigKey(sc)
	for i := range t.Points {
		if t.Points[i].Key == key {
			return &t.Points[i]
		}
	}
	return nil
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
		if c.Against == a.Key && c.Metric == metric {
			return c, true
		}
	}
	return Change{}, false
}

// ConfigKey digests what a run of sc simulates: every field of the scenario
// but its name, description, arms, published points and fitted notes, which
// label and judge a run without changing it. Two scenarios with the same key
// give the same results.
func ConfigKey(sc engine.Scenario) string {
	sc.Name, sc.Description, sc.Arms, sc.Published, sc.Fitted = "", "", nil, nil, nil
	data, err := sc.Canonical()
	if err != nil {
		// A decoded scenario always encodes; one that does not has no key
		// any point could have.
		return "unencodable: " + err.Error()
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:12])
}

package playground

import (
	"schedplay/docs"
	"schedplay/engine"
	"schedplay/view"
)

// publishedSet is a scenario's published figures, matched against an arm's
// settings by the rule the share card uses too (view.PublishedSet), and the
// calibration's verdicts (docs/verdicts.json), found for an arm whose run is
// a configuration the calibration ran.
type publishedSet struct {
	set   view.PublishedSet
	table docs.Table
}

func newPublishedSet(sc engine.Scenario) publishedSet {
	// The embedded table is checked when the package is tested (docs); were
	// it unreadable, the cards would show the published figures only.
	table, _ := docs.Load()
	return publishedSet{view.NewPublishedSet(sc), table}
}

// figures returns, by metric key ("throughput_per_s"), the published value of
// the first point whose settings all match vals.
func (ps publishedSet) figures(vals *knobReader) map[string]float64 {
	return ps.set.Figures(vals.get)
}

// calibrated returns the calibration's point a run of sc is, or nil when the
// calibration did not run that configuration.
func (ps publishedSet) calibrated(sc engine.Scenario) *docs.Point {
	return ps.table.Lookup(sc)
}

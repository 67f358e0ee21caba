package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"schedplay/docs"
)

// The documents calibrate writes from the judged runs, besides the record:
// calibration.md, the verdict table docs/verdicts.json that the page and the
// share card embed (package docs), and the notes pages the verdicts link to.
// They are rendered together, by the full run and from the record alike
// (--render, --check), so they never disagree.

// calFile is one document calibrate writes: its path and content.
type calFile struct {
	path string
	data []byte
}

// calDocuments renders every document from the judged cases. out is the
// markdown file (--out); the verdict table goes beside it, and when the model
// notes are beside it too, they and the documents they link to are rendered
// into notesDir.
func calDocuments(cases []*calCase, plan calPlan, fp, out, notesDir string) ([]calFile, error) {
	md := renderCalibration(cases, plan, fp)
	files := []calFile{{path: out, data: md}}
	dir := filepath.Dir(out)
	notes, err := os.ReadFile(filepath.Join(dir, notesSource))
	haveNotes := err == nil
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	var markers []notesMarker
	if haveNotes {
		if markers, err = notesMarkers(notes, cases); err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, notesSource), err)
		}
	}
	table := verdictTable(cases, fp, markers)
	vt, err := json.Marshal(table, jsontext.WithIndentPrefix(""), jsontext.WithIndent(" "), json.Deterministic(true))
	if err != nil {
		return nil, err
	}
	files = append(files, calFile{path: filepath.Join(dir, "verdicts.json"), data: append(vt, '\n')})
	if !haveNotes {
		return files, nil
	}
	for _, name := range notesPages {
		src := md
		if name != filepath.Base(out) {
			if src, err = os.ReadFile(filepath.Join(dir, name)); os.IsNotExist(err) {
				continue
			} else if err != nil {
				return nil, err
			}
		}
		page, err := renderNotesPage(name, src)
		if err != nil {
			return nil, fmt.Errorf("rendering %s: %w", name, err)
		}
		files = append(files, calFile{path: filepath.Join(notesDir, strings.TrimSuffix(name, ".md")+".html"), data: page})
	}
	return files, nil
}

// verdictTable is docs/verdicts.json: every point (the configuration
// calibration ran: its example and knob settings), its figures and changes with
// the verdicts the document gives them, judged by the same rows
// (judgeFigure, judgeChange), and the notes section that explains each.
func verdictTable(cases []*calCase, fp string, markers []notesMarker) docs.Table {
	t := docs.Table{Fingerprint: fp}
	for _, c := range cases {
		byPoint := map[*calPoint]int{}
		// Points of one example with the same settings are one run (a relative
		// point and an absolute figure of the same arm): they are one point of
		// the table, the first's, so that a run looks up to all its verdicts.
		bySets := map[string]int{}
		for _, p := range c.points {
			key := strings.Join(p.sets, "\x00")
			j, seen := bySets[key]
			if !seen {
				j = len(t.Points)
				bySets[key] = j
				t.Points = append(t.Points, docs.Point{ID: fmt.Sprintf("%s#%d", c.file, p.index), Case: c.sc.Name,
					Label: pointLabel(p.pub.Arm, p.own), File: c.file, Sets: p.sets})
			}
			for _, name := range figureNames(p) {
				row := judgeFigure(c, p, name)
				f := docs.Figure{Metric: name, Published: row.pub, Model: median(row.byWindow),
					Verdict: docs.Verdict{Class: figureClass(row), Why: row.why,
						Section: sectionOf(markers, notesRow{caseName: c.sc.Name, metric: name, kind: "figures", own: p.own})}}
				t.Points[j].Figures = append(t.Points[j].Figures, f)
			}
			byPoint[p] = j
		}
		for _, pr := range abPairs(c) {
			b := &t.Points[byPoint[pr.b]]
			for _, name := range sortedMetricNames(pr.b.pub.Values) {
				if _, ok := pr.a.pub.Values[name]; !ok {
					continue
				}
				row := judgeChange(c, pr, name)
				b.Changes = append(b.Changes, docs.Change{Against: t.Points[byPoint[pr.a]].ID, Metric: name,
					Published: row.pub, Direction: direction(row.pub), Model: median(row.byWindow),
					Verdict: docs.Verdict{Class: changeClass(row), Why: row.why,
						Section: sectionOf(markers, notesRow{caseName: c.sc.Name, metric: name, kind: "changes", own: pr.b.own})}})
			}
		}
	}
	return t
}

// median is the first window's median (the example's own window, or the
// whole run of a finite workload), nil when no run measured it.
func median(sp []spread) *float64 {
	if len(sp) == 0 || math.IsNaN(sp[0].median) || math.IsInf(sp[0].median, 0) {
		return nil
	}
	v := sp[0].median
	return &v
}

// changeClass reads a judged change: a hit; the published direction in every
// run but a size out of band; or a miss.
func changeClass(row changeRow) docs.Class {
	switch {
	case row.hit:
		return docs.Hit
	case row.wrongDir == 0 && direction(row.pub) != "n/a":
		return docs.Direction
	}
	return docs.Miss
}

func figureClass(row figureRow) docs.Class {
	switch {
	case row.fitted:
		return docs.Fitted
	case row.hit:
		return docs.Hit
	}
	return docs.Miss
}

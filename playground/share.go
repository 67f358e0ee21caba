package playground

// What leaves the page: the scenario a share link stores, the fragment that goes
// with it, and the <iframe> snippet that embeds the current view.

import (
	"html"
	"maps"
	"slices"
	"strings"

	"schedplay/engine"
	"schedplay/playground/urlstate"
)

// ScenarioJSON is the scenario to share: the base scenario's canonical JSON, with a
// knob comparison written as its arms so the shared link compares the same way,
// and without arms when the page shows one run (its link preview, computed from
// the shared scenario, then shows one run too).
func (m *Model) ScenarioJSON() ([]byte, error) {
	sc := m.setup.base
	mode := compareMode(m.view, sc)
	if mode == urlstate.CompareOff {
		sc = withoutArms(sc)
	}
	if mode != urlstate.CompareOff && mode != urlstate.CompareArms && len(m.arms) == 2 {
		sc.Arms = nil
		for _, a := range m.arms {
			set := map[string]string{}
			for _, kv := range a.Set {
				if k, v, ok := strings.Cut(kv, "="); ok {
					set[k] = v
				}
			}
			sc.Arms = append(sc.Arms, engine.Arm{Name: a.Name, Set: set})
		}
	}
	return sc.Canonical()
}

// withoutArms is sc as one run: no arms, and each published point that was
// labelled with an arm carrying that arm's settings instead, so the point still
// belongs to the runs it was measured at (view.PublishedSet matches on settings).
func withoutArms(sc engine.Scenario) engine.Scenario {
	pubs := make([]engine.Published, 0, len(sc.Published))
	for _, p := range sc.Published {
		if p.Arm != "" {
			i := slices.IndexFunc(sc.Arms, func(a engine.Arm) bool { return a.Name == p.Arm })
			if i < 0 {
				continue // a label no arm has matches no run
			}
			set := maps.Clone(sc.Arms[i].Set)
			maps.Copy(set, p.Set)
			p.Arm, p.Set = "", set
		}
		pubs = append(pubs, p)
	}
	sc.Arms, sc.Published = nil, pubs
	return sc
}

// ShareFragment is the fragment to append to a share link: the view keys only (the
// scenario is in the share), with a knob comparison turned into compare=arms since
// ScenarioJSON wrote it as the shared scenario's arms.
func (m *Model) ShareFragment() string {
	v := m.view
	switch mode := compareMode(v, m.setup.base); mode {
	case urlstate.CompareOff, urlstate.CompareArms:
		v.Compare = mode
	default:
		v.Compare = urlstate.CompareArms
	}
	v.CompareA, v.CompareB = "", ""
	v.Embed = false
	v.Hide = nil
	v.Lesson, v.LessonStep = "", 0 // a share is of the scenario
	return urlstate.Encode(urlstate.State{View: v})
}

// EmbedCode is the <iframe> snippet for the current state, for a page at pageURL
// (origin and path, no fragment).
func (m *Model) EmbedCode(pageURL string) string {
	st := m.urlState()
	st.View.Embed = true
	return embedCode(pageURL+"#"+urlstate.Encode(st), m.cmpLabel)
}

// embedCode is an <iframe> of src titled after what it compares (label, "" for
// one run), both escaped for an HTML attribute.
func embedCode(src, label string) string {
	title := "schedplay"
	if label != "" {
		title += ": " + label
	}
	return `<iframe src="` + html.EscapeString(src) + `" title="` + html.EscapeString(title) +
		`" width="960" height="540" style="border:0;max-width:100%" loading="lazy"></iframe>`
}

package playground

// Saved states: engine checkpoints the page may start its arms from, so that a
// jump (Skip warm-up, Jump to, t= in a link, a lesson step) does not simulate
// again what lies before them. The engine is deterministic, so an arm resumed
// at 12 s is, from there on, the arm that ran from zero: same events, same
// results (engine.Resume, runner.StartFrom).
//
// The page's bundle ships checkpoints of each preset's arms at the end of its
// warm-up and of lesson steps that start past the first second
// (BundledStates, built by internal/wasmbuild); a share carries the states
// its link preview reached. The page's shell fetches a scenario's when the
// model first jumps in it (want), so a page that never jumps downloads none,
// and adds them as they arrive (Add). A jump starts
// from the latest moment at or before its target at which every arm has a
// state, when that is ahead of where the arms already are; states that arrive
// while a jump runs take it over if they are further along. An arm whose
// scenario has none (a knob the user changed: states are matched by the
// scenario's key) runs from where it is, as before. The page then says where it
// started (Clock.Resumed).

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"schedplay/engine"
	"schedplay/playground/urlstate"
	"schedplay/view"
)

// Origins of saved states, as the notice names them.
const (
	SavedWithPage  = "saved with the page"
	SavedWithShare = "saved with this share"
)

// SavedStates holds the checkpoints the page may resume arms from, by
// scenario key. It is safe for concurrent use: the page's shell adds packs
// from its fetch callbacks while the model reads.
type SavedStates struct {
	mu     sync.Mutex
	states map[engine.ScenarioKey][]savedState // ascending moments
	asked  map[engine.ScenarioKey]bool
	fetch  func(engine.ScenarioKey)
	ver    uint64 // bumped by every Add that files something
}

type savedState struct {
	atNs   int64
	data   []byte
	origin string
}

// NewSavedStates returns an empty store; fetch, if not nil, is called (once
// per key, from the model's goroutine) when the model would use a scenario's
// states: the shell loads them if it has any and Adds them.
func NewSavedStates(fetch func(key engine.ScenarioKey)) *SavedStates {
	return &SavedStates{states: map[engine.ScenarioKey][]savedState{}, asked: map[engine.ScenarioKey]bool{}, fetch: fetch}
}

// Add files the checkpoints of a pack (engine.ReadCheckpointPack) under their
// scenarios' keys; origin is one of SavedWithPage and SavedWithShare. A state
// already held for the same scenario and moment is kept.
func (s *SavedStates) Add(pack []byte, origin string) error {
	cks, err := engine.ReadCheckpointPack(pack)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ck := range cks {
		list := s.states[ck.Key]
		if _, found := s.find(list, ck.NowNs); found {
			continue
		}
		// Kept in order by moving the new one down: a scenario has a few.
		list = append(list, savedState{atNs: ck.NowNs, data: ck.Data, origin: origin})
		for i := len(list) - 1; i > 0 && list[i-1].atNs > list[i].atNs; i-- {
			list[i-1], list[i] = list[i], list[i-1]
		}
		s.states[ck.Key] = list
		s.ver++
	}
	return nil
}

// want asks the shell for the states of keys it has not asked for yet.
func (s *SavedStates) want(keys []engine.ScenarioKey) {
	if s == nil || s.fetch == nil {
		return
	}
	var ask []engine.ScenarioKey
	s.mu.Lock()
	for _, k := range keys {
		if !s.asked[k] {
			s.asked[k] = true
			ask = append(ask, k)
		}
	}
	s.mu.Unlock()
	for _, k := range ask {
		s.fetch(k)
	}
}

// version changes whenever a state is added.
func (s *SavedStates) version() uint64 {
	if s == nil {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ver
}

// find returns the state of list at atNs.
func (s *SavedStates) find(list []savedState, atNs int64) (savedState, bool) {
	for _, x := range list {
		if x.atNs == atNs {
			return x, true
		}
	}
	return savedState{}, false
}

// savedAt is one moment at which every arm has a state.
type savedAt struct {
	atNs   int64
	data   [][]byte // by arm
	origin string
}

// latest returns the latest moment at or before atNs at which every key has a
// state.
func (s *SavedStates) latest(keys []engine.ScenarioKey, atNs int64) (savedAt, bool) {
	if s == nil || len(keys) == 0 {
		return savedAt{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	first := s.states[keys[0]]
	for i := len(first) - 1; i >= 0; i-- {
		c := first[i]
		if c.atNs > atNs {
			continue
		}
		got := savedAt{atNs: c.atNs, data: [][]byte{c.data}, origin: c.origin}
		for _, k := range keys[1:] {
			x, ok := s.find(s.states[k], c.atNs)
			if !ok {
				break
			}
			got.data = append(got.data, x.data)
		}
		if len(got.data) == len(keys) {
			return got, true
		}
	}
	return savedAt{}, false
}

// PrefetchSaved asks the shell for the arms' saved states before a jump needs
// them: the page calls it when the pointer or the focus reaches a jump
// control, so that a click finds them there.
func (m *Model) PrefetchSaved() { m.saved.want(m.armKeys()) }

// armKeys lists the arms' scenario keys.
func (m *Model) armKeys() []engine.ScenarioKey {
	keys := make([]engine.ScenarioKey, len(m.arms))
	for i, a := range m.arms {
		keys[i] = a.key
	}
	return keys
}

// resumeNote is where the arms were last started from a saved state.
type resumeNote struct {
	atNs   int64
	origin string
}

// startSaved starts the arms from the latest saved state at or before t when
// that is ahead of where they would otherwise go on from (where they are
// asked to be, or zero if t is behind that), and reports whether it did.
func (m *Model) startSaved(t int64) bool {
	from := m.pipe.reqNs
	if t < from {
		from = 0
	}
	st, ok := m.saved.latest(m.armKeys(), t)
	if !ok || st.atNs <= from {
		return false
	}
	m.restartFrom(st)
	return true
}

// restartFrom replaces the arms by new ones started from st, and asks them
// for the moment they start at.
func (m *Model) restartFrom(st savedAt) {
	for _, a := range m.arms {
		m.run.Stop(a.id)
	}
	m.pipe = newPipeline()
	m.jump, m.refused = nil, ""
	for i, a := range m.arms {
		m.lastID++
		m.run.StartFrom(m.lastID, a.Sc, st.data[i])
		na := newArm(m.lastID, a.Name, a.Set, a.Sc, m.setup.src.published)
		na.backfill = true
		na.startNs = st.atNs
		m.arms[i] = na
	}
	m.time.restart()
	m.resumed = &resumeNote{atNs: st.atNs, origin: st.origin}
	m.request(tgAdvance, st.atNs, true, false)
	m.exchange(m.time.lastMs)
}

// takeLateStates lets states that arrived during a jump take it over, when
// they are further along than the arms.
func (m *Model) takeLateStates() {
	v := m.saved.version()
	if v == m.savedSeen {
		return
	}
	m.savedSeen = v
	if m.jump == nil || slices.ContainsFunc(m.pipe.pending, func(cp target) bool { return cp.kind == tgUntil }) {
		return
	}
	j := *m.jump
	st, ok := m.saved.latest(m.armKeys(), j.toNs)
	if !ok || st.atNs <= m.pipe.reqNs {
		return
	}
	m.restartFrom(st)
	m.jump = &jump{fromNs: st.atNs, toNs: j.toNs, resume: j.resume}
	m.time.runToNs, m.time.playing = j.toNs, true
}

// resumedText is the notice about the last start from a saved state, once
// every arm has said how it started: from the state, or (why) from zero.
func (m *Model) resumedText() string {
	r := m.resumed
	if r == nil {
		return ""
	}
	for _, a := range m.arms {
		if a.resumeErr != "" {
			return fmt.Sprintf("The state %s at %s could not be used (%s): this run started from zero.", r.origin, momentWords(r.atNs), a.resumeErr)
		}
	}
	for _, a := range m.arms {
		if !a.resumed {
			return ""
		}
	}
	return fmt.Sprintf("Started from a state %s at %s instead of simulating up to it.", r.origin, momentWords(r.atNs))
}

// backfillSeries gives an arm resumed at f.NowNs its charts' history up to
// there, from the engine's series of the run so far (which the resumed
// simulation carries): cumulative totals at each bucket's end.
func (a *Arm) backfillSeries(series []engine.SeriesPoint, nowNs int64) {
	bucketNs := a.Sc.SeriesIntervalMs * 1e6
	var cum view.Totals
	for _, p := range series {
		start := int64(p.StartMs * 1e6)
		end := min(start+bucketNs, nowNs)
		w := float64(end - start)
		if w <= 0 {
			continue
		}
		cum.Completed += int64(p.ThroughputPerS*w/1e9 + 0.5)
		cum.IPIs += int64(p.IPIsPerS*w/1e9 + 0.5)
		cum.HaltExits += int64(p.HaltExitsPerS*w/1e9 + 0.5)
		cum.BusyNs += int64(p.BusyVCPUs*w + 0.5)
		cum.IdleOverNs += int64(p.IdleOverloadFrac*w*float64(a.Sc.Machine.VCPUs) + 0.5)
		a.series.Add(end, cum)
	}
}

// momentWords writes a moment as a sentence does: "12 s", "250 ms".
func momentWords(ns int64) string {
	m := urlstate.FormatMoment(ns) // "12s", "250ms", "800us"
	i := strings.IndexFunc(m, func(r rune) bool { return r < '0' || r > '9' })
	return m[:i] + " " + strings.Replace(m[i:], "us", "µs", 1)
}

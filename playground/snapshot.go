package playground

// The read side: everything the page shows around the canvas, as one snapshot
// in sections, each with its own version. The page asks once a frame for the
// sections newer than the newest version it has seen (Snapshot(since)) and
// redraws only those, so a paused page redraws nothing and a playing one
// redraws what moved.
//
// A section is looked at again (built, and compared with what it was) at most
// every so often, by how fast it changes and how much it costs the page to
// redraw, or at once after the page changed something (an edit: Set, Load, a
// command, a click), so the page answers at once. Only a section whose content
// differs gets a new version; nothing is encoded to find out.
//
// State (state.go) is built from the same section builders, fresh on every
// call, so the test and embedding API reads what the page draws.

import (
	"reflect"

	"github.com/go-json-experiment/json"
)

// How often, in wall ms, each section is looked at while nothing is edited.
// The clock and the lesson's progress read as motion; the cards, charts and
// pane titles change with the results (resultsEveryMs) and cost the page a
// redraw of many elements; the controls and trace buttons change with an edit
// or with the moment shown, which a quarter-second lag does not hurt.
const (
	everyClockMs    = 100
	everyTextMs     = 100 // settings, notices, explanation, lesson panel
	everyResultsMs  = 250 // cards, charts, pane titles
	everyControlsMs = 500
	everyTraceMs    = 500
)

// Snapshot is what the page reads: Seq, every section's version, and each
// section newer than the since it asked with (nil otherwise).
type Snapshot struct {
	// Seq is the newest version of any section: the page's next since.
	Seq uint64   `json:"seq"`
	Ver Versions `json:"ver"`

	Meta      *Meta        `json:"meta,omitzero"`
	Settings  *Settings    `json:"settings,omitzero"`
	Notices   *Notices     `json:"notices,omitzero"`
	Controls  *ControlsUI  `json:"controls,omitzero"`
	Clock     *Clock       `json:"clock,omitzero"`
	Panes     *Panes       `json:"panes,omitzero"`
	Cards     *CardsUI     `json:"cards,omitzero"`
	Explain   *Explanation `json:"explain,omitzero"`
	TimeChart *Chart       `json:"time_chart,omitzero"`
	Sweep     *Chart       `json:"sweep,omitzero"`
	Hist      *Chart       `json:"hist,omitzero"`
	Lesson    *LessonUI    `json:"lesson,omitzero"`
	Caption   *CaptionUI   `json:"caption,omitzero"`
	Trace     *TraceUI     `json:"trace,omitzero"`
	Policy    *PolicyUI    `json:"policy,omitzero"`
	Workload  *WorkloadUI  `json:"workload,omitzero"`
	Replay    *ReplayUI    `json:"replay,omitzero"`
}

// Versions are the sections' versions: the Seq at which each last changed.
type Versions struct {
	Meta      uint64 `json:"meta"`
	Settings  uint64 `json:"settings"`
	Notices   uint64 `json:"notices"`
	Controls  uint64 `json:"controls"`
	Clock     uint64 `json:"clock"`
	Panes     uint64 `json:"panes"`
	Cards     uint64 `json:"cards"`
	Explain   uint64 `json:"explain"`
	TimeChart uint64 `json:"time_chart"`
	Sweep     uint64 `json:"sweep"`
	Hist      uint64 `json:"hist"`
	Lesson    uint64 `json:"lesson"`
	Caption   uint64 `json:"caption"`
	Trace     uint64 `json:"trace"`
	Policy    uint64 `json:"policy"`
	Workload  uint64 `json:"workload"`
	Replay    uint64 `json:"replay"`
}

// part is one section as the read side holds it.
type part[T any] struct {
	ver  uint64  // 0: never built
	atMs float64 // wall time of the last look
	val  T
}

// readSide holds the sections the page was last given.
type readSide struct {
	seq   uint64
	edits uint64 // Model.edits at the last look
	// metaVer is Model.metaVer when meta was built: meta changes only with it.
	metaVer int

	meta      part[Meta]
	settings  part[Settings]
	notices   part[Notices]
	controls  part[ControlsUI]
	clock     part[Clock]
	panes     part[Panes]
	cards     part[CardsUI]
	explain   part[Explanation]
	timeChart part[Chart]
	sweep     part[Chart]
	hist      part[Chart]
	lesson    part[LessonUI]
	caption   part[CaptionUI]
	trace     part[TraceUI]
	policy    part[PolicyUI]
	workload  part[WorkloadUI]
	replay    part[ReplayUI]
}

// look builds p when it is due (every ms after the last look, or now when
// forced) and gives it a new version when its content changed.
func look[T any](r *readSide, p *part[T], nowMs, every float64, forced bool, build func() T) {
	if p.ver != 0 && !forced && nowMs-p.atMs < every {
		return
	}
	v := build()
	p.atMs = nowMs
	if p.ver != 0 && reflect.DeepEqual(v, p.val) {
		return
	}
	r.seq++
	p.ver, p.val = r.seq, v
}

// since returns p's content when its version is newer than since.
func since[T any](p *part[T], since uint64) *T {
	if p.ver <= since {
		return nil
	}
	v := p.val
	return &v
}

// Snapshot brings the sections up to date and returns those newer than since;
// since 0 asks for every section, each built afresh.
func (m *Model) Snapshot(after uint64) Snapshot {
	r := &m.read
	now, forced := m.time.lastMs, after == 0 || r.edits != m.edits
	r.edits = m.edits
	if r.meta.ver == 0 || r.metaVer != m.metaVer {
		r.seq++
		r.metaVer, r.meta.ver, r.meta.val = m.metaVer, r.seq, m.meta()
	}
	look(r, &r.settings, now, everyTextMs, forced, m.settings)
	look(r, &r.notices, now, everyTextMs, forced, m.notices)
	look(r, &r.controls, now, everyControlsMs, forced, m.controlsUI)
	look(r, &r.clock, now, everyClockMs, forced, m.clock)
	look(r, &r.panes, now, everyResultsMs, forced, m.panes)
	look(r, &r.cards, now, everyResultsMs, forced, m.cardsUI)
	look(r, &r.explain, now, everyTextMs, forced, m.explain)
	look(r, &r.timeChart, now, everyResultsMs, forced, m.timeChart)
	look(r, &r.sweep, now, everyResultsMs, forced, m.sweepChart)
	look(r, &r.hist, now, everyResultsMs, forced, m.histChart)
	look(r, &r.lesson, now, everyTextMs, forced, func() LessonUI { return m.lesson.view(m) })
	look(r, &r.caption, now, everyTextMs, forced, func() CaptionUI { return m.lesson.captionUI() })
	look(r, &r.trace, now, everyTraceMs, forced, m.traceUI)
	look(r, &r.policy, now, everyResultsMs, forced, m.policyUI)
	look(r, &r.workload, now, everyResultsMs, forced, m.workloadUI)
	look(r, &r.replay, now, everyResultsMs, forced, m.replayUI)
	return Snapshot{
		Seq: r.seq,
		Ver: Versions{Meta: r.meta.ver, Settings: r.settings.ver, Notices: r.notices.ver, Controls: r.controls.ver,
			Clock: r.clock.ver, Panes: r.panes.ver, Cards: r.cards.ver, Explain: r.explain.ver, TimeChart: r.timeChart.ver,
			Sweep: r.sweep.ver, Hist: r.hist.ver, Lesson: r.lesson.ver, Caption: r.caption.ver, Trace: r.trace.ver,
			Policy: r.policy.ver, Workload: r.workload.ver, Replay: r.replay.ver},
		Meta: since(&r.meta, after), Settings: since(&r.settings, after), Notices: since(&r.notices, after),
		Controls: since(&r.controls, after), Clock: since(&r.clock, after), Panes: since(&r.panes, after),
		Cards: since(&r.cards, after), Explain: since(&r.explain, after), TimeChart: since(&r.timeChart, after),
		Sweep: since(&r.sweep, after), Hist: since(&r.hist, after), Lesson: since(&r.lesson, after),
		Caption: since(&r.caption, after), Trace: since(&r.trace, after), Policy: since(&r.policy, after),
		Workload: since(&r.workload, after), Replay: since(&r.replay, after),
	}
}

// SnapshotJSON encodes Snapshot(since) for the JavaScript bridge: only the
// sections that changed are encoded.
func (m *Model) SnapshotJSON(since uint64) ([]byte, error) { return json.Marshal(m.Snapshot(since)) }

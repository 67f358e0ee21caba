package playground

import (
	"slices"
	"strconv"
)

// frameStats keeps the last frames' Update+Draw durations (wall ms, measured by
// the shell with performance.now) for the in-page budget report.
type frameStats struct {
	buf    [600]float64
	n      int
	frames int64
	first  float64 // ms from page start to the first drawn frame
	// startup lists named start-up phases and their durations in ms.
	startup []string
	// canvas is the WebGL renderer drawing the canvas, as the browser names
	// it (SetCanvasRenderer); software says it draws on the CPU.
	canvas   string
	software bool
}

// NoteStartup records how long a start-up phase took (for the load-time report).
func (m *Model) NoteStartup(phase string, ms float64) {
	m.frames.startup = append(m.frames.startup, phase+" "+strconv.FormatFloat(ms, 'f', 1, 64)+" ms")
}

// RecordDraw notes how long the last Draw took; the engine budget leaves room for
// it (see frameTargetMs).
func (m *Model) RecordDraw(ms float64) {
	m.time.drawMs += (ms - m.time.drawMs) * 0.1
}

// RecordFrame stores one frame's Update+Draw duration.
func (m *Model) RecordFrame(ms float64) {
	f := &m.frames
	f.buf[f.n%len(f.buf)] = ms
	f.n++
	f.frames++
}

// RecordFirstFrame notes when the first frame was drawn (ms since navigation).
func (m *Model) RecordFirstFrame(ms float64) {
	if m.frames.first == 0 {
		m.frames.first = ms
	}
}

// Perf summarises frame cost.
type Perf struct {
	Frames       int64   `json:"frames"`
	FirstFrameMs float64 `json:"first_frame_ms"`
	// MedianMs and P95Ms are over the last (up to) 600 frames.
	MedianMs float64  `json:"median_ms"`
	P95Ms    float64  `json:"p95_ms"`
	MaxMs    float64  `json:"max_ms"`
	Samples  int      `json:"samples"`
	BudgetMs float64  `json:"budget_ms"`
	Vertices int      `json:"vertices"`
	Startup  []string `json:"startup"`
	// Canvas is the WebGL renderer the browser draws the canvas with ("" when
	// it does not say); SoftwareCanvas, that it draws on the CPU (racing.go).
	Canvas         string `json:"canvas"`
	SoftwareCanvas bool   `json:"software_canvas"`
}

// Perf returns the frame-cost summary.
func (m *Model) Perf() Perf {
	f := &m.frames
	n := min(f.n, len(f.buf))
	s := slices.Clone(f.buf[:n])
	slices.Sort(s)
	p := Perf{Frames: f.frames, FirstFrameMs: f.first, Samples: n, BudgetMs: m.time.budgetMs, Vertices: m.mesh.Vertices(), Startup: f.startup,
		Canvas: f.canvas, SoftwareCanvas: f.software}
	if n > 0 {
		p.MedianMs = s[n/2]
		p.P95Ms = s[min(n-1, n*95/100)]
		p.MaxMs = s[n-1]
	}
	return p
}

// ResetPerf forgets the recorded frames (to measure one configuration).
func (m *Model) ResetPerf() {
	m.frames = frameStats{first: m.frames.first, startup: m.frames.startup, canvas: m.frames.canvas, software: m.frames.software}
}

package main

import (
	"image"
	"image/color"
	"sync"
	"syscall/js"

	"github.com/hajimehoshi/ebiten/v2"

	"schedplay/playground"
	"schedplay/view"
)

// game adapts playground.Model to Ebiten. mu serialises the model between Ebiten's frame
// callbacks and the JavaScript bridge's calls.
type game struct {
	mu    sync.Mutex
	m     *playground.Model
	perf  js.Value // window.performance, for in-page frame timing
	white *ebiten.Image
	verts []ebiten.Vertex
	scale float64

	updateStart, updateMs float64
	drawn                 bool
	// last is the mesh on the canvas and lastSize its size: a frame that
	// would paint the same is skipped (Draw returns without drawing, and Ebiten,
	// which does not clear the screen, leaves the canvas as it is).
	last     view.Mesh
	lastSize image.Point
	// ebitenAA turns on Ebiten's own antialiasing (a 2x offscreen buffer); the mesh
	// carries its own feathered edges, so it is off unless asked for.
	ebitenAA bool
}

func newGame(m *playground.Model) *game {
	img := ebiten.NewImage(3, 3)
	img.Fill(color.White)
	return &game{m: m, perf: js.Global().Get("performance"),
		white: img.SubImage(image.Rect(1, 1, 2, 2)).(*ebiten.Image), scale: 1}
}

func (g *game) now() float64 { return g.perf.Call("now").Float() }

// Update advances the model by one frame within its budget.
func (g *game) Update() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.updateStart = g.now()
	g.m.Update(g.updateStart)
	g.updateMs = g.now() - g.updateStart
	return nil
}

// Draw paints the model's mesh; it draws nothing of its own.
func (g *game) Draw(screen *ebiten.Image) {
	g.mu.Lock()
	defer g.mu.Unlock()
	t := g.now()
	b := screen.Bounds()
	mesh := g.m.Render(b.Dx(), b.Dy(), g.scale, t)
	if g.drawn && b.Size() == g.lastSize && mesh.Equal(&g.last) {
		end := g.now()
		g.m.RecordDraw(end - t)
		g.m.RecordFrame(g.updateMs + end - t)
		return
	}
	mesh.CopyTo(&g.last)
	g.lastSize = b.Size()
	screen.Clear()
	op := &ebiten.DrawTrianglesOptions{AntiAlias: g.ebitenAA}
	for _, batch := range mesh.Used() {
		g.verts = g.verts[:0]
		for _, v := range batch.V {
			g.verts = append(g.verts, ebiten.Vertex{DstX: v.X, DstY: v.Y, SrcX: 1, SrcY: 1,
				ColorR: v.R, ColorG: v.G, ColorB: v.B, ColorA: v.A})
		}
		screen.DrawTriangles(g.verts, batch.I, g.white, op)
	}
	end := g.now()
	g.m.RecordDraw(end - t)
	g.m.RecordFrame(g.updateMs + end - t)
	if !g.drawn && len(mesh.Used()) > 0 {
		g.drawn = true
		g.m.RecordFirstFrame(end) // performance.now() counts from navigation start
	}
}

// LayoutF makes the screen as large as the canvas in device pixels, so tiles and
// text are drawn at full resolution on HiDPI screens.
func (g *game) LayoutF(w, h float64) (float64, float64) {
	s := ebiten.Monitor().DeviceScaleFactor()
	if s <= 0 {
		s = 1
	}
	g.mu.Lock()
	g.scale = s
	g.mu.Unlock()
	return w * s, h * s
}

// Layout is required by ebiten.Game; LayoutF takes precedence.
func (g *game) Layout(w, h int) (int, int) { return w, h }

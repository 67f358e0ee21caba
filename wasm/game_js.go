package main

import (
	"image"
	"image/color"
	"sync"
	"syscall/js"
	"time"

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
	// frameEveryMs is the frame interval Ebiten is paced to (pace), and
	// stopTicks ends the ticker that schedules those frames.
	frameEveryMs float64
	stopTicks    chan struct{}
	// rendererTold: the model knows what draws the canvas (canvasRenderer).
	rendererTold bool
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
	if !g.rendererTold {
		g.rendererTold = true
		g.m.SetCanvasRenderer(canvasRenderer())
	}
	g.m.Update(g.updateStart)
	g.updateMs = g.now() - g.updateStart
	g.pace()
	return nil
}

// service lets the model take the workers' answers as they arrive
// (Model.Service: while the run races, frames are too far apart to wait for).
func (g *game) service() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.m.Service(g.now())
	g.pace()
}

// pace keeps Ebiten's frames at the model's rate (Model.FrameEveryMs): one
// each display frame, or, while the run races, one each FastFrameMs, which a
// ticker schedules (Ebiten still answers input at once). Called with mu held
// after anything that may change the rate.
func (g *game) pace() {
	every := g.m.FrameEveryMs()
	if every == g.frameEveryMs {
		return
	}
	g.frameEveryMs = every
	if g.stopTicks != nil {
		close(g.stopTicks)
		g.stopTicks = nil
	}
	if every == 0 {
		ebiten.SetFPSMode(ebiten.FPSModeVsyncOn)
		return
	}
	ebiten.SetFPSMode(ebiten.FPSModeVsyncOffMinimum)
	ebiten.ScheduleFrame()
	stop := make(chan struct{})
	g.stopTicks = stop
	go func() {
		t := time.NewTicker(time.Duration(every * float64(time.Millisecond)))
		defer t.Stop()
		for {
			select {
			case <-t.C:
				ebiten.ScheduleFrame()
			case <-stop:
				return
			}
		}
	}()
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

// canvasRenderer is the name of the WebGL renderer that draws Ebiten's canvas
// (WEBGL_debug_renderer_info's, else the context's own RENDERER), or "" when
// the browser does not say.
func canvasRenderer() (name string) {
	defer func() {
		if recover() != nil {
			name = ""
		}
	}()
	canvas := js.Global().Get("document").Call("querySelector", "canvas")
	if !canvas.Truthy() {
		return ""
	}
	for _, kind := range []string{"webgl2", "webgl"} { // the kind Ebiten made answers
		gl := canvas.Call("getContext", kind)
		if !gl.Truthy() {
			continue
		}
		if ext := gl.Call("getExtension", "WEBGL_debug_renderer_info"); ext.Truthy() {
			return gl.Call("getParameter", ext.Get("UNMASKED_RENDERER_WEBGL")).String()
		}
		return gl.Call("getParameter", gl.Get("RENDERER")).String()
	}
	return ""
}

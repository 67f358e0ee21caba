package preview

import (
	"image"
	"image/color"
	"math"

	"golang.org/x/image/font"

	"schedplay/view"
)

// The card is painted the way the page's canvas is: every shape is a
// view.Mesh, built by the playground's own drawing code (view.DrawTile,
// view.DrawFlight, rounded boxes, strokes), whose triangles a small scanline
// rasterizer fills into an RGBA image instead of the GPU. The mesh carries its
// own antialiasing (a feathered pixel at every edge, see view.Mesh.FillConvex),
// so the rasterizer only samples each pixel's centre. Text is set in the Go
// fonts on top of the shapes (text.go).

// canvas is a card being drawn: shapes go into the mesh, text into a list, and
// finish paints the shapes first and the text over them.
type canvas struct {
	img  *image.RGBA
	mesh view.Mesh
	text []textOp
}

type textOp struct {
	face font.Face
	s    string
	x, y float64
	col  view.Color
}

func newCanvas(w, h int, bg view.Color) *canvas {
	c := &canvas{img: image.NewRGBA(image.Rect(0, 0, w, h))}
	for i := 0; i < len(c.img.Pix); i += 4 {
		c.img.Pix[i], c.img.Pix[i+1], c.img.Pix[i+2], c.img.Pix[i+3] = bg.R, bg.G, bg.B, 0xff
	}
	return c
}

// finish paints what was drawn: the mesh's triangles in order, then the text.
func (c *canvas) finish() *image.RGBA {
	for _, b := range c.mesh.Used() {
		for i := 0; i+2 < len(b.I); i += 3 {
			c.triangle(b.V[b.I[i]], b.V[b.I[i+1]], b.V[b.I[i+2]])
		}
	}
	c.mesh.Reset()
	for _, t := range c.text {
		drawText(c.img, t.face, t.s, t.x, t.y, color.RGBA{t.col.R, t.col.G, t.col.B, 0xff})
	}
	c.text = c.text[:0]
	return c.img
}

// triangle fills one triangle, its colour (straight alpha) interpolated from
// the vertices and blended over the image. A pixel belongs to a triangle when
// its centre is inside; a centre exactly on an edge belongs to one of the two
// triangles sharing the edge (see owns), so no pixel is blended twice.
func (c *canvas) triangle(a, b, d view.Vertex) {
	ax, ay, bx, by, dx, dy := float64(a.X), float64(a.Y), float64(b.X), float64(b.Y), float64(d.X), float64(d.Y)
	area := edge(ax, ay, bx, by, dx, dy)
	if area == 0 || math.IsNaN(area) {
		return
	}
	if area < 0 {
		b, d = d, b
		bx, by, dx, dy = dx, dy, bx, by
		area = -area
	}
	bounds := c.img.Bounds()
	y0 := max(int(math.Floor(min(ay, by, dy))), bounds.Min.Y)
	y1 := min(int(math.Ceil(max(ay, by, dy))), bounds.Max.Y-1)
	x0 := max(int(math.Floor(min(ax, bx, dx))), bounds.Min.X)
	x1 := min(int(math.Ceil(max(ax, bx, dx))), bounds.Max.X-1)
	type side struct{ px, py, qx, qy float64 }
	sides := [3]side{{px: bx, py: by, qx: dx, qy: dy}, {px: dx, py: dy, qx: ax, qy: ay}, {px: ax, py: ay, qx: bx, qy: by}}
	for y := y0; y <= y1; y++ {
		py := float64(y) + 0.5
		// The span of the row inside all three edges, widened by a pixel; the
		// exact test below decides the pixels at its ends.
		lo, hi := float64(x0), float64(x1)
		for _, s := range sides {
			ey := s.qy - s.py
			cst := (s.qx-s.px)*(py-s.py) + ey*s.px // edge >= 0 where ey*x <= cst
			switch {
			case ey > 0:
				hi = min(hi, cst/ey)
			case ey < 0:
				lo = max(lo, cst/ey)
			}
		}
		for x := max(int(lo)-1, x0); x <= min(int(hi)+1, x1); x++ {
			px := float64(x) + 0.5
			w0 := edge(bx, by, dx, dy, px, py)
			w1 := edge(dx, dy, ax, ay, px, py)
			w2 := edge(ax, ay, bx, by, px, py)
			if !owns(w0, bx, by, dx, dy) || !owns(w1, dx, dy, ax, ay) || !owns(w2, ax, ay, bx, by) {
				continue
			}
			w0, w1, w2 = w0/area, w1/area, w2/area
			alpha := w0*float64(a.A) + w1*float64(b.A) + w2*float64(d.A)
			if alpha <= 0 {
				continue
			}
			alpha = min(alpha, 1)
			i := c.img.PixOffset(x, y)
			p := c.img.Pix[i : i+3 : i+3]
			for k, ch := range [3]float64{
				w0*float64(a.R) + w1*float64(b.R) + w2*float64(d.R),
				w0*float64(a.G) + w1*float64(b.G) + w2*float64(d.G),
				w0*float64(a.B) + w1*float64(b.B) + w2*float64(d.B),
			} {
				p[k] = uint8(min(max(ch*255*alpha+float64(p[k])*(1-alpha)+0.5, 0), 255))
			}
		}
	}
}

// edge is the signed area of the parallelogram p-q-(x, y): positive on one side
// of the line through p and q, zero on it.
func edge(px, py, qx, qy, x, y float64) float64 {
	return (qx-px)*(y-py) - (qy-py)*(x-px)
}

// owns says whether a pixel centre with edge value w is inside the edge p->q:
// strictly inside, or on it for one direction of travel only. Two triangles
// wound the same way cross a shared edge in opposite directions, so exactly
// one of them owns the centres on it.
func owns(w, px, py, qx, qy float64) bool {
	if w != 0 {
		return w > 0
	}
	return qy > py || qy == py && qx > px
}

// text queues s with its baseline starting at (x, y) and returns where it ends.
func (c *canvas) textAt(face font.Face, s string, x, y float64, col view.Color) float64 {
	c.text = append(c.text, textOp{face: face, s: s, x: x, y: y, col: col})
	return x + width(face, s)
}

// pt is a point on the card, in pixels (y down).
func pt(x, y float64) view.Point { return view.Point{X: float32(x), Y: float32(y)} }

// rect is a rectangle on the card.
func rect(x, y, w, h float64) view.Rect {
	return view.Rect{X: float32(x), Y: float32(y), W: float32(w), H: float32(h)}
}

package view

import (
	"bytes"
	"math"
	"unsafe"
)

// Vertex is one mesh vertex: a device-pixel position and a straight-alpha colour
// with components in [0, 1] (the layout of ebiten.Vertex without texture
// coordinates).
type Vertex struct {
	X, Y       float32
	R, G, B, A float32
}

// MaxBatchVertices bounds one batch so its indices fit uint16 (DrawTriangles).
const MaxBatchVertices = 60000

// Batch is a run of triangles drawn by one DrawTriangles call.
type Batch struct {
	V []Vertex
	I []uint16
}

// Mesh is a whole frame's triangles in paint order. Reset keeps the buffers, so a
// steady-state frame allocates nothing.
type Mesh struct {
	Batches           []Batch
	n                 int // batches in use
	scratch, scratch2 []Point
}

// Reset empties the mesh, keeping its memory.
func (m *Mesh) Reset() {
	for i := range m.Batches {
		m.Batches[i].V = m.Batches[i].V[:0]
		m.Batches[i].I = m.Batches[i].I[:0]
	}
	m.n = 0
}

// Used returns the batches holding triangles.
func (m *Mesh) Used() []Batch { return m.Batches[:m.n] }

// Vertices counts the vertices in use.
func (m *Mesh) Vertices() int {
	n := 0
	for _, b := range m.Used() {
		n += len(b.V)
	}
	return n
}

// batch returns a batch with room for need more vertices.
func (m *Mesh) batch(need int) *Batch {
	if m.n > 0 && len(m.Batches[m.n-1].V)+need <= MaxBatchVertices {
		return &m.Batches[m.n-1]
	}
	if m.n == len(m.Batches) {
		m.Batches = append(m.Batches, Batch{})
	}
	m.n++
	return &m.Batches[m.n-1]
}

func vtx(p Point, c Color) Vertex {
	return Vertex{p.X, p.Y, float32(c.R) / 255, float32(c.G) / 255, float32(c.B) / 255, float32(c.A) / 255}
}

// FillConvex fills a convex polygon with a one-pixel feathered edge: an inner
// polygon inset by half a pixel at full colour and an outer ring half a pixel out
// at zero alpha, so edges are antialiased without an offscreen buffer (the technique
// of Dear ImGui's renderer).
func (m *Mesh) FillConvex(pts []Point, c Color) {
	n := len(pts)
	if n < 3 || c.A == 0 {
		return
	}
	b := m.batch(2 * n)
	base := uint16(len(b.V))
	// Outward normals depend on the winding.
	area := float32(0)
	for i := range n {
		p, q := pts[i], pts[(i+1)%n]
		area += p.X*q.Y - q.X*p.Y
	}
	sign := float32(1)
	if area < 0 {
		sign = -1
	}
	clear := c
	clear.A = 0
	for i := range n {
		p, prev, next := pts[i], pts[(i+n-1)%n], pts[(i+1)%n]
		n0x, n0y := edgeNormal(prev, p, sign)
		n1x, n1y := edgeNormal(p, next, sign)
		dx, dy := (n0x+n1x)/2, (n0y+n1y)/2
		// Scale the averaged normal so the fringe keeps its width at corners
		// (bounded, so a sharp corner does not spike).
		if l2 := dx*dx + dy*dy; l2 > 1e-6 {
			inv := min(1/l2, 100)
			dx, dy = dx*inv, dy*inv
		}
		dx, dy = dx*fringe/2, dy*fringe/2
		b.V = append(b.V, vtx(Point{p.X - dx, p.Y - dy}, c), vtx(Point{p.X + dx, p.Y + dy}, clear))
	}
	for i := 1; i+1 < n; i++ {
		b.I = append(b.I, base, base+uint16(2*i), base+uint16(2*i+2))
	}
	for i := range n {
		j := (i + 1) % n
		in0, out0, in1, out1 := base+uint16(2*i), base+uint16(2*i+1), base+uint16(2*j), base+uint16(2*j+1)
		b.I = append(b.I, in0, in1, out1, in0, out1, out0)
	}
}

// fringe is the feathered edge width in device pixels.
const fringe = 1.0

// edgeNormal is the outward unit normal of edge a-b for the given winding sign.
func edgeNormal(a, b Point, sign float32) (float32, float32) {
	dx, dy := b.X-a.X, b.Y-a.Y
	l := norm(dx, dy)
	if l < 1e-6 {
		return 0, 0
	}
	return sign * dy / l, -sign * dx / l
}

// FillRect fills an axis-aligned rectangle.
func (m *Mesh) FillRect(r Rect, c Color) {
	m.scratch = append(m.scratch[:0], Point{r.X, r.Y}, Point{r.X + r.W, r.Y}, Point{r.X + r.W, r.Y + r.H}, Point{r.X, r.Y + r.H})
	m.FillConvex(m.scratch, c)
}

// FillRoundRect fills a rounded rectangle.
func (m *Mesh) FillRoundRect(r Rect, radius float32, c Color) {
	m.scratch = AppendRoundRect(m.scratch[:0], r, radius, cornerSegments(radius))
	m.FillConvex(m.scratch, c)
}

// StrokeRoundRect outlines a rounded rectangle with the line centred on r's edge.
func (m *Mesh) StrokeRoundRect(r Rect, radius, width float32, c Color) {
	m.scratch = AppendRoundRect(m.scratch[:0], r, radius, cornerSegments(radius))
	m.scratch = append(m.scratch, m.scratch[0])
	m.StrokePolyline(m.scratch, width, c)
}

// FillCircle fills a circle.
func (m *Mesh) FillCircle(cx, cy, r float32, c Color) {
	m.scratch = AppendArc(m.scratch[:0], cx, cy, r, 0, 2*math.Pi, circleSegments(r))
	m.FillConvex(m.scratch[:len(m.scratch)-1], c)
}

// StrokeArc strokes a circular arc from a0 to a1 (radians, clockwise, 0 = right).
func (m *Mesh) StrokeArc(cx, cy, r, a0, a1, width float32, c Color) {
	n := max(2, int(float32(circleSegments(r))*abs32(a1-a0)/(2*math.Pi)+0.5))
	m.scratch = AppendArc(m.scratch[:0], cx, cy, r, a0, a1, n)
	m.StrokePolyline(m.scratch, width, c)
}

// FillDiamond fills a square standing on a corner, centred at (cx, cy), with the
// given half-diagonal.
func (m *Mesh) FillDiamond(cx, cy, h float32, c Color) {
	m.scratch = append(m.scratch[:0], Point{cx, cy - h}, Point{cx + h, cy}, Point{cx, cy + h}, Point{cx - h, cy})
	m.FillConvex(m.scratch, c)
}

// StrokePolyline strokes a polyline of the given width. Each segment is a quad
// extended by half the width at both ends (square caps), which covers the joints
// without join geometry (shapes are opaque, so the overlap does not show), with a
// feathered pixel along both sides. Lines thinner than a pixel fade instead of
// thinning further.
func (m *Mesh) StrokePolyline(pts []Point, width float32, c Color) {
	if len(pts) < 2 || c.A == 0 || width <= 0 {
		return
	}
	if width < fringe {
		c.A = uint8(float32(c.A) * width / fringe)
		width = fringe
	}
	clear := c
	clear.A = 0
	b := m.batch(8 * (len(pts) - 1))
	h := width / 2
	core := max(h-fringe/2, 0.01)
	outer := h + fringe/2
	for i := 0; i+1 < len(pts); i++ {
		a, e := pts[i], pts[i+1]
		dx, dy := e.X-a.X, e.Y-a.Y
		l := norm(dx, dy)
		if l < 1e-3 {
			continue
		}
		ux, uy := dx/l, dy/l // along the segment
		nx, ny := -uy, ux    // its normal
		a0 := Point{a.X - ux*h, a.Y - uy*h}
		e0 := Point{e.X + ux*h, e.Y + uy*h}
		base := uint16(len(b.V))
		b.V = append(b.V,
			vtx(Point{a0.X + nx*core, a0.Y + ny*core}, c),
			vtx(Point{e0.X + nx*core, e0.Y + ny*core}, c),
			vtx(Point{e0.X - nx*core, e0.Y - ny*core}, c),
			vtx(Point{a0.X - nx*core, a0.Y - ny*core}, c),
			vtx(Point{a0.X + nx*outer, a0.Y + ny*outer}, clear),
			vtx(Point{e0.X + nx*outer, e0.Y + ny*outer}, clear),
			vtx(Point{e0.X - nx*outer, e0.Y - ny*outer}, clear),
			vtx(Point{a0.X - nx*outer, a0.Y - ny*outer}, clear))
		b.I = append(b.I,
			base, base+1, base+2, base, base+2, base+3, // core
			base+4, base+5, base+1, base+4, base+1, base, // fringe on the + side
			base+3, base+2, base+6, base+3, base+6, base+7) // fringe on the - side
	}
}

// StrokeDashed strokes a polyline as dashes of length dash separated by gap.
func (m *Mesh) StrokeDashed(pts []Point, width, dash, gap float32, c Color) {
	var seg [2]Point
	on, left := true, dash
	for i := 0; i+1 < len(pts); i++ {
		a, e := pts[i], pts[i+1]
		l := dist(a, e)
		pos := float32(0)
		for pos < l {
			step := min(left, l-pos)
			if on {
				seg[0], seg[1] = Lerp(a, e, pos/l), Lerp(a, e, (pos+step)/l)
				m.StrokePolyline(seg[:], width, c)
			}
			pos += step
			left -= step
			if left <= 0 {
				on = !on
				left = dash
				if !on {
					left = gap
				}
			}
		}
	}
}

func cornerSegments(r float32) int { return int(min(max(r/2, 2), 8)) }

func circleSegments(r float32) int { return int(min(max(r*1.2, 12), 64)) }

func abs32(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}

// Equal reports whether m and o hold the same triangles in the same order:
// two such frames paint the same pixels, so the page can leave the canvas as
// it is instead of painting it again (a paused page then costs the browser
// next to nothing). Compared, not hashed: exact, and about as fast as a copy.
func (m *Mesh) Equal(o *Mesh) bool {
	a, b := m.Used(), o.Used()
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(rawBytes(a[i].V), rawBytes(b[i].V)) || !bytes.Equal(rawBytes(a[i].I), rawBytes(b[i].I)) {
			return false
		}
	}
	return true
}

// rawBytes views a slice of plain numbers (Vertex has six float32s and no
// padding) as its bytes. Equal compares frames with it: the runtime's memory
// comparison is several times faster in wasm than comparing the vertices
// field by field, which for 64 vCPUs took a tenth of the frame's drawing time.
// Bit equality is what "paints the same pixels" needs (a -0 for a 0 only
// costs a repaint).
func rawBytes[T Vertex | uint16](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(s[0])))
}

// CopyTo makes dst hold the triangles m holds, reusing dst's memory.
func (m *Mesh) CopyTo(dst *Mesh) {
	dst.Reset()
	for _, b := range m.Used() {
		if dst.n == len(dst.Batches) {
			dst.Batches = append(dst.Batches, Batch{})
		}
		d := &dst.Batches[dst.n]
		d.V, d.I = append(d.V[:0], b.V...), append(d.I[:0], b.I...)
		dst.n++
	}
}

package view

import "math"

// Point is a position in device pixels.
type Point struct{ X, Y float32 }

// Rect is an axis-aligned rectangle; (X, Y) is its top-left corner.
type Rect struct{ X, Y, W, H float32 }

// Center returns the rectangle's centre.
func (r Rect) Center() Point { return Point{r.X + r.W/2, r.Y + r.H/2} }

// Contains reports whether p lies inside r (edges included).
func (r Rect) Contains(p Point) bool {
	return p.X >= r.X && p.X <= r.X+r.W && p.Y >= r.Y && p.Y <= r.Y+r.H
}

// Inset shrinks r by d on every side.
func (r Rect) Inset(d float32) Rect { return Rect{r.X + d, r.Y + d, r.W - 2*d, r.H - 2*d} }

// Lerp interpolates between a and b.
func Lerp(a, b Point, t float32) Point { return Point{a.X + (b.X-a.X)*t, a.Y + (b.Y-a.Y)*t} }

// ArcControl is the control point of the quadratic curve an IPI travels along from
// a to b: the chord's midpoint lifted sideways by a fifth of its length, always
// to the same side of the direction of travel, so an IPI and its reply (b to a)
// take visibly different paths instead of overlapping.
func ArcControl(a, b Point) Point {
	mx, my := (a.X+b.X)/2, (a.Y+b.Y)/2
	dx, dy := b.X-a.X, b.Y-a.Y
	// The left-hand normal of the travel direction (y points down), scaled to a
	// fifth of the chord.
	return Point{mx + dy*0.2, my - dx*0.2}
}

// QuadAt evaluates the quadratic Bezier a-c-b at t in [0, 1].
func QuadAt(a, c, b Point, t float32) Point {
	u := 1 - t
	return Point{u*u*a.X + 2*u*t*c.X + t*t*b.X, u*u*a.Y + 2*u*t*c.Y + t*t*b.Y}
}

// AppendQuad appends the curve a-c-b between t0 and t1 as n+1 points.
func AppendQuad(dst []Point, a, c, b Point, t0, t1 float32, n int) []Point {
	for i := 0; i <= n; i++ {
		dst = append(dst, QuadAt(a, c, b, t0+(t1-t0)*float32(i)/float32(n)))
	}
	return dst
}

// AppendArc appends a circular arc from angle a0 to a1 (radians, clockwise on
// screen, 0 pointing right) as n+1 points.
func AppendArc(dst []Point, cx, cy, r, a0, a1 float32, n int) []Point {
	// Rotate a unit vector step by step: four trigonometric calls per arc rather
	// than two per point (arcs are most of a frame's geometry).
	d := float64(a1-a0) / float64(n)
	cd, sd := math.Cos(d), math.Sin(d)
	x, y := math.Cos(float64(a0)), math.Sin(float64(a0))
	for i := 0; i <= n; i++ {
		dst = append(dst, Point{cx + r*float32(x), cy + r*float32(y)})
		x, y = x*cd-y*sd, x*sd+y*cd
	}
	return dst
}

// AppendRoundRect appends the outline of a rounded rectangle, clockwise from the
// top-left corner's start, each corner as seg segments.
func AppendRoundRect(dst []Point, r Rect, radius float32, seg int) []Point {
	radius = min(radius, r.W/2, r.H/2)
	if radius <= 0.01 {
		return append(dst, Point{r.X, r.Y}, Point{r.X + r.W, r.Y}, Point{r.X + r.W, r.Y + r.H}, Point{r.X, r.Y + r.H})
	}
	const q = math.Pi / 2
	dst = AppendArc(dst, r.X+radius, r.Y+radius, radius, 2*q, 3*q, seg)
	dst = AppendArc(dst, r.X+r.W-radius, r.Y+radius, radius, 3*q, 4*q, seg)
	dst = AppendArc(dst, r.X+r.W-radius, r.Y+r.H-radius, radius, 0, q, seg)
	dst = AppendArc(dst, r.X+radius, r.Y+r.H-radius, radius, q, 2*q, seg)
	return dst
}

// arcSegments picks how finely to flatten a curve of the given length in pixels:
// about one segment per 6 px, within [4, 48].
func arcSegments(length float32) int {
	return int(min(max(length/6, 4), 48))
}

func dist(a, b Point) float32 { return norm(b.X-a.X, b.Y-a.Y) }

// norm is the length of (dx, dy). Not math.Hypot: its guards against overflow
// and NaN cost a frame of 64 vCPUs about a tenth of its drawing time in wasm,
// and device-pixel coordinates neither overflow nor lose precision squared in
// float64.
func norm(dx, dy float32) float32 {
	x, y := float64(dx), float64(dy)
	return float32(math.Sqrt(x*x + y*y))
}

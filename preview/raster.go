package preview

import (
	"image"
	"image/color"
	"math"

	"golang.org/x/image/vector"
)

// Vector drawing on an RGBA image: shapes are polygons filled by
// golang.org/x/image/vector's anti-aliasing rasterizer. That package only fills
// paths, so the few shapes the card needs (rounded rectangles, rings, arcs,
// strokes) are built here as polygons; a fuller 2D library (gg, canvas) would
// bring more code into the Worker's wasm than these hundred lines, and the
// preview package may import only the standard library, the engine and x/image.
//
// Coordinates are pixels, y down. The rasterizer adds up signed coverage and
// clamps it, so polygons wound the same way (positive area, see orient) unite
// and a polygon wound the other way cuts a hole.

type pt struct{ x, y float64 }

type canvas struct {
	img *image.RGBA
	z   vector.Rasterizer
}

func newCanvas(w, h int, bg color.RGBA) *canvas {
	c := &canvas{img: image.NewRGBA(image.Rect(0, 0, w, h))}
	c.rect(0, 0, float64(w), float64(h), bg)
	return c
}

// fill paints the union of polys (minus the reversed ones) in col. The
// rasterizer is sized to the polygons' bounds, not the image: clearing a
// 1200x630 accumulator for every chip would cost more than drawing them.
func (c *canvas) fill(col color.RGBA, polys ...[]pt) {
	b := c.img.Bounds()
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, p := range polys {
		for _, q := range p {
			x0, y0, x1, y1 = min(x0, q.x), min(y0, q.y), max(x1, q.x), max(y1, q.y)
		}
	}
	r := image.Rect(int(math.Floor(x0)), int(math.Floor(y0)), int(math.Ceil(x1)), int(math.Ceil(y1))).Intersect(b)
	if r.Empty() {
		return
	}
	c.z.Reset(r.Dx(), r.Dy())
	ox, oy := float32(r.Min.X), float32(r.Min.Y)
	for _, p := range polys {
		if len(p) < 3 {
			continue
		}
		c.z.MoveTo(float32(p[0].x)-ox, float32(p[0].y)-oy)
		for _, q := range p[1:] {
			c.z.LineTo(float32(q.x)-ox, float32(q.y)-oy)
		}
		c.z.ClosePath()
	}
	c.z.Draw(c.img, r, image.NewUniform(col), image.Point{})
}

// area is a polygon's signed area (positive when clockwise on screen).
func area(p []pt) float64 {
	a := 0.0
	for i := range p {
		q, r := p[i], p[(i+1)%len(p)]
		a += q.x*r.y - r.x*q.y
	}
	return a / 2
}

// orient winds p with positive area (hole false) or negative (hole true).
func orient(p []pt, hole bool) []pt {
	if (area(p) < 0) != hole {
		for i, j := 0, len(p)-1; i < j; i, j = i+1, j-1 {
			p[i], p[j] = p[j], p[i]
		}
	}
	return p
}

func (c *canvas) rect(x, y, w, h float64, col color.RGBA) {
	c.fill(col, []pt{{x, y}, {x + w, y}, {x + w, y + h}, {x, y + h}})
}

// arcPts appends the points of a circular arc from angle a0 to a1 (radians,
// clockwise on screen from three o'clock), fine enough to look round.
func arcPts(dst []pt, cx, cy, r, a0, a1 float64) []pt {
	n := max(int(math.Ceil(math.Abs(a1-a0)*max(r, 1)/2.5)), 2)
	for i := 0; i <= n; i++ {
		a := a0 + (a1-a0)*float64(i)/float64(n)
		dst = append(dst, pt{cx + r*math.Cos(a), cy + r*math.Sin(a)})
	}
	return dst
}

// roundRect is a rounded rectangle's outline.
func roundRect(x, y, w, h, r float64) []pt {
	r = max(min(r, w/2, h/2), 0)
	var p []pt
	p = arcPts(p, x+w-r, y+r, r, -math.Pi/2, 0)
	p = arcPts(p, x+w-r, y+h-r, r, 0, math.Pi/2)
	p = arcPts(p, x+r, y+h-r, r, math.Pi/2, math.Pi)
	p = arcPts(p, x+r, y+r, r, math.Pi, 3*math.Pi/2)
	return p
}

func (c *canvas) roundRect(x, y, w, h, r float64, col color.RGBA) {
	c.fill(col, orient(roundRect(x, y, w, h, r), false))
}

// strokeRoundRect draws a rounded rectangle's edge of width lw inside it.
func (c *canvas) strokeRoundRect(x, y, w, h, r, lw float64, col color.RGBA) {
	c.fill(col, orient(roundRect(x, y, w, h, r), false),
		orient(roundRect(x+lw, y+lw, w-2*lw, h-2*lw, r-lw), true))
}

func (c *canvas) circle(cx, cy, r float64, col color.RGBA) {
	c.fill(col, orient(arcPts(nil, cx, cy, r, 0, 2*math.Pi), false))
}

// arcBand draws the band of width w centred on radius r from angle a0 to a1.
func (c *canvas) arcBand(cx, cy, r, w, a0, a1 float64, col color.RGBA) {
	p := arcPts(nil, cx, cy, r+w/2, a0, a1)
	inner := arcPts(nil, cx, cy, r-w/2, a0, a1)
	for i := len(inner) - 1; i >= 0; i-- {
		p = append(p, inner[i])
	}
	c.fill(col, orient(p, false))
}

// stroke draws a polyline of width w with round joins and ends.
func (c *canvas) stroke(line []pt, w float64, col color.RGBA) {
	var polys [][]pt
	for i := 0; i+1 < len(line); i++ {
		a, b := line[i], line[i+1]
		dx, dy := b.x-a.x, b.y-a.y
		l := math.Hypot(dx, dy)
		if l == 0 {
			continue
		}
		nx, ny := -dy/l*w/2, dx/l*w/2
		polys = append(polys, orient([]pt{{a.x + nx, a.y + ny}, {b.x + nx, b.y + ny}, {b.x - nx, b.y - ny}, {a.x - nx, a.y - ny}}, false))
	}
	for _, q := range line {
		polys = append(polys, orient(arcPts(nil, q.x, q.y, w/2, 0, 2*math.Pi), false))
	}
	c.fill(col, polys...)
}

// dashed draws a polyline as dashes of length on separated by off.
func (c *canvas) dashed(line []pt, w, on, off float64, col color.RGBA) {
	var dash []pt
	pos, drawing := 0.0, true
	flush := func() {
		if len(dash) > 1 {
			c.stroke(dash, w, col)
		}
		dash = dash[:0]
	}
	for i := 0; i+1 < len(line); i++ {
		a, b := line[i], line[i+1]
		l := math.Hypot(b.x-a.x, b.y-a.y)
		for t := 0.0; t < l; {
			seg := on
			if !drawing {
				seg = off
			}
			step := min(seg-pos, l-t)
			q := pt{a.x + (b.x-a.x)*(t+step)/l, a.y + (b.y-a.y)*(t+step)/l}
			if drawing {
				if len(dash) == 0 {
					dash = append(dash, pt{a.x + (b.x-a.x)*t/l, a.y + (b.y-a.y)*t/l})
				}
				dash = append(dash, q)
			}
			t += step
			pos += step
			if pos >= seg {
				if drawing {
					flush()
				}
				pos, drawing = 0, !drawing
			}
		}
	}
	flush()
}

// quad samples the quadratic Bézier curve a-ctl-b.
func quad(a, ctl, b pt, n int) []pt {
	out := make([]pt, 0, n+1)
	for i := 0; i <= n; i++ {
		t := float64(i) / float64(n)
		u := 1 - t
		out = append(out, pt{u*u*a.x + 2*u*t*ctl.x + t*t*b.x, u*u*a.y + 2*u*t*ctl.y + t*t*b.y})
	}
	return out
}

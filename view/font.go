package view

// A stroke font for the few characters the canvas writes (CPU numbers and "+N"
// runqueue overflow counts). Glyphs are polylines on a 4x6 grid, y down; drawn as
// strokes they stay crisp at any size and device scale, and the canvas needs no font
// file (all other text is HTML).

// glyph returns the strokes of r in tenths of a grid unit ("x,y" points separated
// by spaces, strokes by '|'), or "" when the font lacks r. Strings keep the font
// immutable and parsing them allocates nothing.
func glyph(r rune) string {
	switch r {
	case '0':
		return "10,0 30,0 40,10 40,50 30,60 10,60 0,50 0,10 10,0"
	case '1':
		return "8,14 24,0 24,60"
	case '2':
		return "0,12 10,0 30,0 40,10 40,22 0,60 40,60"
	case '3':
		return "0,8 9,0 30,0 40,9 40,20 30,29 14,29|30,29 40,39 40,51 30,60 9,60 0,52"
	case '4':
		return "30,60 30,0 0,42 42,42"
	case '5':
		return "40,0 4,0 2,28 12,23 30,23 40,33 40,50 30,60 9,60 0,52"
	case '6':
		return "36,2 24,0 12,4 3,16 0,32 0,50 10,60 30,60 40,50 40,37 30,28 10,28 0,38"
	case '7':
		return "0,0 40,0 14,60"
	case '8':
		return "20,28 10,28 3,21 3,8 11,0 29,0 37,8 37,21 30,28 20,28|10,28 0,38 0,50 10,60 30,60 40,50 40,38 30,28"
	case '9':
		return "4,58 16,60 28,56 37,44 40,28 40,10 30,0 10,0 0,10 0,22 10,32 30,32 40,22"
	case '+':
		return "2,30 38,30|20,12 20,48"
	case '-':
		return "6,30 34,30"
	}
	return ""
}

// Glyph metrics in grid units: each glyph is 4 wide and 6 tall, advanced by 5.6.
const (
	glyphW       = 4
	glyphH       = 6
	glyphAdvance = 5.6
)

// TextWidth is the width of s drawn h pixels tall.
func TextWidth(s string, h float32) float32 {
	n := len([]rune(s))
	if n == 0 {
		return 0
	}
	return (float32(n-1)*glyphAdvance + glyphW) * h / glyphH
}

// StrokeWidthFor is the stroke width used for text h pixels tall.
func StrokeWidthFor(h float32) float32 { return max(h*0.15, 1.2) }

// Text strokes s with its top-left corner at (x, y), h pixels tall. Characters
// without a glyph are skipped (leaving their space).
func (m *Mesh) Text(s string, x, y, h float32, c Color) {
	k := h / glyphH
	w := StrokeWidthFor(h)
	var pts [16]Point
	for _, r := range s {
		p := pts[:0]
		num, val := 0, [2]int{}
		g := glyph(r)
		for i := 0; i <= len(g); i++ {
			switch {
			case i < len(g) && g[i] >= '0' && g[i] <= '9':
				val[num] = val[num]*10 + int(g[i]-'0')
			case i < len(g) && g[i] == ',':
				num = 1
			default: // ' ', '|' or the end close a point; '|' and the end a stroke
				p = append(p, Point{x + float32(val[0])*k/10, y + float32(val[1])*k/10})
				num, val = 0, [2]int{}
				if i == len(g) || g[i] == '|' {
					m.StrokePolyline(p, w, c)
					p = pts[:0]
				}
			}
		}
		x += glyphAdvance * k
	}
}

// HasGlyph reports whether the font draws r.
func HasGlyph(r rune) bool { return glyph(r) != "" }

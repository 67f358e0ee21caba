package preview

import (
	"fmt"
	"image"
	"image/color"
	"strings"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/gomono"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// Text on the card is set in the Go fonts (golang.org/x/image/font/gofont),
// which ship inside the module as TTF bytes: no font files to deploy, and
// the Cloudflare Worker has no file system to load them from.

// fonts holds the parsed fonts and the faces made from them so far. One is
// made per PNG call: parsing takes microseconds, and a cache kept between
// calls would be shared mutable state.
type fonts struct {
	regular, bold *opentype.Font
	mono          *opentype.Font // parsed when first asked for: only a policy's code needs it
	faces         map[faceKey]font.Face
}

type faceKey struct {
	bold, mono bool
	size       float64
}

func loadFonts() (*fonts, error) {
	r, err := opentype.Parse(goregular.TTF)
	if err != nil {
		return nil, fmt.Errorf("preview: Go Regular: %w", err)
	}
	b, err := opentype.Parse(gobold.TTF)
	if err != nil {
		return nil, fmt.Errorf("preview: Go Bold: %w", err)
	}
	return &fonts{regular: r, bold: b, faces: map[faceKey]font.Face{}}, nil
}

// face returns the regular or bold face of size pixels.
func (f *fonts) face(bold bool, size float64) font.Face {
	k := faceKey{bold: bold, size: size}
	if fc, ok := f.faces[k]; ok {
		return fc
	}
	src := f.regular
	if bold {
		src = f.bold
	}
	// NewFace fails only for a nil font or a bad size; both are ours.
	fc, err := opentype.NewFace(src, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingNone})
	if err != nil {
		panic("preview.fonts.face: " + err.Error())
	}
	f.faces[k] = fc
	return fc
}

// monoFace returns Go Mono of size pixels, for a line of a policy's source.
func (f *fonts) monoFace(size float64) (font.Face, error) {
	k := faceKey{mono: true, size: size}
	if fc, ok := f.faces[k]; ok {
		return fc, nil
	}
	if f.mono == nil {
		m, err := opentype.Parse(gomono.TTF)
		if err != nil {
			return nil, fmt.Errorf("preview: Go Mono: %w", err)
		}
		f.mono = m
	}
	fc, err := opentype.NewFace(f.mono, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingNone})
	if err != nil {
		return nil, fmt.Errorf("preview: Go Mono at %g px: %w", size, err)
	}
	f.faces[k] = fc
	return fc, nil
}

// wrapText breaks s at spaces into at most lines lines no wider than w, the
// last shortened with an ellipsis when s does not fit.
func wrapText(face font.Face, s string, w float64, lines int) []string {
	var out []string
	for rest := strings.Fields(s); len(rest) > 0; {
		if len(out) == lines-1 {
			return append(out, fitText(face, strings.Join(rest, " "), w))
		}
		n := 1
		for n < len(rest) && width(face, strings.Join(rest[:n+1], " ")) <= w {
			n++
		}
		out = append(out, fitText(face, strings.Join(rest[:n], " "), w))
		rest = rest[n:]
	}
	return out
}

// width is s's advance in face, in pixels.
func width(face font.Face, s string) float64 {
	return float64(font.MeasureString(face, s)) / 64
}

// drawText draws s into img with its baseline starting at (x, y).
func drawText(img *image.RGBA, face font.Face, s string, x, y float64, col color.RGBA) {
	d := font.Drawer{Dst: img, Src: image.NewUniform(col), Face: face,
		Dot: fixed.Point26_6{X: fixed.Int26_6(x * 64), Y: fixed.Int26_6(y * 64)}}
	d.DrawString(s)
}

// fitText shortens s with an ellipsis until it is at most w pixels wide.
func fitText(face font.Face, s string, w float64) string {
	if width(face, s) <= w {
		return s
	}
	r := []rune(s)
	for n := len(r) - 1; n > 0; n-- {
		if t := string(r[:n]) + "…"; width(face, t) <= w {
			return t
		}
	}
	return ""
}

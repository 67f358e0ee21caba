package preview

import "image/color"

// Theme is the colours a preview is drawn with: the playground's palette
// (view/palette.go and static/style.css; the values are the same, so a
// preview looks like the page it leads to). The CPU states and IPIs use the
// Okabe-Ito colours, which stay apart for the common colour-vision
// deficiencies; the card never tells a state by colour alone.
type Theme struct {
	Name string
	// Page is the background, Stage and Surface the panels on it.
	Page, Stage, Surface, Border color.RGBA
	Text, Dim, Grid              color.RGBA
	// CPU states: fill, edge and the ink drawn on the fill.
	Running, RunningInk         color.RGBA
	Spinning, SpinFill, SpinInk color.RGBA
	Halted, HaltedEdge, HaltInk color.RGBA
	Waking                      color.RGBA
	IRQ, IRQInk                 color.RGBA
	RingTrack                   color.RGBA
	// IPIs by kind.
	IPIWakeup, IPIPull, IPIDonate color.RGBA
	// Thread chips and the waker's diamond.
	Chip, ChipOnRun, ChipKernel, Waker, WakerEdge color.RGBA
	// Arms A and B in charts, and a change for the better or worse.
	ArmA, ArmB, Better, Worse color.RGBA
}

// rgb is an opaque colour from 0xRRGGBB.
func rgb(v uint32) color.RGBA {
	return color.RGBA{uint8(v >> 16), uint8(v >> 8), uint8(v), 0xff}
}

// Dark is the default theme, the page's.
func Dark() Theme {
	return Theme{
		Name: "dark",
		Page: rgb(0x0d1117), Stage: rgb(0x161b22), Surface: rgb(0x1c232c), Border: rgb(0x2a313b),
		Text: rgb(0xe6edf3), Dim: rgb(0x8b97a6), Grid: rgb(0x30363d),
		Running: rgb(0x0072b2), RunningInk: rgb(0xffffff),
		Spinning: rgb(0xe69f00), SpinFill: rgb(0x3a2d0c), SpinInk: rgb(0xf5c45a),
		Halted: rgb(0x262d37), HaltedEdge: rgb(0x3b4554), HaltInk: rgb(0x94a1b2),
		Waking: rgb(0x56b4e9), IRQ: rgb(0xcc79a7), IRQInk: rgb(0x2a1020), RingTrack: rgb(0x4a3d1c),
		IPIWakeup: rgb(0x56b4e9), IPIPull: rgb(0xd55e00), IPIDonate: rgb(0x009e73),
		Chip: rgb(0xc9d4e0), ChipOnRun: rgb(0xffffff), ChipKernel: rgb(0x8b97a6),
		Waker: rgb(0xf0e442), WakerEdge: rgb(0x3d3700),
		ArmA: rgb(0x9aa5b4), ArmB: rgb(0x3fb950), Better: rgb(0x3fb950), Worse: rgb(0xf85149),
	}
}

// Light is the projector theme.
func Light() Theme {
	return Theme{
		Name: "light",
		Page: rgb(0xf4f6f8), Stage: rgb(0xffffff), Surface: rgb(0xf6f8fa), Border: rgb(0xd0d7de),
		Text: rgb(0x1f2328), Dim: rgb(0x57606a), Grid: rgb(0xd0d7de),
		Running: rgb(0x0072b2), RunningInk: rgb(0xffffff),
		Spinning: rgb(0xc98a00), SpinFill: rgb(0xfff1cc), SpinInk: rgb(0x7a5300),
		Halted: rgb(0xe4e8ed), HaltedEdge: rgb(0xaeb7c2), HaltInk: rgb(0x57606a),
		Waking: rgb(0x1f8fd0), IRQ: rgb(0xcc79a7), IRQInk: rgb(0x2a1020), RingTrack: rgb(0xead9a8),
		IPIWakeup: rgb(0x2b9ad8), IPIPull: rgb(0xd55e00), IPIDonate: rgb(0x009e73),
		Chip: rgb(0x4d5866), ChipOnRun: rgb(0xffffff), ChipKernel: rgb(0x8c959f),
		Waker: rgb(0xf0e442), WakerEdge: rgb(0x5c5300),
		ArmA: rgb(0x6e7781), ArmB: rgb(0x1a7f37), Better: rgb(0x1a7f37), Worse: rgb(0xcf222e),
	}
}

// ThemeNamed returns the theme called name ("" is dark), or false for an
// unknown name.
func ThemeNamed(name string) (Theme, bool) {
	switch name {
	case "", "dark":
		return Dark(), true
	case "light":
		return Light(), true
	}
	return Theme{}, false
}

// verdict is the colour of a change: better, worse, or neither (Metric.Verdict).
func (th *Theme) verdict(v int) color.RGBA {
	switch v {
	case +1:
		return th.Better
	case -1:
		return th.Worse
	}
	return th.Dim
}

// mix blends c toward d by t in [0, 1].
func mix(c, d color.RGBA, t float64) color.RGBA {
	m := func(a, b uint8) uint8 { return uint8(float64(a) + (float64(b)-float64(a))*t + 0.5) }
	return color.RGBA{m(c.R, d.R), m(c.G, d.G), m(c.B, d.B), 0xff}
}

// hex writes c as #rrggbb for SVG.
func hex(c color.RGBA) string {
	const digits = "0123456789abcdef"
	b := []byte{'#', 0, 0, 0, 0, 0, 0}
	for i, v := range []uint8{c.R, c.G, c.B} {
		b[1+2*i], b[2+2*i] = digits[v>>4], digits[v&15]
	}
	return string(b)
}

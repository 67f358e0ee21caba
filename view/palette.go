package view

import (
	"fmt"

	"schedplay/engine"
)

// Color is straight-alpha RGBA.
type Color struct{ R, G, B, A uint8 }

// Hex parses "#rrggbb"; it panics on anything else, since palettes are literals.
func Hex(s string) Color {
	var c Color
	if _, err := fmt.Sscanf(s, "#%02x%02x%02x", &c.R, &c.G, &c.B); err != nil || len(s) != 7 {
		panic("view.Hex: bad colour literal " + s)
	}
	c.A = 255
	return c
}

// CSS renders the colour as #rrggbb (alpha is ignored: palette colours are opaque).
func (c Color) CSS() string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }

// Mix blends c toward d by t in [0, 1] (an opaque stand-in for transparency, see the
// package doc).
func Mix(c, d Color, t float32) Color {
	m := func(a, b uint8) uint8 { return uint8(float32(a) + (float32(b)-float32(a))*t + 0.5) }
	return Color{m(c.R, d.R), m(c.G, d.G), m(c.B, d.B), m(c.A, d.A)}
}

// Palette names every colour the playground draws with. The state and IPI colours
// are Okabe-Ito (safe for the common colour-vision deficiencies); state is never
// carried by colour alone (see TileStyle).
type Palette struct {
	Name string
	// Page and stage backgrounds.
	Page, Stage Color
	// Text and lines on the stage.
	Text, TextDim, Grid Color
	// CPU states: fills, outlines and the text/icon colour drawn on each fill.
	Running, RunningInk         Color
	Spinning, SpinFill, SpinInk Color
	Halted, HaltedEdge, HaltInk Color
	Waking                      Color
	IRQ, IRQInk                 Color
	// Spin gauge track.
	RingTrack Color
	// IPIs by kind.
	IPIWakeup, IPIPull, IPIDonate Color
	// Thread chips: workers on a dark and on a blue tile, other kernel threads, the waker.
	Chip, ChipOnRun, ChipKernel, Waker, WakerEdge Color
	// ClassRT and ClassDL mark real-time and deadline tasks' chips.
	ClassRT, ClassDL Color
	// Selection outline.
	Select Color
	// Compare arms A and B in charts.
	ArmA, ArmB Color
	// Surface is a box on the stage (a metric card), Border its edge.
	Surface, Border Color
	// Better and Worse colour a change (view.Verdict).
	Better, Worse Color
	// Frames of a machine's topology (DrawTopoFrames): a node's panel and
	// edge, an LLC's outline, an SMT core's plate.
	FrameNodeFill, FrameNode, FrameLLC, FrameCore Color
	// Migration arcs by the level they cross (CrossLook): within a core,
	// within an LLC, across LLCs, across nodes. None is an IPI's colour.
	CrossSMT, CrossCore, CrossLLC, CrossNode Color
	// Groups colour thread chips by task group (an rt-app task's threads):
	// hues the tile fills do not use, light enough on a halted tile and on
	// the running blue. More groups than colours repeat them.
	Groups []Color
}

// GroupColor is task group g's chip colour (g from 1).
func (p *Palette) GroupColor(g int) Color {
	if len(p.Groups) == 0 || g < 1 {
		return p.Chip
	}
	return p.Groups[(g-1)%len(p.Groups)]
}

// groupColors are the task groups' chip colours: a bluish green, yellow,
// vermillion and a light pink near Okabe-Ito's, then lavender, a light grey,
// a pale green and a peach; none is a tile state's colour (spinning orange,
// running blue, waking sky blue), and each stands out on both themes' tiles.
func groupColors() []Color {
	return []Color{Hex("#00c08b"), Hex("#f0e442"), Hex("#ff7a2f"), Hex("#e48fc0"), Hex("#b39ddb"),
		Hex("#d9dee5"), Hex("#a6e3a1"), Hex("#ffd6a5")}
}

// Dark is the default theme.
func Dark() Palette {
	return Palette{
		Name: "dark",
		Page: Hex("#0d1117"), Stage: Hex("#161b22"),
		Text: Hex("#e6edf3"), TextDim: Hex("#8b97a6"), Grid: Hex("#30363d"),
		Running: Hex("#0072b2"), RunningInk: Hex("#ffffff"),
		Spinning: Hex("#e69f00"), SpinFill: Hex("#3a2d0c"), SpinInk: Hex("#f5c45a"),
		Halted: Hex("#262d37"), HaltedEdge: Hex("#3b4554"), HaltInk: Hex("#94a1b2"),
		Waking: Hex("#56b4e9"),
		IRQ:    Hex("#cc79a7"), IRQInk: Hex("#2a1020"),
		RingTrack: Hex("#4a3d1c"),
		IPIWakeup: Hex("#56b4e9"), IPIPull: Hex("#d55e00"), IPIDonate: Hex("#009e73"),
		Chip: Hex("#c9d4e0"), ChipOnRun: Hex("#ffffff"), ChipKernel: Hex("#8b97a6"),
		ClassRT: Hex("#ff6b6b"), ClassDL: Hex("#ffd43b"),
		Waker: Hex("#f0e442"), WakerEdge: Hex("#3d3700"),
		Select: Hex("#ffffff"),
		ArmA:   Hex("#9aa5b4"), ArmB: Hex("#3fb950"),
		Surface: Hex("#1c232c"), Border: Hex("#2a313b"),
		Better: Hex("#3fb950"), Worse: Hex("#f85149"),
		FrameNodeFill: Hex("#1b222b"), FrameNode: Hex("#3d4756"), FrameLLC: Hex("#566274"), FrameCore: Hex("#2c3542"),
		CrossSMT: Hex("#8b97a6"), CrossCore: Hex("#e6edf3"), CrossLLC: Hex("#f0e442"), CrossNode: Hex("#cc79a7"),
		Groups: groupColors(),
	}
}

// Light is the projector theme: a light page, with darker edges so outlines
// survive a washed-out projector.
func Light() Palette {
	return Palette{
		Name: "light",
		Page: Hex("#f4f6f8"), Stage: Hex("#ffffff"),
		Text: Hex("#1f2328"), TextDim: Hex("#57606a"), Grid: Hex("#d0d7de"),
		Running: Hex("#0072b2"), RunningInk: Hex("#ffffff"),
		Spinning: Hex("#c98a00"), SpinFill: Hex("#fff1cc"), SpinInk: Hex("#7a5300"),
		Halted: Hex("#e4e8ed"), HaltedEdge: Hex("#aeb7c2"), HaltInk: Hex("#57606a"),
		Waking: Hex("#1f8fd0"),
		IRQ:    Hex("#cc79a7"), IRQInk: Hex("#2a1020"),
		RingTrack: Hex("#ead9a8"),
		IPIWakeup: Hex("#2b9ad8"), IPIPull: Hex("#d55e00"), IPIDonate: Hex("#009e73"),
		Chip: Hex("#4d5866"), ChipOnRun: Hex("#ffffff"), ChipKernel: Hex("#8c959f"),
		ClassRT: Hex("#d6336c"), ClassDL: Hex("#e67700"),
		Waker: Hex("#f0e442"), WakerEdge: Hex("#5c5300"),
		Select: Hex("#0969da"),
		ArmA:   Hex("#6e7781"), ArmB: Hex("#1a7f37"),
		Surface: Hex("#f6f8fa"), Border: Hex("#d0d7de"),
		Better: Hex("#1a7f37"), Worse: Hex("#cf222e"),
		FrameNodeFill: Hex("#f3f5f8"), FrameNode: Hex("#aeb7c2"), FrameLLC: Hex("#8c959f"), FrameCore: Hex("#d5dbe2"),
		CrossSMT: Hex("#8c959f"), CrossCore: Hex("#1f2328"), CrossLLC: Hex("#a08600"), CrossNode: Hex("#b4407f"),
		Groups: groupColors(),
	}
}

// PaletteNamed returns Light for "light" and Dark otherwise.
func PaletteNamed(name string) Palette {
	if name == "light" {
		return Light()
	}
	return Dark()
}

// PaletteByName returns the palette called name ("" is dark), or false for an
// unknown name (a request naming a theme that does not exist is an error).
func PaletteByName(name string) (Palette, bool) {
	switch name {
	case "", "dark":
		return Dark(), true
	case "light":
		return Light(), true
	}
	return Palette{}, false
}

// VerdictColor is the colour of a change: better, worse, or neither (dim).
func (p *Palette) VerdictColor(v Verdict) Color {
	switch v {
	case IsBetter:
		return p.Better
	case IsWorse:
		return p.Worse
	}
	return p.TextDim
}

// IPIColor is the colour of an IPI kind.
func (p *Palette) IPIColor(k engine.IPIKind) Color {
	switch k {
	case engine.IPIPull:
		return p.IPIPull
	case engine.IPIDonate:
		return p.IPIDonate
	}
	return p.IPIWakeup
}

// CSSVars lists the palette as CSS custom properties, so the HTML legend, cards and
// charts use exactly the canvas colours.
func (p *Palette) CSSVars() map[string]string {
	return map[string]string{
		"--page": p.Page.CSS(), "--stage": p.Stage.CSS(), "--text": p.Text.CSS(), "--dim": p.TextDim.CSS(),
		"--grid": p.Grid.CSS(), "--running": p.Running.CSS(), "--spinning": p.Spinning.CSS(),
		"--spin-fill": p.SpinFill.CSS(), "--halted": p.Halted.CSS(), "--halted-edge": p.HaltedEdge.CSS(),
		"--waking": p.Waking.CSS(), "--irq": p.IRQ.CSS(), "--ipi-wakeup": p.IPIWakeup.CSS(),
		"--ipi-pull": p.IPIPull.CSS(), "--ipi-donate": p.IPIDonate.CSS(), "--waker": p.Waker.CSS(),
		"--waker-edge": p.WakerEdge.CSS(), "--arm-a": p.ArmA.CSS(), "--arm-b": p.ArmB.CSS(),
		"--surface-2": p.Surface.CSS(), "--border": p.Border.CSS(), "--better": p.Better.CSS(), "--worse": p.Worse.CSS(),
		"--class-rt": p.ClassRT.CSS(), "--class-dl": p.ClassDL.CSS(),
		"--frame-node": p.FrameNode.CSS(), "--frame-llc": p.FrameLLC.CSS(),
		"--cross-smt": p.CrossSMT.CSS(), "--cross-core": p.CrossCore.CSS(), "--cross-llc": p.CrossLLC.CSS(), "--cross-node": p.CrossNode.CSS(),
	}
}

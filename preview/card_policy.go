package preview

import (
	"fmt"
	"strconv"
	"strings"

	"schedplay/docs"
	"schedplay/view"
)

// The card of a scenario whose own policy failed: one that did not compile
// says so in place of the stage (nothing ran), with the line the compiler
// names quoted; one ejected during the run says so over its arm's pane, as
// the page does, beside the numbers.

// drawRefused draws the card of a policy the engine refused: the header, then
// the policy's name, "does not compile", the compiler's message and the line
// of source it names, with a caret under the column.
func drawRefused(c *canvas, f *fonts, pal *view.Palette, p *Preview) error {
	e := p.PolicyError
	drawHeader(c, f, pal, p)
	panel := rect(margin-14, 80, CardW-2*margin+28, 484)
	c.mesh.FillRoundRect(panel, 12, pal.Stage)
	x, w := margin+22, CardW-2*margin-44

	// custom policy: <name>
	label, name := f.face(false, 26), f.face(true, 32)
	nx := c.textAt(label, "custom policy: ", x, 146, pal.TextDim)
	c.textAt(name, fitText(name, p.Policy, x+w-nx), nx, 146, pal.Text)

	// The verdict, with the card's mark for a failure: a cross on red.
	drawMark(c, pal, docs.Miss, x+22, 211, 22)
	c.textAt(f.face(true, 46), "does not compile", x+60, 227, pal.Worse)

	msg := f.face(false, 30)
	y := 286.0
	for _, line := range wrapText(msg, e.Message, w, 2) {
		c.textAt(msg, line, x, y, pal.Text)
		y += 38
	}

	if e.Code != "" && e.Line > 0 {
		if err := drawCode(c, f, pal, e, x, y-4, w); err != nil {
			return err
		}
	}
	hint := f.face(false, 24)
	c.textAt(hint, "Open the link to edit the policy in the playground; the model runs it there.", x, 520, pal.TextDim)
	foot := "schedplay: the shared scenario's own sched_ext policy did not compile, so no arm ran · seed " + fmt.Sprint(p.Seed)
	c.textAt(f.face(false, 18), fitText(f.face(false, 18), foot, CardW-2*margin), margin, CardH-12, pal.TextDim)
	return nil
}

// drawCode quotes the source line e names in a code box at (x, top), its
// number in a gutter, and marks e's column with a caret. A long line is shown
// from a little before the column.
func drawCode(c *canvas, f *fonts, pal *view.Palette, e *PolicyError, x, top, w float64) error {
	mono, err := f.monoFace(28)
	if err != nil {
		return err
	}
	const h, pad = 92.0, 18.0
	box := rect(x, top, w, h)
	c.mesh.FillRoundRect(box, 8, pal.Page)
	c.mesh.StrokeRoundRect(box.Inset(0.75), 8, 1.5, pal.Border)
	num := strconv.Itoa(e.Line)
	gutter := x + pad + width(mono, strings.Repeat("0", max(len(num), 2)))
	c.textAt(mono, num, gutter-width(mono, num), top+47, pal.TextDim)
	c.mesh.FillRect(rect(gutter+12, top+12, 1.5, h-24), pal.Border)

	// Tabs as four spaces, in the quoted text and in the caret's offset alike.
	code := []rune(strings.ReplaceAll(e.Code, "\t", "    "))
	col := len([]rune(strings.ReplaceAll(string([]rune(e.Code)[:min(max(e.Col-1, 0), len([]rune(e.Code)))]), "\t", "    ")))
	cx := gutter + 32
	room := x + w - pad - cx
	lead := ""
	adv := width(mono, "m")
	if width(mono, string(code[:col])) > room*0.7 {
		// Start far enough before the column that it shows with what leads
		// to it: the box's first half.
		from := max(col-int(room*0.5/adv), 0)
		code, col, lead = code[from:], col-from, "…"
	}
	shown := fitText(mono, lead+string(code), room)
	c.textAt(mono, shown, cx, top+47, pal.Text)
	if e.Col > 0 {
		at := cx + width(mono, lead+string(code[:col]))
		// A caret under the column, and the character underlined.
		c.mesh.FillConvex([]view.Point{pt(at+adv/2, top+58), pt(at+adv/2+9, top+76), pt(at+adv/2-9, top+76)}, pal.Worse)
		c.mesh.FillRect(rect(at, top+54, adv, 3), pal.Worse)
	}
	return nil
}

// drawEjections writes, over the bottom of each arm's pane whose policy was
// ejected during the run, when and why: the numbers beside it are the arm's
// with its tasks back on the fair class from then on.
func drawEjections(c *canvas, f *fonts, pal *view.Palette, p *Preview, panes []view.Rect) {
	for i := range p.Arms {
		at, reason, ok := p.ejection(i)
		if !ok {
			continue
		}
		pane := panes[min(i, len(panes)-1)]
		const h = 76.0
		x, w := float64(pane.X)+10, float64(pane.W)-20
		y := float64(pane.Y+pane.H) - h - 10
		strip := rect(x, y, w, h)
		bg := view.Mix(pal.Surface, pal.Worse, 0.16)
		bg.A = 0xf2 // the tiles show faintly beneath, as on the page
		c.mesh.FillRoundRect(strip, 8, bg)
		c.mesh.StrokeRoundRect(strip.Inset(0.75), 8, 1.5, view.Mix(pal.Border, pal.Worse, 0.5))
		c.mesh.FillRoundRect(rect(x, y, 6, h), 3, pal.Worse)
		head, body := f.face(true, 22), f.face(false, 20)
		c.textAt(head, fitText(head, "policy ejected at "+at, w-36), x+20, y+30, view.Mix(pal.Text, pal.Worse, 0.35))
		c.textAt(body, fitText(body, reason, w-36), x+20, y+60, pal.Text)
	}
}

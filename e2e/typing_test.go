package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// The editors are tested here as a person uses them: in the page `schedplay
// serve` sends, with its Content-Security-Policy, by key presses (Chromium's
// Input.dispatchKeyEvent, which goes through the page's key handlers and the
// browser's text input as a keyboard's keys do), text inserted as an input
// method or a paste from another program inserts it (Input.insertText) and a
// paste event carrying the clipboard's text. The other editor tests set the
// text through the editor's handle and ran without the production headers,
// which is how the page came to drop typed spaces into play/pause and to lose
// CodeMirror's styles (issue 31): neither path was ever taken by a test.

// typingSetup opens the page from `schedplay serve` with a recorder of CSP
// violations, clicks the "Your own" button whose text holds button, waits
// for the editor (window[handle]) and runs the simulation to 50 ms, paused,
// so that a shortcut taking a key (play, step, reset) would show in the
// clock.
func typingSetup(t *testing.T, fragment, button, handle string) (context.Context, string) {
	t.Helper()
	ctx, _ := browser(t, 1280, 900)
	base := serve(t)
	// Before any script of the page: a refused <style> element is reported
	// as a securitypolicyviolation event, not as a console error.
	_, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
		Source: `window.__cspViolations = []; document.addEventListener('securitypolicyviolation', (e) =>
			window.__cspViolations.push({directive: e.effectiveDirective, source: e.sourceFile || '',
				what: (e.blockedURI || 'inline') + ' at ' + (e.sourceFile || '(no script)') + ':' + e.lineNumber + ' on ' +
					(e.target && e.target.outerHTML ? e.target.outerHTML.slice(0, 100) : '?')}));`,
	})
	if err != nil {
		t.Fatal(err)
	}
	open(t, ctx, base+"/"+fragment)
	// The editor's files come when an editor opens, not with the page.
	const fetched = `performance.getEntriesByType('resource').filter((e) => /\/editor\.(css|js)$/.test(e.name)).length`
	if n := eval[int](t, ctx, fetched); n != 0 {
		t.Errorf("the page fetched %d of the editor's files before an editor opened", n)
	}
	eval[any](t, ctx, `[...document.querySelectorAll('.own-open')].find(b => b.textContent.includes(`+jsString(button)+`)).click()`)
	waitFor(t, ctx, `!!window.`+handle+` && document.activeElement === window.`+handle+`.view.contentDOM`, time.Minute)
	if n := eval[int](t, ctx, fetched); n != 2 {
		t.Errorf("the page fetched %d of the editor's files (editor.js, editor.css) once the editor opened, want 2", n)
	}
	eval[any](t, ctx, `window.schedplay.runTo(50e6)`)
	waitRun(t, ctx, `(s => s.now_ns === 50e6 && s.pending === 0 && !s.playing)(window.schedplay.state())`, time.Minute)
	return ctx, base
}

// clock is where the simulation stands.
type clock struct {
	NowNs   int64 `json:"now_ns"`
	Playing bool  `json:"playing"`
}

func readClock(t *testing.T, ctx context.Context) clock {
	t.Helper()
	return evalJSON[clock](t, ctx, `(s => ({now_ns: s.now_ns, playing: s.playing}))(window.schedplay.state())`)
}

// press sends each rune of keys as a key press, as a keyboard does: one
// keyDown that carries the key's text (Chromium fires keydown and, unless a
// handler cancels it, types the text: so a key CodeMirror takes, such as
// Enter, types nothing more), then keyUp. chromedp.KeyEvent sends the text
// as a separate char event instead, which Chromium types even after a
// handled keydown, so Enter would make two lines; Puppeteer presses keys
// this way too. With Ctrl, Alt or Meta a key types nothing.
func press(t *testing.T, ctx context.Context, keys string, mods ...chromedp.Modifier) {
	t.Helper()
	var mod int64
	for _, m := range mods {
		mod |= int64(m)
	}
	for _, r := range keys {
		evs := kb.Encode(r)
		down, up := *evs[0], *evs[len(evs)-1]
		down.Modifiers |= mod
		up.Modifiers |= mod
		down.Type = input.DispatchKeyEventTypeRawKeyDown
		if len(evs) == 3 && mod&^int64(chromedp.ModifierShift) == 0 {
			down.Type, down.Text, down.UnmodifiedText = input.DispatchKeyEventTypeKeyDown, evs[1].Text, evs[1].UnmodifiedText
		}
		for _, ev := range []input.DispatchKeyEventParams{down, up} {
			if _, err := chromedp.Call(ctx, input.DispatchKeyEvent, ev); err != nil {
				t.Fatalf("pressing %q: %v", r, err)
			}
		}
	}
}

// insertText inserts text where the cursor is, as an input method or the
// system's paste does: through the browser's editing of the focused content,
// which is where white-space: normal turns spaces and tabs into U+00A0.
func insertText(t *testing.T, ctx context.Context, text string) {
	t.Helper()
	if _, err := chromedp.Call(ctx, input.InsertText, input.InsertTextParams{Text: text}); err != nil {
		t.Fatalf("inserting %q: %v", text, err)
	}
}

// paste sends the focused element a paste event carrying text as the
// clipboard's plain text, as Ctrl+V does.
func paste(t *testing.T, ctx context.Context, text string) {
	t.Helper()
	eval[any](t, ctx, `(() => { const dt = new DataTransfer(); dt.setData('text/plain', `+jsString(text)+`);
		document.activeElement.dispatchEvent(new ClipboardEvent('paste', {clipboardData: dt, bubbles: true, cancelable: true})) })()`)
}

// clickInto clicks, with the mouse, into the first line of an editor's
// text, as a person starting to type does.
func clickInto(t *testing.T, ctx context.Context, editor string) {
	t.Helper()
	r := evalJSON[struct {
		X float64 `json:"x"`
		Y float64 `json:"y"`
	}](t, ctx, `(e => { e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect(); return {x: r.left + 40, y: r.top + 8} })(document.querySelector('#`+editor+` .cm-line'))`)
	if err := chromedp.Do(ctx, chromedp.MouseClickXY(r.X, r.Y)); err != nil {
		t.Fatal(err)
	}
	if !eval[bool](t, ctx, `document.activeElement === document.querySelector('#`+editor+` .cm-content')`) {
		t.Fatalf("clicking at (%.0f, %.0f) did not put the cursor in #%s", r.X, r.Y, editor)
	}
}

// sameText fails unless got is want character by character, naming the
// first difference, and fails on any U+00A0 (the no-break space the
// browser puts for spaces in content that does not keep white space).
func sameText(t *testing.T, what, got, want string) {
	t.Helper()
	if i := strings.IndexRune(got, '\u00a0'); i >= 0 {
		t.Errorf("%s holds U+00A0 at byte %d: %q", what, i, got)
	}
	if got == want {
		return
	}
	g, w := []rune(got), []rune(want)
	for i := 0; i < max(len(g), len(w)); i++ {
		if i >= len(g) || i >= len(w) || g[i] != w[i] {
			at := func(r []rune) string {
				if i >= len(r) {
					return "the end"
				}
				return fmt.Sprintf("%U %q", r[i], r[i])
			}
			t.Fatalf("%s differs from what was typed at character %d: %s, want %s\n got: %q\nwant: %q", what, i, at(g), at(w), got, want)
		}
	}
}

// editorLooks checks, in the page, that the editor shows what CodeMirror's
// styles make of it: lines that keep white space; the first indented line's
// text to the right of the first unindented one's by its indentation's
// columns (a tab to the next tab stop); the line-number gutter beside the
// text; syntax colours; a drawn cursor; and no <style> element or CSP
// violation on the page.
func editorLooks(t *testing.T, ctx context.Context, handle string) {
	t.Helper()
	type looks struct {
		WhiteSpace  string  `json:"white_space"`
		LineWS      string  `json:"line_ws"`
		Indented    int     `json:"indented"`
		Columns     int     `json:"columns"`
		Shift       float64 `json:"shift"`
		CharW       float64 `json:"char_w"`
		GutterRight float64 `json:"gutter_right"`
		ContentLeft float64 `json:"content_left"`
		Numbers     int     `json:"numbers"`
		Colours     int     `json:"colours"`
		CursorH     float64 `json:"cursor_h"`
		Styles      int     `json:"styles"`
		Violations  []struct {
			Directive string `json:"directive"`
			Source    string `json:"source"`
			What      string `json:"what"`
		} `json:"violations"`
	}
	l := evalJSON[looks](t, ctx, `(() => {
		const v = window.`+handle+`.view, doc = v.state.doc, tab = v.state.tabSize;
		let indented = 0, flush = 0;
		for (let n = 1; n <= doc.lines && !(indented && flush); n++) {
			const text = doc.line(n).text;
			if (!text.trim()) continue;
			if (/^\s/.test(text)) indented = indented || n; else flush = flush || n;
		}
		const lead = (n) => doc.line(n).text.length - doc.line(n).text.trimStart().length;
		let columns = 0;
		for (const ch of doc.line(indented).text.slice(0, lead(indented))) columns = ch === '\t' ? columns + tab - columns % tab : columns + 1;
		const x = (n) => v.coordsAtPos(doc.line(n).from + lead(n)).left;
		const ed = v.dom, g = ed.querySelector('.cm-gutters').getBoundingClientRect();
		const colours = new Set([...ed.querySelectorAll('.cm-line span')].map((s) => getComputedStyle(s).color));
		colours.add(getComputedStyle(v.contentDOM).color);
		const cur = ed.querySelector('.cm-cursor');
		return {white_space: getComputedStyle(v.contentDOM).whiteSpace, line_ws: getComputedStyle(ed.querySelector('.cm-line')).whiteSpace,
			indented, columns, shift: x(indented) - x(flush), char_w: v.defaultCharacterWidth,
			gutter_right: g.right, content_left: v.contentDOM.getBoundingClientRect().left,
			numbers: ed.querySelectorAll('.cm-lineNumbers .cm-gutterElement').length, colours: colours.size,
			cursor_h: cur ? cur.getBoundingClientRect().height : 0, styles: document.querySelectorAll('style').length,
			violations: window.__cspViolations};
	})()`)
	for _, ws := range []string{l.WhiteSpace, l.LineWS} {
		if ws != "pre" && ws != "break-spaces" && ws != "pre-wrap" {
			t.Errorf("the editor's white-space is %q (content) / %q (line): indentation and spaces are not kept", l.WhiteSpace, l.LineWS)
			break
		}
	}
	if want := float64(l.Columns) * l.CharW; l.Columns == 0 || l.CharW <= 0 || l.Shift < want-1 || l.Shift > want+1 {
		t.Errorf("line %d's text starts %.1f px right of an unindented line's: want its %d columns of %.1f px", l.Indented, l.Shift, l.Columns, l.CharW)
	}
	if l.GutterRight > l.ContentLeft+0.5 || l.Numbers < 3 {
		t.Errorf("line numbers: gutter ends at %.1f px, text starts at %.1f px, %d numbers", l.GutterRight, l.ContentLeft, l.Numbers)
	}
	if l.Colours < 3 {
		t.Errorf("%d text colours in the editor: want syntax highlighting", l.Colours)
	}
	if l.CursorH < 10 {
		t.Errorf("the cursor is %.1f px tall: want a drawn cursor", l.CursorH)
	}
	if l.Styles != 0 {
		t.Errorf("the page has %d <style> elements: want the editor's styles from editor.css only", l.Styles)
	}
	// Any refusal caused by a script (CodeMirror's, the page's) or of a
	// style element fails. One refusal comes from Chromium's own editing:
	// when the first key replaces the whole text (Ctrl+A), the browser tries
	// to put a style attribute on the line it types into (the report names
	// no script and has no sample). CodeMirror draws its lines from its own
	// state, so that one is logged only.
	for _, v := range l.Violations {
		if v.Source == "" && v.Directive == "style-src-attr" {
			t.Logf("CSP refused Chromium's editing a style attribute (harmless): %s", v.What)
			continue
		}
		t.Errorf("CSP violation %s: %s", v.Directive, v.What)
	}
}

// sameStyles checks that the page's editor makes the very styles the served
// editor.css holds (build.mjs wrote it from the same script, run in Node):
// the class names in the file are the ones the page's editors carry.
func sameStyles(t *testing.T, ctx context.Context, base string) {
	t.Helper()
	got := eval[string](t, ctx, `window.schedplayEditor.styleSheet()`)
	css, err := chromedp.Run(ctx, chromedp.Evaluate[string](`fetch('/editor.css').then((r) => r.text())`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(css, "*/\n"+got) {
		t.Errorf("%s/editor.css does not end with the styles the page's editor makes (%d bytes of them): rebuild web/editor", base, len(got))
	}
}

// TestTypedPolicyEditor: on hackbench, a person opens "✎ Scheduler policy
// (Starlark)", clicks into the example, selects it all and types a policy
// over it: spaces, '.', 'r' and 'R' (the page's play, step and reset keys
// elsewhere), Enter after a colon (the next line indents itself), Tab,
// text with tabs and runs of spaces put in as an input method does, and a
// pasted block with tabs and comments. The editor holds exactly what was
// typed, shows it indented, and the simulation never moved. The page's
// shortcuts still work outside the editor: Space there plays.
func TestTypedPolicyEditor(t *testing.T) {
	ctx, base := typingSetup(t, "#v=1&preset=hackbench&compare=off", "Scheduler policy", "schedplayEditorView")
	editorLooks(t, ctx, "schedplayEditorView") // the example scx_simple, before any key
	sameStyles(t, ctx, base)
	before := readClock(t, ctx)

	clickInto(t, ctx, "policy-editor")
	press(t, ctx, "a", chromedp.ModifierCtrl) // select all: what is typed replaces the example
	want := ""
	typed := func(keys string) { press(t, ctx, keys); want += keys }
	typed("x = [1, 2] # r. R\n")
	typed("def f(a):\n")
	want += "    " // Enter after a colon indents the body by the indent unit
	typed("if a:\n")
	want += "        " // and again
	typed("return a. r\n")
	want += "        " // the next line keeps the block's indent
	press(t, ctx, "\t", chromedp.ModifierShift)
	want = strings.TrimSuffix(want, "    ") // Shift+Tab: one unit less (indentWithTab)
	typed("pass  # R")
	insertText(t, ctx, "\t# tab,  two  spaces\t.")
	want += "\t# tab,  two  spaces\t."
	press(t, ctx, "\r")
	want += "\n    "
	press(t, ctx, "\t")
	want += "    " // Tab: one unit more
	block := "# pasted\n\tif a:\t# r\n\t\treturn  a . r\n"
	paste(t, ctx, block)
	want += block

	typedAsTyped(t, ctx, "policy", "schedplayEditorView", want, before)

	// Outside the editor, the same key is the page's: Space plays. (So the
	// keys above would have been taken, had the editor not kept them.)
	eval[any](t, ctx, `document.activeElement.blur()`)
	press(t, ctx, " ")
	waitFor(t, ctx, `window.schedplay.state().playing`, 10*time.Second)
	eval[any](t, ctx, `window.schedplay.pause()`)
	if got := eval[string](t, ctx, `window.schedplayEditorView.get()`); got != want {
		t.Errorf("the key pressed outside the editor changed its text to %q", got)
	}
	eval[any](t, ctx, `localStorage.removeItem('schedplay.policy.draft')`)
}

// TestTypedWorkloadEditor: on idle-guest, a person opens "✎ Workload
// (rt-app)", selects the editor's text and types an rt-app description,
// with Enter's indentation, Tab, spaces and '.' and 'r' in task names,
// text with tabs put in as an input method does and a pasted task with
// tabs and comments; the editor holds exactly that, the simulation did not
// move while typing, and Ctrl+Enter runs it: the engine decodes it (no
// "invalid character '\u00a0'") and its three tasks run.
func TestTypedWorkloadEditor(t *testing.T) {
	ctx, base := typingSetup(t, "#v=1&preset=idle-guest&compare=off", "Workload (rt-app)", "schedplayWorkloadView")
	sameStyles(t, ctx, base)
	// The editor opens empty when the page runs no description: an example
	// gives it indented lines to look at.
	periodic, err := os.ReadFile(filepath.Join(repoRoot(t), "examples", "rtapp", "periodic.json"))
	if err != nil {
		t.Fatal(err)
	}
	eval[any](t, ctx, `(s => { s.value = 'periodic'; s.dispatchEvent(new Event('change')) })(document.getElementById('workload-example'))`)
	waitFor(t, ctx, `window.schedplayWorkloadView.get() === `+jsString(string(periodic)), 10*time.Second)
	editorLooks(t, ctx, "schedplayWorkloadView") // "\t/*" under "{": a tab, to the first tab stop
	before := readClock(t, ctx)

	clickInto(t, ctx, "workload-editor")
	press(t, ctx, "a", chromedp.ModifierCtrl)
	want := ""
	typed := func(keys string) { press(t, ctx, keys); want += keys }
	typed("{\n")
	want += "  " // inside the object: one indent unit (two spaces for rt-app)
	typed("// typed. r R\n")
	want += "  "
	typed(`"global": {"duration": 1},` + "\n")
	want += "  "
	typed(`"tasks": {` + "\n")
	want += "    "
	typed(`"t. r": {"run": 1000, "sleep": 1000},` + "\n")
	want += "    "
	insertText(t, ctx, "\"tab r\":\t{\"run\":  500,\t\"sleep\": 500},")
	want += "\"tab r\":\t{\"run\":  500,\t\"sleep\": 500},"
	press(t, ctx, "\r")
	want += "\n    "
	press(t, ctx, "\t")
	want += "  " // Tab: one indent unit more
	block := "\"pasted\": {\t/* tabs\tand comments */\n\t\t\"run\": 2000,\t// r. R\n\t\t\"sleep\": 8000\n\t}\n}}\n"
	paste(t, ctx, block)
	want += block

	typedAsTyped(t, ctx, "workload", "schedplayWorkloadView", want, before)

	// Ctrl+Enter, in the editor, runs it.
	press(t, ctx, "\r", chromedp.ModifierCtrl)
	waitFor(t, ctx, readWorkload+`.source === `+jsString(want), 10*time.Second)
	w := evalJSON[workloadPanel](t, ctx, readWorkload)
	if w.Error != nil || !w.Runs {
		t.Fatalf("the typed description did not run: runs %v, error %+v", w.Runs, w.Error)
	}
	eval[any](t, ctx, `window.schedplay.jumpTo(200e6)`)
	waitRun(t, ctx, `(s => s.now_ns === 200e6 && s.pending === 0 && !s.playing)(window.schedplay.state())`, time.Minute)
	waitFor(t, ctx, readWorkload+`.arms?.[0]?.tasks?.length > 0`, 10*time.Second)
	w = evalJSON[workloadPanel](t, ctx, readWorkload)
	names := map[string]int64{}
	for _, tk := range w.Arms[0].Tasks {
		names[tk.Name] = tk.Loops
	}
	for _, name := range []string{"t. r", "tab r", "pasted"} {
		if names[name] == 0 {
			t.Errorf("task %q made no loop pass in 200 ms (tasks %v)", name, names)
		}
	}
	eval[any](t, ctx, `localStorage.removeItem('schedplay.rtapp.draft')`)
}

// typedAsTyped checks what was typed into the section's editor (its handle
// on window): the text exactly as typed, the simulation where it was, the
// editor drawn as it should be; and takes its screenshot.
func typedAsTyped(t *testing.T, ctx context.Context, section, handle, want string, before clock) {
	t.Helper()
	got := eval[string](t, ctx, `window.`+handle+`.get()`)
	sameText(t, "the "+section+" editor", got, want)
	if c := readClock(t, ctx); c != before {
		t.Errorf("typing moved the simulation: %+v before, %+v after", before, c)
	}
	editorLooks(t, ctx, handle)
	eval[any](t, ctx, `document.getElementById('`+section+`-panel').scrollIntoView()`)
	screenshot(t, ctx, "#"+section+"-panel", "typed-"+section+"-editor")
}

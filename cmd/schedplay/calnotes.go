package main

import (
	"bytes"
	"fmt"
	"html"
	"slices"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"

	"schedplay/engine"
)

// The model notes as web pages. A verdict on the page's cards links to the
// section of docs/model-notes.md that says why the model hits or misses that
// result; calibrate renders the notes (and the documents they link to) into
// static/notes/, the playground bundle that `schedplay serve` and the
// Cloudflare Worker's static assets both serve, at docs.NotesPath.
//
// Which section explains which result is said in the notes themselves, by a
// comment under the section's heading that GitHub and the pages leave
// invisible:
//
//	<!-- verdicts: tpcb-32vcpu workload.clients=64 throughput_per_s changes -->
//
// Its first word is the case (the example's name); then, in any order, knob
// settings the point's own overrides must include (several values of one knob
// are alternatives), metric names, and "figures" or "changes" for the kind of
// row. A row's section is that of the most specific marker that matches it.

// notesPages are the documents rendered into the notes directory: the model
// notes, and the documents they link to. A link between them becomes a link
// between the pages.
var notesPages = []string{"model-notes.md", "calibration.md", "mechanisms.md", "policies.md", "validation.md"}

const notesSource = "model-notes.md"

// notesMarkdown is the Markdown dialect of the documents: GitHub's tables, and
// heading anchors as GitHub makes them (ghIDs). A column's alignment is an
// attribute, not a style: the server's Content-Security-Policy (style-src
// 'self') drops inline styles.
func notesMarkdown() goldmark.Markdown {
	return goldmark.New(
		goldmark.WithExtensions(extension.NewTable(extension.WithTableCellAlignMethod(extension.TableCellAlignAttribute))),
		goldmark.WithParserOptions(parser.WithAutoHeadingID()))
}

func parseNotes(md goldmark.Markdown, src []byte) ast.Node {
	return md.Parser().Parse(text.NewReader(src), parser.WithContext(parser.NewContext(parser.WithIDs(&ghIDs{seen: map[string]int{}}))))
}

// ghIDs makes heading anchors as GitHub does, so a link within a document
// (mechanisms.md's #wake_sync) lands on the same heading in both: lower case,
// letters, digits, '-' and '_' kept, spaces made '-', the rest dropped; a
// repeated anchor gets "-1", "-2", ...
type ghIDs struct{ seen map[string]int }

func (g *ghIDs) Generate(value []byte, _ ast.NodeKind) []byte {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(string(value))) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	id := b.String()
	if n, ok := g.seen[id]; ok {
		g.seen[id] = n + 1
		id = fmt.Sprintf("%s-%d", id, n+1)
	}
	g.seen[id] = 0
	return []byte(id)
}

func (g *ghIDs) Put(value []byte) { g.seen[string(value)] = 0 }

// notesMarker is one verdicts comment.
type notesMarker struct {
	section  string // the anchor of the heading above it
	caseName string
	settings map[string][]string // path -> accepted values
	metrics  []string
	kinds    []string // "figures", "changes"
}

// notesRow is what a marker is matched against.
type notesRow struct {
	caseName, metric, kind string
	own                    []string // the point's own overrides, "path=value"
}

func (m *notesMarker) matches(r notesRow) bool {
	if m.caseName != r.caseName || len(m.metrics) > 0 && !slices.Contains(m.metrics, r.metric) ||
		len(m.kinds) > 0 && !slices.Contains(m.kinds, r.kind) {
		return false
	}
	for path, vals := range m.settings {
		if !slices.ContainsFunc(vals, func(v string) bool { return slices.Contains(r.own, path+"="+v) }) {
			return false
		}
	}
	return true
}

// specificity counts the marker's constraints: the most specific match wins.
func (m *notesMarker) specificity() int {
	n := len(m.settings)
	if len(m.metrics) > 0 {
		n++
	}
	if len(m.kinds) > 0 {
		n++
	}
	return n
}

// notesMarkers reads the verdicts comments of the notes, failing on one that
// names an unknown case or metric or sits above every heading, so a typo
// cannot silently leave a result without its explanation.
func notesMarkers(src []byte, cases []*calCase) ([]notesMarker, error) {
	known := map[string]bool{}
	for _, m := range metrics(engine.Results{}) {
		known[m.name] = true
	}
	caseNames := map[string]bool{}
	for _, c := range cases {
		caseNames[c.sc.Name] = true
	}
	var out []notesMarker
	section := ""
	doc := parseNotes(notesMarkdown(), src)
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		switch n := n.(type) {
		case *ast.Heading:
			if id, ok := n.AttributeString("id"); ok {
				section = string(id.([]byte))
			}
		case *ast.HTMLBlock:
			var raw bytes.Buffer
			lines := n.Lines()
			for i := range lines.Len() {
				seg := lines.At(i)
				raw.Write(seg.Value(src))
			}
			body, ok := strings.CutPrefix(strings.TrimSpace(raw.String()), "<!-- verdicts:")
			if !ok {
				continue
			}
			words := strings.Fields(strings.TrimSuffix(body, "-->"))
			if len(words) == 0 || !caseNames[words[0]] {
				return nil, fmt.Errorf("a verdicts comment names no case of the examples: %q", raw.String())
			}
			if section == "" {
				return nil, fmt.Errorf("the verdicts comment for %s is above every heading", words[0])
			}
			m := notesMarker{section: section, caseName: words[0], settings: map[string][]string{}}
			for _, w := range words[1:] {
				switch path, v, isSet := strings.Cut(w, "="); {
				case isSet:
					m.settings[path] = append(m.settings[path], v)
				case w == "figures" || w == "changes":
					m.kinds = append(m.kinds, w)
				case known[w]:
					m.metrics = append(m.metrics, w)
				default:
					return nil, fmt.Errorf("verdicts comment for %s: %q is neither a knob setting, a metric of the results, nor figures/changes", words[0], w)
				}
			}
			out = append(out, m)
		}
	}
	return out, nil
}

// sectionOf is the anchor of the section that explains row, or "".
func sectionOf(markers []notesMarker, r notesRow) string {
	best, bestN := "", -1
	for i := range markers {
		if m := &markers[i]; m.matches(r) && m.specificity() > bestN {
			best, bestN = m.section, m.specificity()
		}
	}
	return best
}

// renderNotesPage renders one document as a page of the notes directory:
// links to the other rendered documents go to their pages, and the page names
// the document it was generated from.
func renderNotesPage(name string, src []byte) ([]byte, error) {
	md := notesMarkdown()
	doc := parseNotes(md, src)
	title := ""
	err := ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Link:
			dest := string(n.Destination)
			file, frag, _ := strings.Cut(dest, "#")
			if slices.Contains(notesPages, file) {
				n.Destination = []byte(strings.TrimSuffix(file, ".md") + ".html" + strings.TrimSuffix("#"+frag, "#"))
			}
		case *ast.Heading:
			if n.Level == 1 && title == "" {
				title = string(headingText(n, src))
			}
		}
		return ast.WalkContinue, nil
	})
	if err != nil {
		return nil, err
	}
	if title == "" {
		title = strings.TrimSuffix(name, ".md")
	}
	var body bytes.Buffer
	if err := md.Renderer().Render(&body, src, doc); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, `<!doctype html>
<!-- Code generated by schedplay calibrate from docs/%s; DO NOT EDIT. -->
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>%s · schedplay</title>
<link rel="stylesheet" href="notes.css">
</head>
<body>
<nav><a href="/">schedplay</a> · notes: `, name, html.EscapeString(title))
	for i, p := range notesPages {
		if i > 0 {
			b.WriteString(" · ")
		}
		label := strings.TrimSuffix(p, ".md")
		if p == name {
			fmt.Fprintf(&b, `<b aria-current="page">%s</b>`, label)
		} else {
			fmt.Fprintf(&b, `<a href="%s.html">%s</a>`, label, label)
		}
	}
	b.WriteString("</nav>\n<main>\n")
	b.Write(body.Bytes())
	b.WriteString("</main>\n</body>\n</html>\n")
	return b.Bytes(), nil
}

// headingText is a heading's text without its markup.
func headingText(n ast.Node, src []byte) []byte {
	var b bytes.Buffer
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if t, ok := c.(*ast.Text); ok && entering {
			b.Write(t.Segment.Value(src))
		}
		return ast.WalkContinue, nil
	})
	return b.Bytes()
}

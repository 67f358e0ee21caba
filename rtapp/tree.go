package rtapp

import (
	"bytes"
	"errors"
	"io"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// node is one JSON value read from jsontext's token stream. Objects keep
// their members as a slice, in file order and with repeated names, which is
// what rt-app's grammar needs (see tutorial.txt: "You don't have to ensure
// uniqueness of key in json object"); a map would lose both.
type node struct {
	kind jsontext.Kind // '{', '[', '"', '0', 't', 'f', 'n'
	pos  Pos
	str  string // string value, or the literal text of a number
	// bare marks the value of a key written alone ("suspend",), which the
	// file does not have (blankBareKeys); its kind is 'n'.
	bare    bool
	members []member
	elems   []*node
}

type member struct {
	name string
	pos  Pos // of the name
	val  *node
}

func (n *node) describe() string {
	switch n.kind {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return quote(n.str)
	case 't':
		return "true"
	case 'f':
		return "false"
	case 'n':
		return "null"
	}
	return n.str
}

func quote(s string) string {
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	b, _ := jsontext.AppendQuote(nil, s)
	return string(b)
}

// maxDepth bounds nesting; rt-app descriptions need 6 levels
// (root.tasks.T.phases.P.timer).
const maxDepth = 16

// parseTree reads the cleaned text with a jsontext.Decoder. Duplicate names
// are allowed (AllowDuplicateNames) because repeated event keys are part of
// the grammar; invalid UTF-8 is allowed (AllowInvalidUTF8) because json-c,
// which rt-app uses, does not check it either. Nesting is bounded by maxDepth
// here (jsontext's WithDepthLimit is not implemented in this version).
func parseTree(src *source, cleaned []byte, bare []bareKey) (*node, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(cleaned),
		jsontext.AllowDuplicateNames(true),
		jsontext.AllowInvalidUTF8(true),
	)
	p := &treeParser{src: src, buf: cleaned, dec: dec, bare: bare}
	root, err := p.value(0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		if err == nil {
			return nil, errorAt(src.pos(p.nextOffset()), "", "unexpected data after the top-level object")
		}
		return nil, p.wrap(err)
	}
	return root, nil
}

type treeParser struct {
	src *source
	buf []byte
	dec *jsontext.Decoder
	// bare are the keys written alone that are still to be put back, in
	// file order.
	bare []bareKey
}

// takeBare appends to object n the bare keys that stood before the next
// token: the parser reads in file order, so those left when an object's
// member (or its end) comes next are that object's.
func (p *treeParser) takeBare(n *node) {
	next := p.nextOffset()
	for len(p.bare) > 0 && p.bare[0].off < next {
		b := p.bare[0]
		p.bare = p.bare[1:]
		pos := p.src.pos(b.off)
		n.members = append(n.members, member{name: b.name, pos: pos, val: &node{kind: 'n', pos: pos, bare: true}})
	}
}

// nextOffset is where the next token starts: after the last token, skip
// blanks and the ':' or ',' separators.
func (p *treeParser) nextOffset() int64 {
	off := p.dec.InputOffset()
	for off < int64(len(p.buf)) {
		c := p.buf[off]
		if !isSpace(c) && c != ':' && c != ',' {
			break
		}
		off++
	}
	return off
}

func (p *treeParser) wrap(err error) error {
	var se *jsontext.SyntacticError
	if errors.As(err, &se) {
		msg := "invalid JSON"
		switch {
		case errors.Is(se.Err, io.ErrUnexpectedEOF):
			msg = "unexpected end of input"
		case se.Err != nil:
			msg = strings.TrimPrefix(se.Err.Error(), "jsontext: ")
		}
		path := strings.ReplaceAll(strings.TrimPrefix(string(se.JSONPointer), "/"), "/", ".")
		return errorAt(p.src.pos(se.ByteOffset), path, "%s", msg)
	}
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		return errorAt(p.src.pos(int64(len(p.buf))), "", "unexpected end of input")
	}
	return errorAt(p.src.pos(p.dec.InputOffset()), "", "%v", err)
}

func (p *treeParser) value(depth int) (*node, error) {
	off := p.nextOffset()
	if depth > maxDepth {
		return nil, errorAt(p.src.pos(off), "", "nested more than %d levels deep", maxDepth)
	}
	tok, err := p.dec.ReadToken()
	if err != nil {
		return nil, p.wrap(err)
	}
	n := &node{kind: tok.Kind(), pos: p.src.pos(off)}
	switch n.kind {
	case '"', '0':
		n.str = tok.String()
	case '{':
		for p.takeBare(n); p.dec.PeekKind() != '}'; p.takeBare(n) {
			noff := p.nextOffset()
			tok, err := p.dec.ReadToken()
			if err != nil {
				return nil, p.wrap(err)
			}
			name := tok.String()    // before the next call voids tok
			npos := p.src.pos(noff) // in file order, before the value's
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			n.members = append(n.members, member{name: name, pos: npos, val: v})
		}
		if _, err := p.dec.ReadToken(); err != nil {
			return nil, p.wrap(err)
		}
	case '[':
		for p.dec.PeekKind() != ']' {
			v, err := p.value(depth + 1)
			if err != nil {
				return nil, err
			}
			n.elems = append(n.elems, v)
		}
		if _, err := p.dec.ReadToken(); err != nil {
			return nil, p.wrap(err)
		}
	}
	return n, nil
}

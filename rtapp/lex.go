package rtapp

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// clean turns rt-app's "JSON-like" text into strict JSON without moving a
// single byte: comments (/* */ and //) and trailing commas (",}" and ",]")
// are overwritten with spaces, newlines inside block comments are kept. So an
// offset into the cleaned text is an offset into the original file, and
// line:col computed on one is valid for the other.
//
// rt-app itself hands the file to json-c's json_object_from_file (see
// parse_config in src/rt-app_parse_config.c), whose non-strict tokener accepts
// both; this pre-pass gives the same leniency to jsontext, which accepts
// neither. It respects strings: "//" or "/*" inside a string is text.
func clean(src []byte) ([]byte, []bareKey, error) {
	out := make([]byte, len(src))
	copy(out, src)

	// Pass 1: comments.
	var str inString
	for i := 0; i < len(out); i++ {
		c := out[i]
		if str.in(c) {
			continue
		}
		switch {
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			start := i
			out[i], out[i+1] = ' ', ' '
			i += 2
			closed := false
			for ; i < len(out); i++ {
				if out[i] == '*' && i+1 < len(out) && out[i+1] == '/' {
					out[i], out[i+1] = ' ', ' '
					i++
					closed = true
					break
				}
				if out[i] != '\n' {
					out[i] = ' '
				}
			}
			if !closed {
				return nil, nil, errorAt(newSource(src).pos(int64(start)), "", "comment opened here is never closed")
			}
		}
	}

	// Pass 2: bare "suspend" keys, now that comments are blank; before the
	// trailing commas, since blanking one can leave a comma trailing.
	bare, alone := blankBareKeys(out)
	if alone >= 0 {
		end := stringEnd(out, alone)
		return nil, nil, errorAt(newSource(src).pos(int64(alone)), "", "%s has no value: only a suspend may be written alone (workgen gives it its task's name); write %s: \"...\"", out[alone:end+1], out[alone:end+1])
	}

	// Pass 3: trailing commas.
	str = inString{}
	for i := 0; i < len(out); i++ {
		c := out[i]
		if str.in(c) {
			continue
		}
		switch c {
		case ',':
			j := i + 1
			for j < len(out) && isSpace(out[j]) {
				j++
			}
			if j < len(out) && (out[j] == '}' || out[j] == ']') {
				out[i] = ' '
			}
		}
	}
	return out, bare, nil
}

// bareKey is a "suspend" key written without a value ("suspend",), which
// workgen (doc/workgen's check_suspend_json, in the rt-app 1.0 that
// Debian ships) rewrites as "suspend" : "<the task's name>" before rt-app
// reads the file. clean blanks it, with its comma, and the tree parser puts
// it back as a member whose value is marked bare.
type bareKey struct {
	off  int64 // of its opening quote
	name string
}

// blankBareKeys finds the object members that are a key alone, followed by
// ',' or '}', whose key is "suspend" and digits, and overwrites each (and
// its comma) with spaces. Any other key alone is left for the JSON
// decoder to refuse; workgen rewrites only a line that mentions suspend
// and has no ':'. alone is the offset of the first other key written
// alone, or -1.
func blankBareKeys(out []byte) (found []bareKey, alone int) {
	alone = -1
	var stack []byte // '{' or '[' of each open container
	expectKey := false
	for i := 0; i < len(out); i++ {
		switch c := out[i]; c {
		case '{', '[':
			stack = append(stack, c)
			expectKey = c == '{'
		case '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			expectKey = false
		case ',':
			expectKey = len(stack) > 0 && stack[len(stack)-1] == '{'
		case ':':
			expectKey = false
		case '"':
			end := stringEnd(out, i)
			if expectKey && end < len(out) {
				k := end + 1
				for k < len(out) && isSpace(out[k]) {
					k++
				}
				name := string(out[i+1 : end])
				if k < len(out) && (out[k] == ',' || out[k] == '}') && !isSuspendKey(name) && alone < 0 {
					alone = i
				}
				if k < len(out) && (out[k] == ',' || out[k] == '}') && isSuspendKey(name) {
					found = append(found, bareKey{off: int64(i), name: name})
					for j := i; j <= end; j++ {
						out[j] = ' '
					}
					if out[k] == ',' {
						out[k] = ' '
					}
				}
			}
			expectKey = false
			i = end
		}
	}
	return found, alone
}

// stringEnd is the index of the quote closing the string opened at i, or
// len(b) when it is never closed.
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j
		}
	}
	return len(b)
}

// isSuspendKey reports whether key is "suspend" and digits, as an event key
// is its name and digits (eventKind).
func isSuspendKey(key string) bool {
	rest, ok := strings.CutPrefix(key, "suspend")
	return ok && strings.Trim(rest, "0123456789") == ""
}

// inString follows a JSON text byte by byte: in reports whether c is part of
// a string (its quotes included), which the passes leave as it is.
type inString struct{ open, escaped bool }

func (s *inString) in(c byte) bool {
	switch {
	case !s.open:
		s.open = c == '"'
		return s.open
	case s.escaped:
		s.escaped = false
	case c == '\\':
		s.escaped = true
	case c == '"':
		s.open = false
	}
	return true
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// source is the original text with its line starts, to turn byte offsets
// into line:col without rescanning the file.
type source struct {
	data       []byte
	lineStarts []int
	// The last position computed, so that positions asked for in file
	// order (as the tree parser does) cost O(file) in all, even when the
	// whole file is one line.
	lastOff int64
	lastPos Pos
}

func newSource(data []byte) *source {
	s := &source{data: data, lineStarts: []int{0}}
	for i, c := range data {
		if c == '\n' {
			s.lineStarts = append(s.lineStarts, i+1)
		}
	}
	return s
}

// pos converts a byte offset into a 1-based line and a 1-based column
// counted in characters (UTF-8 runes), so "µs" counts once.
func (s *source) pos(off int64) Pos {
	off = max(0, min(off, int64(len(s.data))))
	lo, hi := 0, len(s.lineStarts)-1
	for lo < hi { // last line start <= off
		mid := (lo + hi + 1) / 2
		if int64(s.lineStarts[mid]) <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	var p Pos
	if s.lastPos.Line == lo+1 && s.lastOff <= off {
		p = Pos{Line: lo + 1, Col: s.lastPos.Col + utf8.RuneCount(s.data[s.lastOff:off])}
	} else {
		p = Pos{Line: lo + 1, Col: utf8.RuneCount(s.data[s.lineStarts[lo]:off]) + 1}
	}
	s.lastOff, s.lastPos = off, p
	return p
}

// Error is what Decode returns for a description it cannot accept. Path is
// the dotted key path from the root ("tasks.thread0.phases.p1.run0"), empty
// for an error that is not inside a key; Line and Col (1-based, Col in
// characters) point at the offending key or value in the original file.
type Error struct {
	Path string
	Line int
	Col  int
	Msg  string
}

func (e *Error) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("line %d col %d: %s", e.Line, e.Col, e.Msg)
	}
	return fmt.Sprintf("%s: line %d col %d: %s", e.Path, e.Line, e.Col, e.Msg)
}

// Pos is a place in the original file: 1-based line, 1-based column counted
// in characters.
type Pos struct {
	Line int
	Col  int
}

func (p Pos) String() string { return fmt.Sprintf("line %d col %d", p.Line, p.Col) }

const maxMsg = 400

func errorAt(p Pos, path, format string, args ...any) *Error {
	msg := fmt.Sprintf(format, args...)
	if r := []rune(msg); len(r) > maxMsg { // names can be long
		msg = string(r[:maxMsg]) + "…"
	}
	if r := []rune(path); len(r) > maxMsg {
		path = string(r[:maxMsg]) + "…"
	}
	return &Error{Path: path, Line: p.Line, Col: p.Col, Msg: msg}
}

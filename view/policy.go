package view

import (
	"strconv"
	"strings"
)

// PolicyTitle names a sched_ext policy by its source, for the page's editor,
// share cards and link text: the first line that is a comment, without the
// "#" (clipped to 80 characters), or "unnamed" when code comes before any
// comment.
func PolicyTitle(source string) string {
	for line := range strings.Lines(source) {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if name, ok := strings.CutPrefix(line, "#"); ok {
			if name = strings.TrimSpace(name); name != "" {
				return Clip(name, 80)
			}
			continue
		}
		break // code before any comment
	}
	return "unnamed"
}

// PolicyFile is the name a scenario's policy source compiles under on the
// page and the share servers, so the engine's messages about it read
// policy.star:LINE:COL.
const PolicyFile = "policy.star"

// policyPlace finds "policy.star:LINE:COL: " in msg: where it starts and
// ends, and the numbers. By hand rather than with a regexp: package regexp
// would add 0.3 MB to the Cloudflare Worker's wasm for this alone.
func policyPlace(msg string) (start, end, line, col int, ok bool) {
	for from := 0; ; {
		i := strings.Index(msg[from:], PolicyFile+":")
		if i < 0 {
			return 0, 0, 0, 0, false
		}
		start = from + i
		rest := msg[start+len(PolicyFile)+1:]
		lineS, rest, ok1 := strings.Cut(rest, ":")
		colS, rest, ok2 := strings.Cut(rest, ": ")
		line, err1 := strconv.Atoi(lineS)
		col, err2 := strconv.Atoi(colS)
		if ok1 && ok2 && err1 == nil && err2 == nil && line > 0 && col > 0 && !strings.ContainsAny(lineS+colS, "+-") {
			return start, len(msg) - len(rest), line, col, true
		}
		from = start + 1
	}
}

// PolicyMessage reads an engine message about a scenario's policy (its
// refusal of sched.scx.source, or an ejection's reason) for one line of a card
// or a link's text: the first line of the message, without the field it
// starts with, with the place in the source written "line L: "; and that
// place (from 1; 0, 0 when the message names none, as a watchdog's does).
// "sched.scx.source: policy.star:3:9: syntax error: got newline" reads
// "line 3: syntax error: got newline", line 3, column 9.
func PolicyMessage(msg string) (summary string, line, col int) {
	msg, _, _ = strings.Cut(msg, "\n") // a traceback follows; it repeats the place
	msg = strings.TrimPrefix(msg, "sched.scx.source: ")
	if start, end, l, c, ok := policyPlace(msg); ok {
		line, col = l, c
		msg = msg[:start] + "line " + strconv.Itoa(line) + ": " + msg[end:]
	}
	msg = strings.TrimPrefix(msg, PolicyFile+": ") // a message about the whole file
	return strings.TrimSpace(msg), line, col
}

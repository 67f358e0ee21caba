package view

import (
	"regexp"
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

// policyPlace finds "policy.star:LINE:COL: " in an engine message.
var policyPlace = regexp.MustCompile(regexp.QuoteMeta(PolicyFile) + `:(\d+):(\d+): `)

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
	if loc := policyPlace.FindStringSubmatchIndex(msg); loc != nil {
		line, _ = strconv.Atoi(msg[loc[2]:loc[3]])
		col, _ = strconv.Atoi(msg[loc[4]:loc[5]])
		msg = msg[:loc[0]] + "line " + strconv.Itoa(line) + ": " + msg[loc[1]:]
	}
	msg = strings.TrimPrefix(msg, PolicyFile+": ") // a message about the whole file
	return strings.TrimSpace(msg), line, col
}

package view

import "strings"

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

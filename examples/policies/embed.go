// Package policies holds the example sched_ext policies in Starlark, one
// *.star file each. They are embedded so the CLI's users and the
// playground's policy editor start from the same files.
package policies

import (
	"embed"
	"io/fs"
	"slices"
	"strings"
)

// FS holds every *.star policy in this directory.
//
//go:embed *.star
var FS embed.FS

// Example is one example policy: its file stem and its source.
type Example struct {
	Name   string
	Source string
}

// Examples lists the example policies, scx_simple first (the one the editor
// starts from), then by name.
func Examples() []Example {
	names, _ := fs.Glob(FS, "*.star") // the pattern is valid
	slices.SortFunc(names, func(a, b string) int {
		switch {
		case a == "scx_simple.star":
			return -1
		case b == "scx_simple.star":
			return 1
		}
		return strings.Compare(a, b)
	})
	out := make([]Example, 0, len(names))
	for _, n := range names {
		b, _ := FS.ReadFile(n) // listed by Glob just above
		out = append(out, Example{Name: strings.TrimSuffix(n, ".star"), Source: string(b)})
	}
	return out
}

// Package rtapp holds the example rt-app workload descriptions
// (github.com/scheduler-tools/rt-app's JSON, as its users write it), one
// *.json file each, embedded so the playground's workload editor offers the
// files `schedplay run examples/rtapp/NAME.json` runs.
package rtapp

import (
	"embed"
	"io/fs"
	"strings"
)

// FS holds every *.json description in this directory.
//
//go:embed *.json
var FS embed.FS

// Example is one example description: its file stem and its text.
type Example struct {
	Name string
	Text string
}

// Examples lists the example descriptions by name.
func Examples() []Example {
	names, _ := fs.Glob(FS, "*.json") // the pattern is valid; Glob sorts
	out := make([]Example, 0, len(names))
	for _, n := range names {
		b, _ := FS.ReadFile(n) // listed by Glob just above
		out = append(out, Example{Name: strings.TrimSuffix(n, ".json"), Text: string(b)})
	}
	return out
}

// Package examples holds the preset scenarios: one JSON file per published case
// (and regression cases). They are embedded so the CLI, the playground and the
// share server offer the same presets.
package examples

import "embed"

// FS holds every *.json scenario in this directory.
//
//go:embed *.json
var FS embed.FS

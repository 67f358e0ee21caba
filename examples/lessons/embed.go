// Package lessons holds the playground's lessons for a classroom: one JSON file
// per lesson, a sequence of steps that set knobs, run to a moment or until an
// event, pause and point at a vCPU with a caption whose numbers come from the
// run. They are embedded so the page and `schedplay lessons` offer the same ones.
// The format is documented, and decoded, by package schedplay/playground/lesson.
package lessons

import "embed"

// FS holds every *.json lesson in this directory.
//
//go:embed *.json
var FS embed.FS

package main

import (
	"io"

	"schedplay/internal/wasmbuild"
)

// ensurePlayground builds the browser bundle under repoRoot/static when its wasm is
// missing or older than its sources.
func ensurePlayground(repoRoot string, log io.Writer) error {
	return wasmbuild.EnsureBuilt(repoRoot, log)
}

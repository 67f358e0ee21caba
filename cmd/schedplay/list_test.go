package main

import (
	"os"
	"testing"
)

// TestKnobsDocIsCurrent: docs/knobs.md is what `schedplay knobs --markdown`
// writes from the engine's schema now.
func TestKnobsDocIsCurrent(t *testing.T) {
	a := newTestApp(t, fakeSim)
	if code := a.main([]string{"knobs", "--markdown"}); code != 0 {
		t.Fatalf("exit %d: %s", code, a.errOut)
	}
	want, err := os.ReadFile("../../docs/knobs.md")
	if err != nil {
		t.Fatal(err)
	}
	if a.out.String() != string(want) {
		t.Errorf("docs/knobs.md is stale (line %d differs): regenerate it with go run ./cmd/schedplay knobs --markdown > docs/knobs.md",
			firstDiffLine(want, a.out.Bytes()))
	}
}

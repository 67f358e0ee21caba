package e2e

import (
	"testing"

	"schedplay/internal/wasmbuild"
	"schedplay/playground"
	"schedplay/playground/lesson"
)

// TestBundleBudget: what a first visit downloads (the page's and the engine
// worker's wasm, gzip-compressed as served, the page's scripts and styles, and
// the saved states' index) stays within wasmbuild.BudgetBytes, the budget the build flags and the worker's
// hand-written wire format are chosen for. It needs no browser, only the build the
// browser tests share.
func TestBundleBudget(t *testing.T) {
	ensureWasm(t)
	parts, err := wasmbuild.Bundle(repoRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{wasmbuild.WasmPath, wasmbuild.WorkerPath} {
		if !hasPart(parts, want) {
			t.Fatalf("the bundle has no %s: %v", want, parts)
		}
	}
	if wasmbuild.Total(parts) > wasmbuild.BudgetBytes {
		t.Fatalf("the bundle is over its budget: %s", wasmbuild.Describe(parts))
	}
	t.Log(wasmbuild.Describe(parts))

	// The saved states: a pack for every scenario the bundle saves, each and
	// all within their budgets (what a first jump fetches, what the
	// deployment carries).
	packs, err := wasmbuild.Checkpoints(repoRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	ps, _ := playground.BuiltinPresets()
	ls, _ := lesson.Builtin()
	states, err := playground.BundledStates(ps, ls)
	if err != nil {
		t.Fatal(err)
	}
	if len(packs) != len(states) || len(packs) == 0 {
		t.Fatalf("%d saved-state packs for the %d scenarios the bundle saves", len(packs), len(states))
	}
	var total, largest int64
	for _, p := range packs {
		total += p.Gzip
		largest = max(largest, p.Gzip)
		if p.Gzip > wasmbuild.PackBudgetBytes {
			t.Errorf("%s is %d bytes gzip, over its budget of %d", p.Name, p.Gzip, wasmbuild.PackBudgetBytes)
		}
	}
	if total > wasmbuild.SavedBudgetBytes {
		t.Errorf("the saved states are %d bytes gzip in all, over their budget of %d", total, wasmbuild.SavedBudgetBytes)
	}
	t.Logf("saved states: %d packs, %d bytes gzip in all (budget %d), the largest %d (budget %d)",
		len(packs), total, wasmbuild.SavedBudgetBytes, largest, wasmbuild.PackBudgetBytes)
}

// hasPart reports whether parts hold the file at path (relative to the repository).
func hasPart(parts []wasmbuild.Part, path string) bool {
	for _, p := range parts {
		if "static/"+p.Name == path {
			return true
		}
	}
	return false
}

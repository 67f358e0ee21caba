package e2e

import (
	"testing"

	"schedplay/internal/wasmbuild"
)

// TestBundleBudget: what a first visit downloads (the page's and the engine
// worker's wasm, gzip-compressed as served, and the page's scripts and styles)
// stays within wasmbuild.BudgetBytes, the budget the build flags and the worker's
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

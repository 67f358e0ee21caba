package e2e

import (
	"testing"

	"schedplay/internal/wasmbuild"
	"schedplay/playground"
	"schedplay/playground/lesson"
)

// TestBundleBudget: what a first visit downloads (the page's and the engine
// worker's wasm, brotli-compressed as sent, the page's scripts and styles, and
// the saved states' index) stays within wasmbuild.BudgetBytes, the budget the
// build flags and the worker's hand-written wire format are chosen for; the
// wasm binaries have the brotli siblings that count. It needs no browser, only
// the build the browser tests share.
func TestBundleBudget(t *testing.T) {
	ensureWasm(t)
	parts, err := wasmbuild.Bundle(repoRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{wasmbuild.WasmPath, wasmbuild.WorkerPath} {
		p, ok := part(parts, want)
		if !ok {
			t.Fatalf("the bundle has no %s: %v", want, parts)
		}
		if p.Brotli == 0 || p.Brotli >= p.Gzip {
			t.Errorf("%s: brotli %d bytes against gzip %d: want a brotli sibling smaller than gzip", want, p.Brotli, p.Gzip)
		}
	}
	if wasmbuild.Total(parts) > wasmbuild.BudgetBytes {
		t.Fatalf("the bundle is over its budget: %s", wasmbuild.Describe(parts))
	}
	t.Log(wasmbuild.Describe(parts))
	if _, ok := part(parts, wasmbuild.PolicyWorkerPath); ok {
		t.Errorf("a first visit downloads the policy worker (%s): it is for policies only", wasmbuild.PolicyWorkerPath)
	}

	// The policy worker: the engine worker with the Starlark interpreter,
	// fetched when a policy runs, within its own budget.
	// With it, the editor (CodeMirror): both within the policy's budget.
	pps, err := wasmbuild.PolicyParts(repoRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pps {
		if p.Brotli == 0 {
			t.Errorf("%s has no brotli sibling", p.Name)
		}
		if _, ok := part(parts, "static/"+p.Name); ok {
			t.Errorf("a first visit downloads %s: it is for policies only", p.Name)
		}
	}
	if wasmbuild.Total(pps) > wasmbuild.PolicyWorkerBudgetBytes {
		t.Errorf("the policy's parts send %d bytes (%+v), over their budget of %d", wasmbuild.Total(pps), pps, wasmbuild.PolicyWorkerBudgetBytes)
	}
	t.Logf("policy worker and editor: %d bytes sent, budget %d", wasmbuild.Total(pps), wasmbuild.PolicyWorkerBudgetBytes)

	// The trace worker: the decoders, fetched when the trace panel opens a
	// file, within their own budget and never on a first visit.
	tps, err := wasmbuild.TraceParts(repoRoot(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range tps {
		if _, ok := part(parts, "static/"+p.Name); ok {
			t.Errorf("a first visit downloads %s: it is for traces only", p.Name)
		}
	}
	if p := tps[0]; p.Brotli == 0 || p.Brotli >= p.Gzip {
		t.Errorf("%s: brotli %d bytes against gzip %d: want a brotli sibling smaller than gzip", p.Name, p.Brotli, p.Gzip)
	}
	if wasmbuild.Total(tps) > wasmbuild.TraceWorkerBudgetBytes {
		t.Errorf("the trace's parts send %d bytes (%+v), over their budget of %d", wasmbuild.Total(tps), tps, wasmbuild.TraceWorkerBudgetBytes)
	}
	t.Logf("trace worker and its script: %d bytes sent (%+v), budget %d", wasmbuild.Total(tps), tps, wasmbuild.TraceWorkerBudgetBytes)

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
		total += p.Sent()
		largest = max(largest, p.Sent())
		if p.Sent() > wasmbuild.PackBudgetBytes {
			t.Errorf("%s sends %d bytes, over its budget of %d", p.Name, p.Sent(), wasmbuild.PackBudgetBytes)
		}
	}
	if total > wasmbuild.SavedBudgetBytes {
		t.Errorf("the saved states send %d bytes in all, over their budget of %d", total, wasmbuild.SavedBudgetBytes)
	}
	t.Logf("saved states: %d packs, %d bytes sent in all (budget %d), the largest %d (budget %d)",
		len(packs), total, wasmbuild.SavedBudgetBytes, largest, wasmbuild.PackBudgetBytes)
}

// part finds the file at path (relative to the repository) among parts.
func part(parts []wasmbuild.Part, path string) (wasmbuild.Part, bool) {
	for _, p := range parts {
		if "static/"+p.Name == path {
			return p, true
		}
	}
	return wasmbuild.Part{}, false
}

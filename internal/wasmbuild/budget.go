package wasmbuild

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// BudgetBytes is the most a first visit to the playground may download, as
// sent: the page's wasm, the engine worker's wasm, the page's scripts and
// styles, and the index of the saved states (the packs themselves are fetched
// at a scenario's first jump, and have budgets of their own: PackBudgetBytes
// and SavedBudgetBytes). What is sent is the brotli sibling where wasmbuild
// writes one (browsers ask for br, Chromium over plain http to localhost too,
// and `schedplay serve` prefers it), else gzip. Design choices rely on it: the
// page's dependencies are compiled without inlining (targets), the worker's
// wire format is written by hand to keep the JSON library out of it
// (playground/runner/values.go), and the page's binary carries no simulation
// code (wasm/workers_js.go). The browser tests assert it (e2e's
// TestBundleBudget), so CI fails when the bundle outgrows it.
const BudgetBytes = 4_000_000

// PolicyWorkerBudgetBytes is the most the policy's parts (PolicyParts) may
// send: the engine worker with the Starlark interpreter and the editor,
// fetched when the editor opens or a link carries a policy, never on a first
// visit.
const PolicyWorkerBudgetBytes = 1_600_000

// TraceWorkerBudgetBytes is the most the trace's parts (TraceParts) may
// send: the trace worker (the decoders, the JSON library and Go's runtime:
// 1.09 MB of brotli when it was added) and its script, fetched when the
// trace panel opens a file, never on a first visit.
const TraceWorkerBudgetBytes = 1_200_000

// Part is one file of the bundle and the bytes a browser downloads for it.
type Part struct {
	Name string // relative to static/, slash-separated
	Gzip int64  // its size gzip-compressed, as served to a client that takes gzip only
	// Brotli is its brotli sibling's size, 0 when it has none.
	Brotli int64
}

// Sent is what a browser downloads for the part: its brotli sibling where it
// has one, else its gzip size.
func (p Part) Sent() int64 {
	if p.Brotli > 0 {
		return p.Brotli
	}
	return p.Gzip
}

// Bundle lists every file under root's static/ that a first visit downloads, with
// its gzip and brotli sizes: a file with a precompressed NAME.gz sibling counts
// that sibling as its gzip size, any other its contents compressed at the best
// level; a NAME.br sibling gives its brotli size (what `schedplay serve` sends
// a browser that accepts br). Dotfiles, build leftovers (*.tmp) and the
// siblings themselves are not counted on their own, nor is anything in
// checkpoints/ but its index: the page fetches a saved-state pack at its
// scenario's first jump (Checkpoints lists them), and the labels file never.
// Nor are the notes pages in notes/ (the model notes, the calibration table
// and the mechanisms, rendered by `schedplay calibrate`): they are documents a
// reader opens from a card's "why?" link, which the page never fetches itself.
// The list is sorted by name; Total adds it up.
func Bundle(root string) ([]Part, error) {
	static := filepath.Join(root, "static")
	var parts []Part
	err := filepath.WalkDir(static, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if strings.HasPrefix(name, ".") && path != static {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() || strings.HasSuffix(name, ".tmp") {
			return nil
		}
		if strings.HasSuffix(name, ".br") {
			if _, err := os.Stat(strings.TrimSuffix(path, ".br")); err == nil {
				return nil // counted as its original's download
			}
		}
		if strings.HasSuffix(name, ".gz") {
			if _, err := os.Stat(strings.TrimSuffix(path, ".gz")); err == nil {
				return nil // counted as its original's download
			}
		}
		n, err := servedSize(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(static, path)
		if err != nil {
			return err
		}
		if rel := filepath.ToSlash(rel); strings.HasPrefix(rel, "checkpoints/") && rel != "checkpoints/index.txt" {
			return nil // a pack is fetched at its scenario's first jump; the labels never
		} else if strings.HasPrefix(rel, "notes/") {
			return nil // opened by a reader who follows a link, not by the page
		} else if rel == strings.TrimPrefix(PolicyWorkerPath, "static/") || rel == strings.TrimPrefix(EditorPath, "static/") ||
			rel == strings.TrimPrefix(EditorStylePath, "static/") {
			return nil // fetched for a policy only (PolicyParts)
		} else if rel == strings.TrimPrefix(TraceWorkerPath, "static/") || rel == strings.TrimPrefix(TraceScriptPath, "static/") {
			return nil // fetched for a trace only (TraceParts)
		}
		parts = append(parts, Part{Name: filepath.ToSlash(rel), Gzip: n, Brotli: brotliSize(path)})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("wasmbuild: measuring the bundle: %w", err)
	}
	slices.SortFunc(parts, func(a, b Part) int { return strings.Compare(a.Name, b.Name) })
	return parts, nil
}

// brotliSize is the size of path's brotli sibling, or 0 when it has none.
func brotliSize(path string) int64 {
	if info, err := os.Stat(path + ".br"); err == nil {
		return info.Size()
	}
	return 0
}

// servedSize is the gzip size of path: its precompressed sibling's when there is
// one, else its contents compressed at the best level.
func servedSize(path string) (int64, error) {
	if info, err := os.Stat(path + ".gz"); err == nil {
		return info.Size(), nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	if strings.HasSuffix(path, ".gz") || strings.HasSuffix(path, ".br") {
		return int64(len(data)), nil // already compressed, served as it is
	}
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return 0, err
	}
	if _, err := zw.Write(data); err != nil {
		return 0, err
	}
	if err := zw.Close(); err != nil {
		return 0, err
	}
	return int64(buf.Len()), nil
}

// Total is what all parts send (Part.Sent).
func Total(parts []Part) int64 {
	var n int64
	for _, p := range parts {
		n += p.Sent()
	}
	return n
}

// Describe renders parts and their total against BudgetBytes on one line,
// largest first, with the gzip total beside it ("3.26 MB sent of the 4.00 MB
// budget (3.98 MB gzip): schedplay.wasm 2.33 MB, ...").
func Describe(parts []Part) string {
	sorted := slices.Clone(parts)
	slices.SortStableFunc(sorted, func(a, b Part) int { return cmp.Compare(b.Sent(), a.Sent()) })
	names := make([]string, len(sorted))
	var gz int64
	for i, p := range sorted {
		names[i] = fmt.Sprintf("%s %s", p.Name, mb(p.Sent()))
		gz += p.Gzip
	}
	return fmt.Sprintf("%s sent of the %s budget (%s gzip): %s", mb(Total(parts)), mb(BudgetBytes), mb(gz), strings.Join(names, ", "))
}

// mb formats n bytes in decimal megabytes, the budget's unit.
func mb(n int64) string {
	if n < 10_000 {
		return fmt.Sprintf("%.1f KB", float64(n)/1e3)
	}
	if n < 1_000_000 {
		return fmt.Sprintf("%.0f KB", float64(n)/1e3)
	}
	return fmt.Sprintf("%.2f MB", float64(n)/1e6)
}

// PolicyParts are the policy worker's and the editor's parts (its script and
// its styles) under root's static/: what a browser downloads when the page first runs or edits a
// policy (PolicyWorkerBudgetBytes).
func PolicyParts(root string) ([]Part, error) {
	return measure(root, "the policy's parts", PolicyWorkerPath, EditorPath, EditorStylePath)
}

// TraceParts are the trace worker's parts (its wasm and its script) under
// root's static/: what a browser downloads when the trace panel first opens
// a file (TraceWorkerBudgetBytes).
func TraceParts(root string) ([]Part, error) {
	return measure(root, "the trace's parts", TraceWorkerPath, TraceScriptPath)
}

// measure lists the files at paths (relative to root) as Parts.
func measure(root, what string, paths ...string) ([]Part, error) {
	var parts []Part
	for _, p := range paths {
		path := filepath.Join(root, filepath.FromSlash(p))
		n, err := servedSize(path)
		if err != nil {
			return nil, fmt.Errorf("wasmbuild: measuring %s: %w", what, err)
		}
		parts = append(parts, Part{Name: strings.TrimPrefix(p, "static/"), Gzip: n, Brotli: brotliSize(path)})
	}
	return parts, nil
}

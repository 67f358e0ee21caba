package wasmbuild

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"schedplay/engine"
	"schedplay/playground"
	"schedplay/playground/lesson"
	"schedplay/playground/runner"
)

// The bundle's saved states: for every scenario playground.BundledStates
// lists (each preset's arms at the end of the warm-up, lesson steps past the
// first second), the engine's checkpoints at its moments, one pack per
// scenario in static/checkpoints/KEY.ckp (with its .gz and .br siblings),
// static/checkpoints/index.txt listing them, and labels.txt saying what each is
// for (for people: the page never fetches it). The page reads the index when it
// starts and fetches a scenario's pack the first time it jumps in it, so the
// jump starts at the saved moment instead of simulating up to it.
//
// What a first visit downloads (BudgetBytes) counts the index but no pack: a
// page that never jumps fetches none. The packs have budgets of their own:
// PackBudgetBytes each (what a first jump in a scenario costs) and
// SavedBudgetBytes together (what the deployment carries). Checkpoints
// measures them.

// Saved-state paths, relative to the repository root.
const (
	CheckpointsDir   = "static/checkpoints"
	CheckpointsIndex = CheckpointsDir + "/index.txt"
	// CheckpointsLabels says, per key, what the pack is for.
	CheckpointsLabels = CheckpointsDir + "/labels.txt"
)

const (
	// PackBudgetBytes bounds one scenario's pack as sent (Part.Sent): what
	// the first jump in a scenario fetches.
	PackBudgetBytes = 48_000
	// SavedBudgetBytes bounds all the packs together, as sent.
	SavedBudgetBytes = 400_000
)

// indexHeader opens index.txt. Each line after it is "KEY MOMENTS": the
// scenario key (hex) and the moments in ns (comma-separated). labels.txt has
// "KEY LABELS" lines.
const indexHeader = "# schedplay saved states: scenario key, moments (ns); labels.txt says what each is for\n"

// EnsureCheckpoints writes the bundle's saved states under repoRoot unless
// the index is newer than every input; it reads the presets and lessons from
// repoRoot's examples/. Each scenario runs in the engine to its last moment,
// up to one per core at a time: about half a minute on two cores.
func EnsureCheckpoints(repoRoot string, log io.Writer) error {
	newest, newestPath, err := newestInput(repoRoot)
	if err != nil {
		return err
	}
	index := filepath.Join(repoRoot, CheckpointsIndex)
	if info, err := os.Stat(index); err == nil && !info.ModTime().Before(newest) {
		return nil
	}
	reason := "missing"
	if _, err := os.Stat(index); err == nil {
		reason = newestPath + " is newer"
	}
	fmt.Fprintf(log, "wasmbuild: saving the bundle's engine states (%s)\n", reason)
	start := time.Now()
	presets, _ := playground.LoadPresets(os.DirFS(filepath.Join(repoRoot, "examples")))
	var lessons []lesson.Lesson
	if dir := filepath.Join(repoRoot, "examples", "lessons"); dirExists(dir) {
		lessons, _ = lesson.Load(os.DirFS(dir)) // a lesson that does not load is the page's to report
	}
	states, err := playground.BundledStates(presets, lessons)
	if err != nil {
		return fmt.Errorf("wasmbuild: saved states: %w", err)
	}
	packs := make([][]byte, len(states))
	errs := make([]error, len(states))
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(1, min(runtime.NumCPU(), len(states))) {
		wg.Go(func() {
			for i := range next {
				packs[i], errs[i] = runner.SaveStates(states[i].Scenario, states[i].AtNs)
			}
		})
	}
	for i := range states {
		next <- i
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("wasmbuild: saved states: %w", err)
	}
	dir := filepath.Join(repoRoot, CheckpointsDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var idx, labels bytes.Buffer
	idx.WriteString(indexHeader)
	keep := map[string]bool{"index.txt": true, "labels.txt": true}
	var raw, gz int64
	for i, st := range states {
		name := st.Scenario.Key().String() + ".ckp"
		if err := writeAtomic(filepath.Join(dir, name), packs[i]); err != nil {
			return err
		}
		r, g, _, err := writeCompressed(filepath.Join(dir, name), brotliQuality)
		if err != nil {
			return err
		}
		raw, gz = raw+r, gz+g
		keep[name], keep[name+".gz"], keep[name+".br"] = true, true, true
		moments := make([]string, len(st.AtNs))
		for j, at := range st.AtNs {
			moments[j] = strconv.FormatInt(at, 10)
		}
		fmt.Fprintf(&idx, "%s %s\n", st.Scenario.Key(), strings.Join(moments, ","))
		fmt.Fprintf(&labels, "%s %s\n", st.Scenario.Key(), strings.Join(st.Labels, "; "))
	}
	// Packs of scenarios no longer saved go.
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if !keep[e.Name()] && !e.IsDir() {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
	if err := writeAtomic(filepath.Join(repoRoot, CheckpointsLabels), labels.Bytes()); err != nil {
		return err
	}
	if err := writeAtomic(index, idx.Bytes()); err != nil { // last: its time says the rest is written
		return err
	}
	fmt.Fprintf(log, "wasmbuild: saved %d scenarios' states in %.1fs: %s, %s gzip\n", len(states), time.Since(start).Seconds(), mb(raw), mb(gz))
	return nil
}

func dirExists(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.IsDir()
}

// SavedPack is one pack as the index lists it.
type SavedPack struct {
	Part
	Key string
}

// Checkpoints lists the packs static/checkpoints/index.txt names under root,
// with their served gzip sizes; a pack the index names that is missing is an
// error. No index is no packs.
func Checkpoints(root string) ([]SavedPack, error) {
	f, err := os.Open(filepath.Join(root, CheckpointsIndex))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []SavedPack
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) != 2 {
			return nil, fmt.Errorf("wasmbuild: %s: a line without key and moments: %q", CheckpointsIndex, line)
		}
		if !checkKey(fields[0]) {
			return nil, fmt.Errorf("wasmbuild: %s: %q is not a scenario key", CheckpointsIndex, fields[0])
		}
		name := "checkpoints/" + fields[0] + ".ckp"
		n, err := servedSize(filepath.Join(root, "static", filepath.FromSlash(name)))
		if err != nil {
			return nil, fmt.Errorf("wasmbuild: %s names %s: %w", CheckpointsIndex, name, err)
		}
		out = append(out, SavedPack{Part: Part{Name: name, Gzip: n, Brotli: brotliSize(filepath.Join(root, "static", filepath.FromSlash(name)))}, Key: fields[0]})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b SavedPack) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// checkKey reports whether a pack file's name is a scenario key: the page
// fetches by key, so nothing else belongs in the directory.
func checkKey(s string) bool {
	var k engine.ScenarioKey
	return len(s) == 2*len(k) && strings.Trim(s, "0123456789abcdef") == ""
}

package main

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"schedplay/engine"
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

// scenarioFields walks engine.Scenario's JSON fields as the engine's schema
// test does: every scalar a scenario file can set, by its dotted path, less
// the ones that are not knobs (the schema version, the name and description,
// and the programs given whole: a policy's source, an rt-app description).
func scenarioFields(t *testing.T) []string {
	t.Helper()
	var out []string
	var walk func(rt reflect.Type, prefix string)
	walk = func(rt reflect.Type, prefix string) {
		for i := range rt.NumField() {
			f := rt.Field(i)
			tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			path := prefix + tag
			switch {
			case !f.IsExported() || tag == "-":
			case path == "version" || path == "name" || path == "description":
			case path == "sched.scx.source" || path == "workload.rtapp" || path == "workload.trace":
				// Programs and data given whole (a policy, an rt-app file, a
				// trace's model), not knobs.
			case f.Type.Kind() == reflect.Struct:
				walk(f.Type, path+".")
			case f.Type.Kind() == reflect.Slice || f.Type.Kind() == reflect.Map:
			default:
				out = append(out, path)
			}
		}
	}
	walk(reflect.TypeFor[engine.Scenario](), "")
	if len(out) < 50 {
		t.Fatalf("the walk found %d fields: it no longer reads the scenario's tags", len(out))
	}
	return out
}

// knobsRows reads `schedplay knobs`'s table into rows of cells, cutting each
// line at the columns of the header (the table is left-aligned, and a cell
// may hold spaces).
func knobsRows(t *testing.T, out string) []map[string]string {
	t.Helper()
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	header := []rune(lines[0])
	var names []string
	var starts []int
	for i := 0; i < len(header); i++ {
		if header[i] != ' ' && (i == 0 || header[i-1] == ' ' && header[i-2] == ' ') {
			starts = append(starts, i)
			end := i
			for end < len(header) && !(header[end] == ' ' && (end+1 == len(header) || header[end+1] == ' ')) {
				end++
			}
			names = append(names, string(header[i:end]))
		}
	}
	var rows []map[string]string
	for _, l := range lines[1:] {
		r := []rune(l)
		row := map[string]string{}
		for i, s := range starts {
			end := len(r)
			if i+1 < len(starts) {
				end = min(starts[i+1], len(r))
			}
			if s < end {
				row[names[i]] = strings.TrimSpace(string(r[s:end]))
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// TestKnobsListsEverySettableField: `schedplay knobs` lists every field of a
// scenario a user can set (walked from engine.Scenario, so a field added
// later and left out of the schema fails here), a choice knob with every
// value --set takes (sched.policy's scx, which the page offers by its own
// editor), and every knob it lists can be --set: to the scenario's own
// value, and to each of a choice's values (a value that needs another field
// may be refused for that field, never as a value the knob does not take).
func TestKnobsListsEverySettableField(t *testing.T) {
	a := newTestApp(t, fakeSim)
	if code := a.main([]string{"knobs"}); code != 0 {
		t.Fatalf("exit %d: %s", code, a.errOut)
	}
	rows := knobsRows(t, a.out.String())
	listed := map[string]map[string]string{}
	for _, r := range rows {
		listed[r["knob"]] = r
	}
	for _, f := range scenarioFields(t) {
		if _, ok := listed[f]; !ok {
			t.Errorf("%s is a field of the scenario that schedplay knobs does not list", f)
		}
	}
	for _, tc := range []struct{ path, value string }{
		{"sched.policy", "scx"}, {"workload.kind", "rtapp"}, {"workload.kind", "trace"},
	} {
		if r := listed[tc.path]; !slices.Contains(strings.Split(r["range"], " | "), tc.value) {
			t.Errorf("%s lists %q, without %s", tc.path, r["range"], tc.value)
		}
	}
	if r := listed["sched.scx.watchdog_ms"]; r["range"] != "0 to 30000 ms" || r["applies to"] != "scx policy" {
		t.Errorf("sched.scx.watchdog_ms is listed as %v", r)
	}

	data, err := os.ReadFile(filepath.Join("testdata", "examples", "ab.json"))
	if err != nil {
		t.Fatal(err)
	}
	ab, err := engine.DecodeScenario(data)
	if err != nil {
		t.Fatal(err)
	}
	set := func(t *testing.T, kv string) testApp {
		t.Helper()
		a := newTestApp(t, fakeSim)
		a.main([]string{"run", "ab", "--set", "duration_ms=60", "--set", "warmup_ms=10", "--format", "csv", "--set", kv})
		return a
	}
	for _, r := range rows {
		path := r["knob"]
		t.Run(path, func(t *testing.T) {
			own, err := ab.Get(path)
			if err != nil {
				t.Fatalf("listed, but the engine has no such knob: %v", err)
			}
			if path == "duration_ms" || path == "warmup_ms" {
				own = map[string]string{"duration_ms": "60", "warmup_ms": "10"}[path]
			}
			if a := set(t, path+"="+own); a.errOut.Len() > 0 {
				t.Errorf("--set %s=%s: %s", path, own, a.errOut)
			}
			if r["kind"] != "choice" {
				return
			}
			for _, v := range strings.Split(r["range"], " | ") {
				msg := set(t, path+"="+v).errOut.String()
				for _, refusal := range []string{"is not one of", "unknown knob", "not a settable knob"} {
					if strings.Contains(msg, refusal) {
						t.Errorf("--set %s=%s is refused: %s", path, v, msg)
					}
				}
			}
		})
	}
	if a := set(t, "sched.scx.watchdog_ms=1000"); a.errOut.Len() > 0 {
		t.Errorf("--set sched.scx.watchdog_ms=1000: %s", a.errOut)
	}
	if msg := set(t, "sched.scx.watchdog_ms=5").errOut.String(); !strings.Contains(msg, "sched.scx.watchdog_ms") {
		t.Errorf("--set sched.scx.watchdog_ms=5 (below 10) is not refused by name: %q", msg)
	}
}

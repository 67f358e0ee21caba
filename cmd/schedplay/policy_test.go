package main

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"schedplay/engine"
)

// TestRunPolicy: --policy runs a Starlark policy from a file; the Starlark
// scx_simple gives the Go scx_simple's output, from zero and resumed from a
// checkpoint; a bad policy is refused (exit 2) or ejected, and either way the
// message names the file and line.
func TestRunPolicy(t *testing.T) {
	simple := filepath.Join("..", "..", "examples", "policies", "scx_simple.star")
	dir := t.TempDir()
	write := func(name, src string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	run := func(t *testing.T, want int, args ...string) testApp {
		t.Helper()
		a := newTestApp(t, engine.Run)
		if code := a.main(append([]string{"run", "ab", "--set", "duration_ms=150", "--set", "warmup_ms=50", "--format", "json"}, args...)); code != want {
			t.Fatalf("%v: exit %d, want %d; stderr:\n%s", args, code, want, a.errOut)
		}
		return a
	}

	// sched.policy=scx lists the tasks its policy leaves waiting at the end
	// (scx_waiting), which the Go scx_simple's results do not: the Starlark
	// run's output is compared without them.
	withoutWaiting := func(t *testing.T, out string) string {
		t.Helper()
		var r engine.Results
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		if r.ScxWaiting.Count == 0 {
			t.Errorf("the Starlark run lists no waiting tasks: %.300s", out)
		}
		r.ScxWaiting = engine.ScxWaiting{}
		var b strings.Builder
		if err := writeJSON(&b, r); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	goOut := run(t, 0, "--set", "sched.policy=scx_simple").out.String()
	if strings.Contains(goOut, "scx_waiting") {
		t.Errorf("the Go scx_simple lists waiting tasks: only sched.policy=scx does")
	}
	if got := withoutWaiting(t, run(t, 0, "--set", "sched.policy=scx_simple", "--policy", simple).out.String()); got != goOut {
		t.Errorf("the Starlark scx_simple prints:\n%.600s\nthe Go one:\n%.600s", got, goOut)
	}
	ck := filepath.Join(dir, "at60.ckpt")
	run(t, 0, "--set", "sched.policy=scx_simple", "--policy", simple, "--checkpoint-at", "60ms", "--checkpoint-out", ck)
	if got := withoutWaiting(t, run(t, 0, "--set", "sched.policy=scx_simple", "--policy", simple, "--from", ck).out.String()); got != goOut {
		t.Errorf("resumed from 60 ms, the Starlark scx_simple prints:\n%.600s\nfrom zero, the Go one:\n%.600s", got, goOut)
	}

	for _, tc := range []struct {
		desc, file, src string
		format          string
		code            int
		where           string // stderr or stdout
		want            []string
	}{
		{"syntax error", "syntax.star", "def enqueue(p, f)\n    pass\n", "json", 2, "stderr", []string{"syntax.star:1:18: syntax error: got newline, want ':'", "sched.scx.source"}},
		{"syntax error, table", "syntax.star", "def enqueue(p, f)\n    pass\n", "table", 2, "stderr", []string{"syntax.star:1:18: syntax error: got newline, want ':'", "sched.scx.source"}},
		{"ejected", "ejected.star", "def enqueue(p, f):\n    scx.dsq_insert(p, 9, scx.SLICE_DFL)\n", "json", 0, "stdout", []string{`"scx_exit"`, "ejected.star:2:", "DSQ 9 was never created"}},
		// The table's scx_exit.at_ns row is a number: the reason follows the
		// table, with the policy's file:line:col and its traceback.
		{"ejected, table", "ejected.star", "# a bad DSQ\ndef enqueue(p, f):\n    scx.dsq_insert(p, 9, scx.SLICE_DFL)\n", "table", 0, "stdout",
			[]string{"scx_exit.at_ns", "\npolicy ejected at ", "  enqueue: " + filepath.Join(dir, "ejected.star") + ":3:19: dsq_insert: DSQ 9 was never created", "Traceback (most recent call last):"}},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			a := run(t, tc.code, "--format", tc.format, "--policy", write(tc.file, tc.src))
			got := a.errOut.String()
			if tc.where == "stdout" {
				got = a.out.String()
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("%s does not say %q:\n%.1500s", tc.where, w, got)
				}
			}
		})
	}
	if a := run(t, 2, "--policy", filepath.Join(dir, "missing.star")); !strings.Contains(a.errOut.String(), "--policy") {
		t.Errorf("a missing policy file: stderr does not name --policy:\n%s", a.errOut)
	}
	if a := run(t, 2, "--policy", write("huge.star", "#"+strings.Repeat("x", engine.MaxScxSourceBytes))); !strings.Contains(a.errOut.String(), "sched.scx.source") {
		t.Errorf("an oversized policy: stderr does not name sched.scx.source:\n%s", a.errOut)
	}
}

// TestRunInlinePolicy: a scenario that carries its policy (sched.policy=scx,
// sched.scx.source) runs as --policy does, its work estimated before it starts.
func TestRunInlinePolicy(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "..", "examples", "policies", "scx_simple.star"))
	if err != nil {
		t.Fatal(err)
	}
	sc, err := engine.DecodeScenario(mustRead(t, filepath.Join("testdata", "examples", "ab.json")), "duration_ms=150", "warmup_ms=50", "sched.policy=scx")
	if err != nil {
		t.Fatal(err)
	}
	sc.Sched.Scx.Source = string(src)
	doc, err := sc.Canonical()
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "inline.json")
	if err := os.WriteFile(file, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		t.Helper()
		a := newTestApp(t, engine.Run)
		if code := a.main(append([]string{"run", "--format", "json"}, args...)); code != 0 {
			t.Fatalf("%v: exit %d; stderr:\n%s", args, code, a.errOut)
		}
		return a.out.String()
	}
	inline := run(file)
	flag := run("ab", "--set", "duration_ms=150", "--set", "warmup_ms=50", "--policy", filepath.Join("..", "..", "examples", "policies", "scx_simple.star"))
	if inline != flag {
		t.Errorf("the scenario's own policy prints:\n%.600s\n--policy prints:\n%.600s", inline, flag)
	}
}

// TestRunPolicyParkedTasks: a policy that parks tasks in a DSQ nothing
// consumes (scxstar/testdata/parked.star: odd pids in DSQ 5) ends a run with
// no ejection; the table names the longest-waiting tasks, since when and on
// which DSQ, and counts the rest, and the JSON has them as scx_waiting.
func TestRunPolicyParkedTasks(t *testing.T) {
	parked := filepath.Join("..", "..", "scxstar", "testdata", "parked.star")
	hackbench := filepath.Join("..", "..", "examples", "hackbench.json")
	run := func(t *testing.T, format string) string {
		t.Helper()
		a := newTestApp(t, engine.Run)
		if code := a.main([]string{"run", hackbench, "--set", "duration_ms=200", "--set", "warmup_ms=0", "--format", format, "--policy", parked}); code != 0 {
			t.Fatalf("exit %d; stderr:\n%s", code, a.errOut)
		}
		return a.out.String()
	}
	var r engine.Results
	if err := json.Unmarshal([]byte(run(t, "json")), &r); err != nil {
		t.Fatal(err)
	}
	w := r.ScxWaiting
	if r.ScxExit.Ejected() || w.Count < 200 || len(w.Tasks) != engine.ScxWaitingListed {
		t.Fatalf("ejected %v, %d waiting, %d listed: want the 200 odd children of 400 parked, %d listed",
			r.ScxExit.Ejected(), w.Count, len(w.Tasks), engine.ScxWaitingListed)
	}
	for _, x := range w.Tasks {
		if x.PID%2 != 1 || x.DSQ != 5 || x.Where != "DSQ 5" || x.SinceNs < 0 {
			t.Errorf("listed %+v: want an odd pid, on DSQ 5, since a known time", x)
		}
	}

	table := run(t, "table")
	head := "\nstill waiting at the end: " + strconv.Itoa(w.Count) + " tasks runnable and not running (scx_waiting), the longest-waiting first\n"
	_, rest, ok := strings.Cut(table, head)
	if !ok {
		t.Fatalf("the table does not say %q:\n%s", head, table)
	}
	lines := strings.Split(rest, "\n")
	if f := strings.Fields(lines[0]); strings.Join(f, " ") != "pid name since ms waited ms where" {
		t.Errorf("header %q", lines[0])
	}
	for i, x := range w.Tasks {
		f := strings.Fields(lines[1+i])
		want := []string{strconv.Itoa(x.PID), x.Name, num(float64(x.SinceNs)/1e6, false), num(float64(200e6-x.SinceNs)/1e6, false), "DSQ", "5"}
		if !slices.Equal(f, want) {
			t.Errorf("row %d is %q, want %q", i, f, want)
		}
	}
	if more := "and " + strconv.Itoa(w.Count-len(w.Tasks)) + " more"; lines[1+len(w.Tasks)] != more {
		t.Errorf("after the rows %q, want %q", lines[1+len(w.Tasks)], more)
	}
}

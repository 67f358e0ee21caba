package playground_test

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"schedplay/engine"
	"schedplay/playground"
	"schedplay/playground/runner"
	"schedplay/scxstar"
)

// fakeCompile stands in for the Starlark binding (which the playground does
// not link): a source containing "SYNTAX" fails as the binding reports a
// syntax error, anything else runs the kernel's default ops.
func fakeCompile(name, src string, _ int64) (engine.ScxOps, error) {
	if i := strings.Index(src, "SYNTAX"); i >= 0 {
		line := strings.Count(src[:i], "\n") + 1
		col := i - strings.LastIndex(src[:i], "\n")
		return nil, errors.New(name + ":" + strconv.Itoa(line) + ":" + strconv.Itoa(col) + ": syntax error: got SYNTAX")
	}
	return engine.ScxNoOps{}, nil
}

// newPolicyModel is a model whose runner cannot run a policy, with a policy
// runner that can, counting how often it is started.
func newPolicyModel(t *testing.T, frag string) (*playground.Model, *int) {
	t.Helper()
	return newPolicyModelCompiling(t, frag, fakeCompile)
}

// newPolicyModelCompiling is newPolicyModel with the policy runner's
// compiler: fakeCompile, or the real binding (scxstar.CompilerNamed).
func newPolicyModelCompiling(t *testing.T, frag string, compile engine.ScxCompiler) (*playground.Model, *int) {
	t.Helper()
	c := &fakeClock{step: 0.01}
	started := new(int)
	m := playground.New(playground.Options{Presets: testPresets(t), Clock: c.read, BudgetMs: 5, Runner: runner.NewLocal(c.read),
		RunnerName: "local", PolicyRunner: func() (runner.Runner, string) {
			*started++
			l := runner.NewLocal(c.read)
			l.SetCompiler(compile)
			return l, "local (policy)"
		}})
	m.Load(frag, nil)
	return m, started
}

// linkRunsTheSame plays the page's model and one opened from its link to atNs and
// requires the same arms there.
func linkRunsTheSame(t *testing.T, page, link *playground.Model, atNs int64) {
	t.Helper()
	for _, m := range []*playground.Model{page, link} {
		m.RunTo(atNs)
		for i := 1; m.Playing(); i++ {
			m.Update(float64(i) * 16)
		}
	}
	if a, b := armsJSON(t, page), armsJSON(t, link); a != b {
		t.Errorf("the link's run differs from the page's:\n page %s\n link %s", a, b)
	}
}

func policyUI(t *testing.T, m *playground.Model) playground.PolicyUI {
	t.Helper()
	s := m.Snapshot(0)
	if s.Policy == nil {
		t.Fatal("the snapshot has no policy section")
	}
	return *s.Policy
}

// Picking "your own policy" starts from the example (scx_simple), moves the
// arms to the policy runner, and the link carries the policy, so a reload
// runs the same source to the same numbers.
func TestYourOwnPolicy(t *testing.T) {
	m, started := newPolicyModel(t, "#v=1&preset=plain")
	if *started != 0 || policyUI(t, m).Runs {
		t.Fatalf("the policy runner started (%d) or a policy runs before one was asked for", *started)
	}
	if msg := m.Set("sched.policy", "scx"); msg != "" {
		t.Fatal(msg)
	}
	u := policyUI(t, m)
	if !u.Runs || !strings.Contains(u.Source, "scx_simple") || u.Origin != "page" || !u.InLink || *started != 1 {
		t.Fatalf("after picking your own policy: runs %v, origin %q, in link %v, runner started %d times, source %.60q",
			u.Runs, u.Origin, u.InLink, *started, u.Source)
	}
	if u.Runner != "local (policy)" {
		t.Errorf("runner %q, want the policy runner", u.Runner)
	}
	frag := m.Fragment()
	if !strings.Contains(frag, "&policy=") || !strings.Contains(frag, "sched.policy=scx") {
		t.Fatalf("fragment %q carries no policy", frag)
	}
	again, _ := newPolicyModel(t, "#"+frag)
	linkRunsTheSame(t, m, again, 60e6)
	if got := policyUI(t, again).Source; got != u.Source {
		t.Errorf("the link's policy differs from the page's")
	}
	// The page's policy outlives a preset switch (the scheduler is the
	// preset's again, the source is kept for the editor).
	if msg := m.Set("preset", "small"); msg != "" {
		t.Fatal(msg)
	}
	if got := policyUI(t, m); got.Source != u.Source || got.Origin != "page" {
		t.Errorf("after a preset switch the policy is %.40q from %q", got.Source, got.Origin)
	}
}

// A policy that does not compile, compared with a built-in scheduler, marks
// its line in the editor's section and its pane, while the built-in arm plays
// on; a policy that does compile clears the error.
func TestPolicyErrorBesideBuiltin(t *testing.T) {
	m, _ := newPolicyModel(t, "#v=1&preset=plain&compare=sched.policy:scx_simple,scx")
	if msg := m.SetPolicy("# broken\ndef enqueue(p, f):\n    SYNTAX\n"); msg != "" {
		t.Fatal(msg)
	}
	m.RunTo(40e6)
	for i := 1; i < 2000 && m.Playing(); i++ {
		m.Update(float64(i) * 16)
	}
	st := m.State()
	if st.Refused != "" || st.NowNs != 40e6 {
		t.Fatalf("refused %q at %d ns: the built-in arm should have played on to 40 ms", st.Refused, st.NowNs)
	}
	u := policyUI(t, m)
	if len(u.Errors) != 1 || u.Errors[0].Line != 3 || u.Errors[0].Col != 5 || u.Errors[0].Ejected ||
		!strings.HasPrefix(u.Errors[0].Arm, "B") {
		t.Fatalf("errors %+v: want one, arm B, line 3 col 5", u.Errors)
	}
	if msg := m.SetPolicy("# fixed\n"); msg != "" {
		t.Fatal(msg)
	}
	m.Update(1e6)
	if u := policyUI(t, m); len(u.Errors) != 0 || u.Title != "fixed" {
		t.Errorf("after a fix: errors %+v, title %q", u.Errors, u.Title)
	}
}

// The editor marks a missing ':' on the line that lacks it, just past its
// code, as the real binding reports it (scxstar moves go.starlark.net's
// place, the start of the next line, there), and so does the pane's text.
func TestPolicyMissingColonMarksItsLine(t *testing.T) {
	m, _ := newPolicyModelCompiling(t, "#v=1&preset=plain&compare=sched.policy:scx_simple,scx", scxstar.CompilerNamed(playground.PolicyFile))
	if msg := m.SetPolicy("# broken\ndef enqueue(p, f)  # no colon\n\n    pass\n"); msg != "" {
		t.Fatal(msg)
	}
	m.RunTo(20e6)
	for i := 1; i < 2000 && m.Playing(); i++ {
		m.Update(float64(i) * 16)
	}
	u := policyUI(t, m)
	if len(u.Errors) != 1 || u.Errors[0].Line != 2 || u.Errors[0].Col != 18 {
		t.Fatalf("errors %+v: want one, at line 2 col 18 (past \"def enqueue(p, f)\")", u.Errors)
	}
	if !strings.HasPrefix(u.Errors[0].Message, "policy.star:2:18: syntax error: got newline, want ':'") {
		t.Errorf("message %q", u.Errors[0].Message)
	}
}

// A policy that parks tasks in a DSQ nothing consumes (the fixture
// scxstar/testdata/parked.star parks odd pids in DSQ 5) does no error the
// editor could mark; once a task has waited playground.WaitingAfterNs the
// editor's section names the parked tasks, since when, and the DSQ.
func TestPolicyParkedTasksAreNamed(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "scxstar", "testdata", "parked.star"))
	if err != nil {
		t.Fatal(err)
	}
	m, _ := newPolicyModelCompiling(t, "#v=1&preset=plain&duration_ms=1500", scxstar.CompilerNamed(playground.PolicyFile))
	if msg := m.SetPolicy(string(src)); msg != "" {
		t.Fatal(msg)
	}
	play := func(atNs int64) {
		m.RunTo(atNs)
		for i := 1; i < 20000 && m.Playing(); i++ {
			m.Update(float64(i) * 16)
		}
		if now := m.State().NowNs; now != atNs {
			t.Fatalf("the model is at %d ns, want %d", now, atNs)
		}
	}
	play(500e6)
	if u := policyUI(t, m); len(u.Waiting) != 0 || len(u.Errors) != 0 {
		t.Fatalf("at 0.5 s: waiting %+v, errors %+v: want nothing shown before a task has waited a second", u.Waiting, u.Errors)
	}
	play(1200e6)
	u := policyUI(t, m)
	if len(u.Waiting) != 1 || len(u.Errors) != 0 {
		t.Fatalf("at 1.2 s: waiting %+v, errors %+v: want arm A's parked tasks, no error", u.Waiting, u.Errors)
	}
	w := u.Waiting[0]
	if w.Arm != "A" || w.Count < 1 || len(w.Tasks) == 0 || len(w.Tasks) > engine.ScxWaitingListed {
		t.Fatalf("waiting %+v", w)
	}
	for i, x := range w.Tasks {
		if x.PID%2 != 1 || x.Where != "DSQ 5" || x.SinceNs < 0 || x.SinceNs > 1200e6-playground.WaitingAfterNs {
			t.Errorf("task %d: %+v: want an odd pid on DSQ 5, waiting a second or more", i, x)
		}
		if i > 0 && x.SinceNs < w.Tasks[i-1].SinceNs {
			t.Errorf("task %d waited less than task %d: the longest-waiting come first", i-1, i)
		}
	}
	if !strings.Contains(w.Message, "pid "+strconv.Itoa(w.Tasks[0].PID)+" (") || !strings.Contains(w.Message, "on DSQ 5, waiting ") {
		t.Errorf("message %q does not name the longest-waiting task and its DSQ", w.Message)
	}
}

// A policy too long for a link stays in the page (and in a share) but not
// in the fragment, and the editor's section says so.
func TestLongPolicyLeavesTheLink(t *testing.T) {
	m, _ := newPolicyModel(t, "#v=1&preset=plain")
	var b strings.Builder
	b.WriteString("# long\n")
	x := uint32(7)
	for b.Len() < 20_000 { // numbers a deflater cannot shrink much
		x = x*1664525 + 1013904223
		b.WriteString("X = " + strconv.FormatUint(uint64(x), 10) + "\n")
	}
	if msg := m.SetPolicy(b.String()); msg != "" {
		t.Fatal(msg)
	}
	if u := policyUI(t, m); u.InLink || u.Source != b.String() {
		t.Errorf("in link %v, source kept %v", u.InLink, u.Source == b.String())
	}
	if frag := m.Fragment(); strings.Contains(frag, "&policy=") || len(frag) > 4096 {
		t.Errorf("fragment %.80q... (%d bytes) carries the long policy", frag, len(frag))
	}
	sc, err := m.ScenarioJSON()
	if err != nil || !strings.Contains(string(sc), "# long") {
		t.Errorf("the share's scenario lacks the policy (%v)", err)
	}
}

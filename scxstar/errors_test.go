package scxstar

import (
	"regexp"
	"strings"
	"testing"

	"schedplay/engine"
)

// TestCompileErrors: a source that cannot become a policy is refused by Compile
// with the file, line and column (or the callback) and what is wrong.
func TestCompileErrors(t *testing.T) {
	for _, tc := range []struct {
		desc, src string
		want      []string // substrings of the error, in any order
	}{
		{"syntax error", "def enqueue(p, f):\n    scx.dsq_insert(p, 0,\n", []string{"bad.star:3:1: syntax error"}},
		{"undefined name", "def enqueue(p, f):\n    dsq_insert(p, 0, 1)\n", []string{"bad.star:2:5", "undefined: dsq_insert"}},
		{"callback not a function", "enqueue = 3\n", []string{"bad.star", "enqueue is a int, not a function"}},
		{"helper at the top level", "scx.create_dsq(1)\n", []string{"bad.star:1:15", "create_dsq: called at the top level"}},
		{"top level over its budget", "def f():\n    n = 0\n    while True:\n        n += 1\nf()\n", []string{"bad.star:1:1", "the top level is over its step budget (2000000 steps)", "bad.star:5:2: in <toplevel>"}},
		{"global reassigned", "x = 1\nx = 2\n", []string{"bad.star:2:1", "cannot reassign global x"}},
		{"no math module", "load(\"math.star\", \"sqrt\")\n", []string{"bad.star:1:"}},
		{"flags not an int", "flags = {}\n", []string{"bad.star", "flags is a dict, not ops flags"}},
		{"flags not modelled", "flags = scx.OPS_ENQ_LAST | 1024\n", []string{"bad.star", "flags 0x400", "only scx.OPS_KEEP_BUILTIN_IDLE, scx.OPS_ENQ_LAST and scx.OPS_BUILTIN_IDLE_PER_NODE"}},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			_, err := Compile("bad.star", tc.src, 20_000_000)
			if err == nil {
				t.Fatal("compiled")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the error does not say %q:\n%v", w, err)
				}
			}
		})
	}
}

// TestRuntimeErrorsEject: a policy that breaks a rule of the core while it runs
// is ejected (the kernel's error exit, scx_error); Results.ScxExit names the
// callback, the line of the policy, and the rule, and the run goes on under the
// fair class to its horizon with work done after the ejection.
func TestRuntimeErrorsEject(t *testing.T) {
	const head = "SHARED = 1\n\ndef init():\n    scx.create_dsq(SHARED)\n\ndef dispatch(cpu, prev):\n    scx.dsq_move_to_local(SHARED)\n\n"
	for _, tc := range []struct {
		desc, src string
		want      []string
	}{
		{"unknown helper", head + "def enqueue(p, f):\n    scx.dsq_insert_fifo(p, SHARED, scx.SLICE_DFL)\n",
			[]string{"enqueue", "policy.star:10:", "dsq_insert_fifo"}},
		{"DSQ never created", head + "def enqueue(p, f):\n    scx.dsq_insert(p, 7, scx.SLICE_DFL)\n",
			[]string{"enqueue", "policy.star:10:", "DSQ 7 was never created"}},
		{"inserted twice", head + "def enqueue(p, f):\n    scx.dsq_insert(p, SHARED, scx.SLICE_DFL)\n    scx.dsq_insert(p, SHARED, scx.SLICE_DFL)\n",
			[]string{"enqueue", "policy.star:11:", "already queued or running", "dispatching it twice"}},
		{"CPU out of range", head + "def enqueue(p, f):\n    scx.dsq_insert(p, SHARED, scx.SLICE_DFL)\n\ndef select_cpu(p, prev_cpu, wake_flags):\n    return 99\n",
			[]string{"select_cpu", "CPU 99", "out of range"}},
		{"not inserted", head + "def enqueue(p, f):\n    pass\n",
			[]string{"enqueue", "was not inserted into any DSQ"}},
		{"over the step budget", head + "def enqueue(p, f):\n    while True:\n        pass\n",
			[]string{"enqueue: policy.star:9:1", "enqueue is over its step budget (100000 steps)", "in enqueue"}},
		{"select_cpu returns a string", head + "def enqueue(p, f):\n    scx.dsq_insert(p, SHARED, scx.SLICE_DFL)\n\ndef select_cpu(p, prev_cpu, wake_flags):\n    return \"cpu0\"\n",
			[]string{"select_cpu returned string, not a CPU number"}},
		{"scx.error", head + "def enqueue(p, f):\n    scx.error(\"gave up on pid %d\" % p.pid)\n",
			[]string{"enqueue", "policy.star:10:", "gave up on pid"}},
		// scx_kick_cpu: "PREEMPT/WAIT cannot be used with SCX_KICK_IDLE".
		{"KICK_IDLE with KICK_PREEMPT", head + "def enqueue(p, f):\n    scx.dsq_insert(p, SHARED, scx.SLICE_DFL)\n    scx.kick_cpu(0, scx.KICK_IDLE | scx.KICK_PREEMPT)\n",
			[]string{"enqueue", "policy.star:11:", "KICK_PREEMPT cannot be used with KICK_IDLE"}},
		// scx_bpf_dsq_move_to_local finds user DSQs only (find_user_dsq).
		{"dsq_move_to_local of the global DSQ", "def init():\n    scx.create_dsq(1)\n\ndef enqueue(p, f):\n    scx.dsq_insert(p, 1, scx.SLICE_DFL)\n\ndef dispatch(cpu, prev):\n    scx.dsq_move_to_local(scx.DSQ_GLOBAL)\n",
			[]string{"dispatch", "policy.star:8:", "DSQ_GLOBAL is not a user DSQ"}},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			res := runEjected(t, tc.src)
			for _, w := range tc.want {
				if !strings.Contains(res.ScxExit.Reason, w) {
					t.Errorf("the reason does not say %q:\n%s", w, res.ScxExit.Reason)
				}
			}
		})
	}
}

// TestWatchdogEjectsStarvation: a policy that queues tasks and never runs them
// (dispatch moves nothing) is ejected by the watchdog once a runnable task has
// waited its timeout (scx_watchdog_workfn, check_rq_for_timeouts), and the fair
// class then runs the work.
func TestWatchdogEjectsStarvation(t *testing.T) {
	src := "SHARED = 1\n\ndef init():\n    scx.create_dsq(SHARED)\n\ndef select_cpu(p, prev_cpu, wake_flags):\n    return prev_cpu\n\n" +
		"def enqueue(p, f):\n    scx.dsq_insert(p, SHARED, scx.SLICE_DFL)\n"
	res := runEjected(t, src)
	if !regexp.MustCompile(`watchdog: runnable task stall: pid \d+ .* has not run for [0-9.]+ ms \(the timeout is 50 ms\)`).MatchString(res.ScxExit.Reason) {
		t.Errorf("reason %q does not name the stalled task and the timeout", res.ScxExit.Reason)
	}
	if at := res.ScxExit.AtNs; at < 50e6 || at > 150e6 {
		t.Errorf("ejected at %d ns: want within a timeout or two of the stall (50-150 ms)", at)
	}
}

// runEjected runs src on a short saturated-sync and requires that it was
// ejected and that work completed after the ejection, under the fair class.
func runEjected(t *testing.T, src string) engine.Results {
	t.Helper()
	sc := readExample(t, "saturated-sync", "sched.policy=scx_simple", "duration_ms=600", "warmup_ms=300")
	sc = withPolicy(sc, src)
	sc.Sched.Scx.WatchdogMs = 50
	s, err := engine.NewSimScx(sc, CompilerNamed("policy.star"))
	if err != nil {
		t.Fatal(err)
	}
	s.SetVisual(false)
	res := s.Run()
	if !res.ScxExit.Ejected() {
		t.Fatal("the policy was not ejected")
	}
	if res.ScxExit.AtNs >= 300e6 {
		t.Fatalf("ejected at %d ns, after the measured window began: the test cannot see the fair class run", res.ScxExit.AtNs)
	}
	if res.Completed == 0 {
		t.Errorf("no work completed in the measured window after the ejection: %+v", res)
	}
	return res
}

// TestSyntaxErrorAtNewline: a syntax error about a NEWLINE token is reported
// at the end of the line that token ends, just past its code (where the
// missing ':' goes), not at column 1 of the line after, where go.starlark.net
// puts it. Other syntax errors keep go.starlark.net's place.
func TestSyntaxErrorAtNewline(t *testing.T) {
	for _, tc := range []struct {
		desc, src string
		want      string // the error's start
	}{
		{"missing ':' before a body", "def f(p)\n    pass\n", "bad.star:1:9: syntax error: got newline, want ':'"},
		{"after a trailing comment", "def f(p)  # the callback\n    pass\n", "bad.star:1:9: syntax error: got newline, want ':'"},
		{"a '#' in a string is not a comment", "X = \"#\"\nif X == \"a#b\"  # c\n    pass\n", "bad.star:2:14: syntax error: got newline, want ':'"},
		{"an escaped quote in a string", "if X == 'a\\'#'\n    pass\n", "bad.star:1:15: syntax error: got newline, want ':'"},
		{"blank lines between", "def f(p)\n\n\n    pass\n", "bad.star:1:9: syntax error: got newline, want ':'"},
		{"a comment line between", "def f(p)\n# the body\n    pass\n", "bad.star:1:9: syntax error: got newline, want ':'"},
		{"after a line continuation", "def f(p) \\\n   \n    pass\n", "bad.star:1:9: syntax error: got newline, want ':'"},
		{"a later line", "X = 1\n\ndef enqueue(p, f)\n    pass\n", "bad.star:3:18: syntax error: got newline, want ':'"},
		{"columns count runes", "# é\nÉ = 1\nif É == 1\n    pass\n", "bad.star:3:10: syntax error: got newline, want ':'"},
		{"the last line, no body", "def f(p)\n", "bad.star:1:9: syntax error: got newline, want ':'"},
		// Reported at the NEWLINE token already (its start), which a
		// trailing comment moves past the code.
		{"an operand missing", "x = 1 +  # more\n", "bad.star:1:8: syntax error: got newline, want primary expression"},
		// Not about a NEWLINE token: the places stay.
		{"end of file", "def f(p)", "bad.star:1:9: syntax error: got end of file, want ':'"},
		{"a newline in a string", "x = \"abc\n", "bad.star:1:5: syntax error: unexpected newline in string"},
		{"a bad unindent", "def f(p):\n    return\n  x\n", "bad.star:3:3: syntax error: unindent does not match any outer indentation level"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			_, err := Compile("bad.star", tc.src, 20_000_000)
			if err == nil {
				t.Fatal("compiled")
			}
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error %q, want it to start %q", err, tc.want)
			}
		})
	}
}

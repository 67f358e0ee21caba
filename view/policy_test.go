package view

import "testing"

func TestPolicyMessage(t *testing.T) {
	for _, tc := range []struct {
		desc, msg, want string
		line, col       int
	}{
		{"a syntax error", "sched.scx.source: policy.star:3:9: syntax error: got newline, want ':'",
			"line 3: syntax error: got newline, want ':'", 3, 9},
		{"a resolve error", "sched.scx.source: policy.star:12:5: undefined: dsq_insrt", "line 12: undefined: dsq_insrt", 12, 5},
		{"a runtime error with its traceback", "enqueue: policy.star:20:13: floored division by zero\nTraceback (most recent call last):\n  policy.star:20:13: in enqueue",
			"enqueue: line 20: floored division by zero", 20, 13},
		{"the watchdog", "watchdog: runnable task stall: pid 7 (spinner-2) has not run for 30 ms (the timeout is 30 ms)",
			"watchdog: runnable task stall: pid 7 (spinner-2) has not run for 30 ms (the timeout is 30 ms)", 0, 0},
		{"the whole file", "sched.scx.source: policy.star: enqueue is a int, not a function: a callback is a def",
			"enqueue is a int, not a function: a callback is a def", 0, 0},
		{"a place that is no place, then one", "policy.star:x:1: policy.star:2:3: bad", "policy.star:x:1: line 2: bad", 2, 3},
		{"another file's place is not the policy's", "other.star:1:1: oops", "other.star:1:1: oops", 0, 0},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			got, line, col := PolicyMessage(tc.msg)
			if got != tc.want || line != tc.line || col != tc.col {
				t.Errorf("PolicyMessage(%q) = %q, %d, %d; want %q, %d, %d", tc.msg, got, line, col, tc.want, tc.line, tc.col)
			}
		})
	}
}

func TestPolicyTitle(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"\n# A FIFO of my own\n# (second line)\ndef enqueue(p, f):\n    pass\n", "A FIFO of my own"},
		{"#\n#   spaced  \n", "spaced"},
		{"x = 1\n# after code\n", "unnamed"},
		{"", "unnamed"},
	} {
		if got := PolicyTitle(tc.src); got != tc.want {
			t.Errorf("PolicyTitle(%q) = %q, want %q", tc.src, got, tc.want)
		}
	}
}

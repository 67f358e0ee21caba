package scxstar

import (
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// TestMinMaxAsUniverse: a policy's max and min give what Starlark's do, value
// and type or error, for two ints (small, big, equal, mixed) and every other
// way of calling them.
func TestMinMaxAsUniverse(t *testing.T) {
	ours := minMaxBuiltins()
	for _, args := range []string{
		"1, 2", "2, 1", "3, 3", "-1, 0", "0, -1", "1 << 40, 5", "5, 1 << 40", "-(1 << 70), 1 << 70",
		"1 << 70, 1 << 70", "1, 2.0", "2.0, 1", "1, True", "True, 1", `1, "a"`, `"a", "b"`, "1, None",
		"1, 2, 3", "3, 2, 1", "[4, 1, 7]", "[]", "1", "", "1, 2, key=lambda x: -x", "[1, 2], key=None",
		"1, 2, bogus=1", "*[1, 2]", "(1 << 31) - 1, -(1 << 31)",
	} {
		for _, f := range []string{"max", "min"} {
			for _, expr := range []string{f + "(" + args + ")", "type(" + f + "(" + args + "))"} {
				got, want := evalPredeclared(ours, expr), evalPredeclared(nil, expr)
				if got != want {
					t.Errorf("%s: %s, Starlark's gives %s", expr, got, want)
				}
			}
		}
	}
	for _, expr := range []string{"str(max)", "type(min)", "max == max"} {
		if got, want := evalPredeclared(ours, expr), evalPredeclared(nil, expr); got != want {
			t.Errorf("%s: %s, Starlark's gives %s", expr, got, want)
		}
	}
}

// evalPredeclared evaluates expr with the names predeclared: its value or its
// error.
func evalPredeclared(predeclared starlark.StringDict, expr string) string {
	thread := &starlark.Thread{Name: "test"}
	v, err := starlark.EvalOptions(&syntax.FileOptions{}, thread, "expr.star", expr, predeclared)
	if err != nil {
		return "error: " + err.Error()
	}
	return v.String()
}

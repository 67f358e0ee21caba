package scxstar

import (
	"fmt"
	"testing"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"
	"go.starlark.net/syntax"
)

// TestModuleAsStarlarkstruct: the scx module answers every expression a policy
// may put to it as the starlarkstruct.Module it replaces: each member, a
// missing one (with the spelling hint), type, str, dir, hasattr, getattr.
func TestModuleAsStarlarkstruct(t *testing.T) {
	ours := newModule(&Policy{}, 20_000_000)
	theirs := &starlarkstruct.Module{Name: "scx", Members: ours.members}
	exprs := []string{
		`type(scx)`, `str(scx)`, `repr(scx)`, `dir(scx)`, `scx == scx`, `bool(scx)`,
		`scx.dsq_insrt`, `scx.nope`, `scx.SLICE_DF`, `scx._`, `hasattr(scx, "now")`, `hasattr(scx, "")`,
		`getattr(scx, "", 1)`, `{scx: 1}`, `scx.now == scx.now`,
	}
	for _, name := range ours.members.Keys() {
		exprs = append(exprs, "scx."+name, fmt.Sprintf("getattr(scx, %q)", name))
	}
	for _, e := range exprs {
		got, want := evalWith(ours, e), evalWith(theirs, e)
		if got != want {
			t.Errorf("%s: %s, starlarkstruct.Module gives %s", e, got, want)
		}
	}
}

// evalWith evaluates expr with scx predeclared as m: its value or its error.
func evalWith(m starlark.Value, expr string) string {
	thread := &starlark.Thread{Name: "test"}
	v, err := starlark.EvalOptions(&syntax.FileOptions{}, thread, "expr.star", expr, starlark.StringDict{"scx": m})
	if err != nil {
		return "error: " + err.Error()
	}
	return v.String()
}

package scxstar

import "go.starlark.net/starlark"

// A policy's max and min are Starlark's own with a shortcut for two ints,
// the way policies use them (scx_simple's vtime, max(p.runtime * 100 //
// p.weight, vtime_now - SLICE_DFL), in every enqueue): Starlark's boxes its
// arguments, iterates them and unpacks a key= it is not given, allocating
// twice per call. Any other call goes to Starlark's, so they return the same
// values and errors; a builtin executes no Starlark steps either way.

// minMaxBuiltins are max and min, for a policy's predeclared names.
func minMaxBuiltins() starlark.StringDict {
	return starlark.StringDict{"max": intMinMax("max", 1), "min": intMinMax("min", -1)}
}

// intMinMax is Universe's max (want 1) or min (want -1) with the shortcut:
// of two ints, the second if it compares want to the first, else the first,
// as Starlark's keeps the first of equal extremes.
func intMinMax(name string, want int) *starlark.Builtin {
	universal := starlark.Universe[name].(*starlark.Builtin)
	return starlark.NewBuiltin(name, func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
		if len(args) == 2 && len(kw) == 0 {
			x, okx := args[0].(starlark.Int)
			y, oky := args[1].(starlark.Int)
			if okx && oky {
				if c, _ := y.Cmp(x, 0); c == want {
					return y, nil
				}
				return x, nil
			}
		}
		return universal.CallInternal(thread, args, kw)
	})
}

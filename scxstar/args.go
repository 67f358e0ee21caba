package scxstar

import (
	"strings"

	"go.starlark.net/starlark"
)

// A helper's arguments are unpacked without allocating when they are
// positional and of the right types, the way nearly every call passes them;
// anything else (keywords, a wrong type or count) goes through
// starlark.UnpackArgs, so a helper accepts and refuses exactly what
// UnpackArgs would, with its messages. UnpackArgs itself allocates every
// variable it fills (they escape through its ...any), which made a helper
// call cost as much as the rest of a short callback.

// argKind is what a parameter unpacks into, as UnpackArgs would.
type argKind uint8

const (
	argTask   argKind = iota // a *task
	argInt32                 // an int32: DSQ ids, CPUs and flags
	argInt64                 // an int64: slices, vtimes, exit codes
	argString                // a string
	argValue                 // any value (a callback, a list or cpumask)
)

// param is one parameter: its name as UnpackArgs takes it ("flags?" is
// optional, and so is every one after it) and its kind.
type param struct {
	name string
	kind argKind
}

// arg is one unpacked argument: t for a task, n for an int, s for a string,
// v for any value. An optional argument not passed is the zero arg (v nil).
type arg struct {
	t *task
	n int64
	s string
	v starlark.Value
}

// maxParams is the most parameters a helper has (dsq_insert_vtime's five).
const maxParams = 5

// argv is a helper's unpacked arguments, by position. It is passed by value:
// a pointer to it would escape through the helper's func value and be
// allocated per call.
type argv [maxParams]arg

// signature is a helper's name and parameters.
type signature struct {
	name     string
	params   []param
	required int // the parameters before the first optional one
}

func newSignature(name string, params []param) signature {
	s := signature{name: name, params: params[:len(params):len(params)], required: len(params)}
	if len(params) > maxParams {
		panic("scxstar: " + name + " has more than maxParams parameters")
	}
	for i, p := range params {
		if strings.HasSuffix(p.name, "?") {
			s.required = i
			break
		}
	}
	return s
}

// unpack reads a call's arguments against s.
func (s *signature) unpack(args starlark.Tuple, kw []starlark.Tuple) (argv, error) {
	var a argv
	if len(kw) == 0 && len(args) >= s.required && len(args) <= len(s.params) {
		ok := true
		for i, v := range args {
			if !a[i].set(s.params[i].kind, v) {
				ok = false
				break
			}
		}
		if ok {
			return a, nil
		}
	}
	return s.unpackSlow(args, kw)
}

// set sets a to v as kind k, and reports whether UnpackArgs would have
// taken v for it: an int must fit k's Go type as starlark.AsInt checks.
func (a *arg) set(k argKind, v starlark.Value) bool {
	switch k {
	case argTask:
		t, ok := v.(*task)
		a.t = t
		return ok
	case argInt32, argInt64:
		i, ok := v.(starlark.Int)
		if !ok {
			return false
		}
		n, ok := i.Int64()
		if !ok || k == argInt32 && n != int64(int32(n)) {
			return false
		}
		a.n = n
		return true
	case argString:
		s, ok := starlark.AsString(v)
		a.s = s
		return ok
	case argValue:
		a.v = v
		return true
	}
	return false
}

// unpackSlow unpacks through UnpackArgs, into variables of the Go types the
// kinds name.
func (s *signature) unpackSlow(args starlark.Tuple, kw []starlark.Tuple) (argv, error) {
	pairs := make([]any, 0, 2*len(s.params))
	for _, p := range s.params {
		var ptr any
		switch p.kind {
		case argTask:
			ptr = new(*task)
		case argInt32:
			ptr = new(int32)
		case argInt64:
			ptr = new(int64)
		case argString:
			ptr = new(string)
		case argValue:
			ptr = new(starlark.Value)
		}
		pairs = append(pairs, p.name, ptr)
	}
	var a argv
	if err := starlark.UnpackArgs(s.name, args, kw, pairs...); err != nil {
		return a, err
	}
	for i := range s.params {
		switch ptr := pairs[2*i+1].(type) {
		case **task:
			a[i].t = *ptr
		case *int32:
			a[i].n = int64(*ptr)
		case *int64:
			a[i].n = *ptr
		case *string:
			a[i].s = *ptr
		case *starlark.Value:
			a[i].v = *ptr
		}
	}
	return a, nil
}

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

// arg is one unpacked argument: n for an int, v for a task, a string or any
// value (task and str read it as theirs). An optional argument not passed is
// the zero arg (v nil). Two words and an int, not a field per kind: a
// helper's arguments are zeroed and copied on every call, and a smaller
// argv made that a third of what it was.
type arg struct {
	n int64
	v starlark.Value
}

// task is a task argument's value.
func (a *arg) task() *task {
	t, _ := a.v.(*task)
	return t
}

// str is a string argument's value, "" when not passed.
func (a *arg) str() string {
	s, _ := starlark.AsString(a.v)
	return s
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

// unpack reads a call's arguments against s into a, which is zero.
func (s *signature) unpack(a *argv, args starlark.Tuple, kw []starlark.Tuple) error {
	if len(kw) == 0 && len(args) >= s.required && len(args) <= len(s.params) {
		ok := true
		for i, v := range args {
			if !a[i].set(s.params[i].kind, v) {
				ok = false
				break
			}
		}
		if ok {
			return nil
		}
	}
	*a = argv{}
	return s.unpackSlow(a, args, kw)
}

// set sets a to v as kind k, and reports whether UnpackArgs would have
// taken v for it: an int must fit k's Go type as starlark.AsInt checks.
func (a *arg) set(k argKind, v starlark.Value) bool {
	switch k {
	case argTask:
		_, ok := v.(*task)
		a.v = v
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
		_, ok := starlark.AsString(v)
		a.v = v
		return ok
	case argValue:
		a.v = v
		return true
	}
	return false
}

// unpackSlow unpacks through UnpackArgs, into variables of the Go types the
// kinds name, and from them into a.
func (s *signature) unpackSlow(a *argv, args starlark.Tuple, kw []starlark.Tuple) error {
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
	if err := starlark.UnpackArgs(s.name, args, kw, pairs...); err != nil {
		return err
	}
	for i := range s.params {
		switch ptr := pairs[2*i+1].(type) {
		case **task:
			if *ptr != nil {
				a[i].v = *ptr
			}
		case *int32:
			a[i].n = int64(*ptr)
		case *int64:
			a[i].n = *ptr
		case *string:
			a[i].v = starlark.String(*ptr)
		case *starlark.Value:
			a[i].v = *ptr
		}
	}
	return nil
}

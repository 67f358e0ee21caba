package scxstar

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"

	"go.starlark.net/starlark"

	"schedplay/engine"
)

// A policy's state in a checkpoint: its globals that hold lists or dicts
// (Starlark has no reassignment of a global, so those containers are the only
// state that changes after the top level ran), by name in sorted order, each
// value encoded with its type. Resuming compiles the source again, which
// rebuilds every other global as it was, then refills those containers in
// place, so the callbacks, which refer to them, see the saved contents.
// Values may be None, bools, ints, floats, strings, lists, tuples and dicts;
// a task must be kept as its pid. Two globals naming the same container are
// restored as two (the aliasing is not kept).

const (
	tagNone byte = iota
	tagFalse
	tagTrue
	tagInt
	tagFloat
	tagString
	tagList
	tagTuple
	tagDict
	tagCpumask
)

// maxStateDepth bounds nesting, on save and on load.
const maxStateDepth = 64

// SaveState implements engine.ScxOps.
func (p *Policy) SaveState() ([]byte, error) {
	var b []byte
	names := p.globals.Keys() // sorted
	for _, name := range names {
		v := p.globals[name]
		switch v.(type) {
		case *starlark.List, *starlark.Dict:
		case *starlark.Function, *starlark.Builtin:
			continue
		default:
			if err := checkValue(v, 0); err != nil {
				return nil, fmt.Errorf("global %s: %v", name, err)
			}
			continue
		}
		b = binary.AppendUvarint(b, uint64(len(name)))
		b = append(b, name...)
		var err error
		if b, err = encode(b, v, 0); err != nil {
			return nil, fmt.Errorf("global %s: %v", name, err)
		}
	}
	if p.api.named() {
		b = binary.AppendUvarint(b, uint64(len(apiStateKey)))
		b = append(b, apiStateKey...)
		b, _ = encode(b, p.api.value(), 0) // ints, strings, tuples: always encodable
	}
	return b, nil
}

// checkValue says why v cannot be part of a policy's state, or nil.
func checkValue(v starlark.Value, depth int) error {
	_, err := encode(nil, v, depth)
	return err
}

func encode(b []byte, v starlark.Value, depth int) ([]byte, error) {
	if depth > maxStateDepth {
		return nil, fmt.Errorf("nested more than %d deep", maxStateDepth)
	}
	var err error
	switch v := v.(type) {
	case starlark.NoneType:
		return append(b, tagNone), nil
	case starlark.Bool:
		if v {
			return append(b, tagTrue), nil
		}
		return append(b, tagFalse), nil
	case starlark.Int:
		s := v.String()
		b = append(b, tagInt)
		b = binary.AppendUvarint(b, uint64(len(s)))
		return append(b, s...), nil
	case starlark.Float:
		b = append(b, tagFloat)
		return binary.BigEndian.AppendUint64(b, math.Float64bits(float64(v))), nil
	case starlark.String:
		b = append(b, tagString)
		b = binary.AppendUvarint(b, uint64(len(v)))
		return append(b, v...), nil
	case *starlark.List:
		b = append(b, tagList)
		b = binary.AppendUvarint(b, uint64(v.Len()))
		for i := range v.Len() {
			if b, err = encode(b, v.Index(i), depth+1); err != nil {
				return nil, err
			}
		}
		return b, nil
	case starlark.Tuple:
		b = append(b, tagTuple)
		b = binary.AppendUvarint(b, uint64(len(v)))
		for _, x := range v {
			if b, err = encode(b, x, depth+1); err != nil {
				return nil, err
			}
		}
		return b, nil
	case *starlark.Dict:
		b = append(b, tagDict)
		b = binary.AppendUvarint(b, uint64(v.Len()))
		for _, kv := range v.Items() {
			if b, err = encode(b, kv[0], depth+1); err != nil {
				return nil, err
			}
			if b, err = encode(b, kv[1], depth+1); err != nil {
				return nil, err
			}
		}
		return b, nil
	case *cpumask:
		cpus := v.cpus()
		b = append(b, tagCpumask)
		b = binary.AppendUvarint(b, uint64(len(cpus)))
		for _, c := range cpus {
			b = binary.AppendUvarint(b, uint64(c))
		}
		return b, nil
	case *task:
		return nil, fmt.Errorf("holds a task (pid %d): keep tasks by their pid", v.t.PID())
	}
	return nil, fmt.Errorf("holds a %s, which a checkpoint cannot save (None, bools, ints, floats, strings, lists, tuples, dicts and cpumasks can be)", v.Type())
}

// LoadState implements engine.ScxOps: it refills the saved containers.
func (p *Policy) LoadState(data []byte) error {
	d := &decoder{b: data}
	for d.off < len(d.b) && d.err == nil {
		name := d.str()
		v := d.value(0)
		if d.err != nil {
			break
		}
		if name == apiStateKey {
			if err := p.api.load(v); err != nil {
				return err
			}
			continue
		}
		g, ok := p.globals[name]
		if !ok {
			return fmt.Errorf("the saved state names global %s, which the policy does not have", name)
		}
		switch g := g.(type) {
		case *starlark.List:
			l, ok := v.(*starlark.List)
			if !ok {
				return fmt.Errorf("global %s is a list; the saved state has a %s", name, v.Type())
			}
			if err := g.Clear(); err != nil {
				return err
			}
			for i := range l.Len() {
				g.Append(l.Index(i))
			}
		case *starlark.Dict:
			dv, ok := v.(*starlark.Dict)
			if !ok {
				return fmt.Errorf("global %s is a dict; the saved state has a %s", name, v.Type())
			}
			if err := g.Clear(); err != nil {
				return err
			}
			for _, kv := range dv.Items() {
				if err := g.SetKey(kv[0], kv[1]); err != nil {
					return err
				}
			}
		default:
			return fmt.Errorf("global %s is a %s: the saved state has a container for it", name, g.Type())
		}
	}
	return d.err
}

type decoder struct {
	b   []byte
	off int
	err error
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("policy state at byte %d: "+format, append([]any{d.off}, args...)...)
	}
}

func (d *decoder) uv() uint64 {
	v, n := binary.Uvarint(d.b[d.off:])
	if n <= 0 {
		d.fail("a bad number")
		return 0
	}
	d.off += n
	return v
}

func (d *decoder) str() string {
	n := d.uv()
	if d.err != nil || n > uint64(len(d.b)-d.off) {
		d.fail("a string past the end")
		return ""
	}
	s := string(d.b[d.off : d.off+int(n)])
	d.off += int(n)
	return s
}

func (d *decoder) count() int {
	n := d.uv()
	if n > uint64(len(d.b)-d.off) { // every element takes a byte at least
		d.fail("a count of %d past the end", n)
		return 0
	}
	return int(n)
}

func (d *decoder) value(depth int) starlark.Value {
	if d.err != nil {
		return starlark.None
	}
	if depth > maxStateDepth || d.off >= len(d.b) {
		d.fail("truncated or nested too deep")
		return starlark.None
	}
	tag := d.b[d.off]
	d.off++
	switch tag {
	case tagNone:
		return starlark.None
	case tagFalse:
		return starlark.False
	case tagTrue:
		return starlark.True
	case tagInt:
		s := d.str()
		i, ok := new(big.Int).SetString(s, 10)
		if !ok || len(s) > 400 {
			d.fail("%q is not an int", s)
			return starlark.None
		}
		return starlark.MakeBigInt(i)
	case tagFloat:
		if len(d.b)-d.off < 8 {
			d.fail("a float past the end")
			return starlark.None
		}
		f := math.Float64frombits(binary.BigEndian.Uint64(d.b[d.off:]))
		d.off += 8
		return starlark.Float(f)
	case tagString:
		return starlark.String(d.str())
	case tagList, tagTuple:
		n := d.count()
		vs := make([]starlark.Value, 0, n)
		for range n {
			vs = append(vs, d.value(depth+1))
		}
		if tag == tagTuple {
			return starlark.Tuple(vs)
		}
		return starlark.NewList(vs)
	case tagDict:
		n := d.count()
		m := starlark.NewDict(n)
		for range n {
			k, v := d.value(depth+1), d.value(depth+1)
			if d.err != nil {
				break
			}
			if err := m.SetKey(k, v); err != nil {
				d.fail("a dict key: %v", err)
			}
		}
		return m
	case tagCpumask:
		n := d.count()
		m := &cpumask{}
		for range n {
			c := d.uv()
			if c >= engine.MaxVCPUs {
				d.fail("CPU %d in a cpumask", c)
				return starlark.None
			}
			m.w[c/64] |= 1 << (c % 64)
		}
		return m
	}
	d.fail("tag %d is not a value", tag)
	return starlark.None
}

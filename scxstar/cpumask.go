package scxstar

import (
	"fmt"
	"math/bits"
	"strings"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"schedplay/engine"
)

// cpumask is a set of CPUs as a policy sees it (struct cpumask, read with
// the kernel's cpumask_* helpers): immutable, so a mask the core hands out
// (the idle masks, a topology mask) cannot be changed under it, and a policy
// computes new masks with & (cpumask_and), | (cpumask_or) and andnot
// (cpumask_andnot). `cpu in m` is cpumask_test_cpu, len(m)
// cpumask_weight, iteration is for_each_cpu (in CPU order), m.first()
// cpumask_first. A cpumask is accepted wherever a list of CPUs is.
type cpumask struct {
	w [maskWords]uint64
}

// maskWords holds engine.MaxVCPUs bits.
const maskWords = (engine.MaxVCPUs + 63) / 64

var (
	_ starlark.HasBinary  = (*cpumask)(nil)
	_ starlark.Container  = (*cpumask)(nil)
	_ starlark.Sequence   = (*cpumask)(nil)
	_ starlark.HasAttrs   = (*cpumask)(nil)
	_ starlark.Comparable = (*cpumask)(nil)
)

// maskOf makes a mask of cpus, which the caller has checked are in range.
func maskOf(cpus []int) *cpumask {
	m := &cpumask{}
	for _, c := range cpus {
		m.w[c/64] |= 1 << (c % 64)
	}
	return m
}

// maskRange is the mask of CPUs lo..hi-1 (an LLC's, a node's: each is a run
// of CPU numbers on this engine's machines).
func maskRange(lo, hi int) *cpumask {
	m := &cpumask{}
	for c := lo; c < hi; c++ {
		m.w[c/64] |= 1 << (c % 64)
	}
	return m
}

func (m *cpumask) has(c int) bool {
	return c >= 0 && c < engine.MaxVCPUs && m.w[c/64]&(1<<(c%64)) != 0
}

func (m *cpumask) weight() int {
	n := 0
	for _, w := range m.w {
		n += bits.OnesCount64(w)
	}
	return n
}

// cpus lists the mask's CPUs in order.
func (m *cpumask) cpus() []int {
	out := make([]int, 0, m.weight())
	for i, w := range m.w {
		for w != 0 {
			b := bits.TrailingZeros64(w)
			out = append(out, i*64+b)
			w &^= 1 << b
		}
	}
	return out
}

// next is the first CPU of the mask at or after c, or -1 (cpumask_next).
func (m *cpumask) next(c int) int {
	for ; c < engine.MaxVCPUs; c++ {
		if m.has(c) {
			return c
		}
	}
	return -1
}

func (m *cpumask) String() string {
	var b strings.Builder
	b.WriteString("cpumask([")
	for i, c := range m.cpus() {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprint(&b, c)
	}
	b.WriteString("])")
	return b.String()
}

func (m *cpumask) Type() string         { return "cpumask" }
func (m *cpumask) Freeze()              {}
func (m *cpumask) Truth() starlark.Bool { return m.weight() > 0 }
func (m *cpumask) Len() int             { return m.weight() }

func (m *cpumask) Hash() (uint32, error) {
	var h uint32 = 2166136261
	for _, w := range m.w {
		h = (h ^ uint32(w) ^ uint32(w>>32)) * 16777619
	}
	return h, nil
}

func (m *cpumask) CompareSameType(op syntax.Token, y starlark.Value, _ int) (bool, error) {
	eq := m.w == y.(*cpumask).w
	switch op {
	case syntax.EQL:
		return eq, nil
	case syntax.NEQ:
		return !eq, nil
	}
	return false, fmt.Errorf("cpumask %s cpumask: masks compare with == and != only", op)
}

// Has is `cpu in m` (cpumask_test_cpu); a non-int is an error.
func (m *cpumask) Has(x starlark.Value) (bool, error) {
	c, err := starlark.AsInt32(x)
	if err != nil {
		return false, fmt.Errorf("in cpumask: want a CPU number, got %s", x.Type())
	}
	return m.has(c), nil
}

func (m *cpumask) Iterate() starlark.Iterator { return &maskIter{m: m} }

type maskIter struct {
	m *cpumask
	c int
}

func (it *maskIter) Next(p *starlark.Value) bool {
	c := it.m.next(it.c)
	if c < 0 {
		return false
	}
	*p = starlark.MakeInt(c)
	it.c = c + 1
	return true
}

func (it *maskIter) Done() {}

// Binary is m & o (cpumask_and) and m | o (cpumask_or), both masks.
func (m *cpumask) Binary(op syntax.Token, y starlark.Value, side starlark.Side) (starlark.Value, error) {
	o, ok := y.(*cpumask)
	if !ok {
		if op == syntax.AMP || op == syntax.PIPE {
			return nil, fmt.Errorf("cpumask %s %s: both operands must be cpumasks (make one from a list with scx.cpumask)", op, y.Type())
		}
		return nil, nil
	}
	r := &cpumask{}
	for i := range r.w {
		switch op {
		case syntax.AMP:
			r.w[i] = m.w[i] & o.w[i]
		case syntax.PIPE:
			r.w[i] = m.w[i] | o.w[i]
		default:
			return nil, nil
		}
	}
	return r, nil
}

func (m *cpumask) AttrNames() []string {
	return []string{"andnot", "any_distribute", "first", "test", "weight"}
}

func (m *cpumask) Attr(name string) (starlark.Value, error) {
	switch name {
	case "andnot":
		return starlark.NewBuiltin("andnot", func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
			var o *cpumask
			if err := starlark.UnpackArgs("andnot", args, kw, "other", &o); err != nil {
				return nil, err
			}
			r := &cpumask{}
			for i := range r.w {
				r.w[i] = m.w[i] &^ o.w[i]
			}
			return r, nil
		}).BindReceiver(m), nil
	case "test":
		return starlark.NewBuiltin("test", func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
			var c int32
			if err := starlark.UnpackArgs("test", args, kw, "cpu", &c); err != nil {
				return nil, err
			}
			return starlark.Bool(m.has(int(c))), nil
		}).BindReceiver(m), nil
	case "weight":
		return starlark.NewBuiltin("weight", func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
			if err := starlark.UnpackArgs("weight", args, kw); err != nil {
				return nil, err
			}
			return starlark.MakeInt(m.weight()), nil
		}).BindReceiver(m), nil
	case "first":
		return starlark.NewBuiltin("first", func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
			if err := starlark.UnpackArgs("first", args, kw); err != nil {
				return nil, err
			}
			return starlark.MakeInt(m.next(0)), nil
		}).BindReceiver(m), nil
	case "any_distribute":
		return starlark.NewBuiltin("any_distribute", func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
			prev := int32(-1)
			if err := starlark.UnpackArgs("any_distribute", args, kw, "prev?", &prev); err != nil {
				return nil, err
			}
			return starlark.MakeInt(m.anyDistribute(int(prev))), nil
		}).BindReceiver(m), nil
	}
	return nil, nil
}

// anyDistribute is cpumask_any_and_distribute's rule with its cursor passed
// in: the first CPU of the mask after prev, wrapping to the lowest (-1 when
// the mask is empty). The kernel keeps the cursor itself, one per CPU
// (distribute_cpu_mask_prev, moved to each answer); a value keeps none, so a
// policy that wants the kernel's spreading passes the CPU it got last, and
// the same call always gives the same answer.
func (m *cpumask) anyDistribute(prev int) int {
	if prev < -1 || prev >= engine.MaxVCPUs {
		prev = -1
	}
	if c := m.next(prev + 1); c >= 0 {
		return c
	}
	return m.next(0)
}

// newCpumask is scx.cpumask(cpus=[]): a mask of the CPUs of a list, tuple,
// range or mask. At the top level CPUs are checked against the largest
// machine (engine.MaxVCPUs); in a callback, against this one.
func (p *Policy) newCpumask(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
	var v starlark.Value = starlark.NewList(nil)
	if err := starlark.UnpackArgs("cpumask", args, kw, "cpus?", &v); err != nil {
		return nil, err
	}
	n := engine.MaxVCPUs
	if p.k != nil {
		n = p.k.NrCPUs()
	}
	return maskFrom("cpumask", v, n)
}

// maskFrom reads a list (or any iterable) of CPUs, or a mask, checking each
// CPU is below n.
func maskFrom(name string, v starlark.Value, n int) (*cpumask, error) {
	if m, ok := v.(*cpumask); ok {
		if last := lastCPU(m); last >= n {
			return nil, fmt.Errorf("%s: CPU %d out of range 0..%d", name, last, n-1)
		}
		return m, nil
	}
	it, ok := v.(starlark.Iterable)
	if !ok {
		return nil, fmt.Errorf("%s: want a list of CPUs or a cpumask, got %s", name, v.Type())
	}
	iter := it.Iterate()
	defer iter.Done()
	m := &cpumask{}
	var x starlark.Value
	for iter.Next(&x) {
		c, err := starlark.AsInt32(x)
		if err != nil {
			return nil, fmt.Errorf("%s: a CPU: %v", name, err)
		}
		if c < 0 || c >= n {
			return nil, fmt.Errorf("%s: CPU %d out of range 0..%d", name, c, n-1)
		}
		m.w[c/64] |= 1 << (c % 64)
	}
	return m, nil
}

func lastCPU(m *cpumask) int {
	for i := len(m.w) - 1; i >= 0; i-- {
		if m.w[i] != 0 {
			return i*64 + 63 - bits.LeadingZeros64(m.w[i])
		}
	}
	return -1
}

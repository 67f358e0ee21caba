package engine

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
)

// The checkpoint's primitives (format in checkpoint.go). Integers are varints
// (encoding/binary), signed ones zigzagged; times are written relative to the
// checkpoint's clock, where most of them lie close by; floats are their IEEE
// bits byte-reversed as a varint (encoding/gob's trick: a whole number or a
// round fraction has a mantissa of trailing zeros, which become leading zeros);
// strings go once into a table and are referred to by index; a thread is its
// id plus one, 0 for none.

// ckWriter appends a checkpoint's body.
type ckWriter struct {
	b    []byte
	now  int64
	strs map[string]int
	tab  []string
}

// uv and iv are not inlined: the checkpoint's writers call them hundreds of
// times, once a save, and each inlined copy of a varint append is code the
// workers' wasm carries (the policy worker's size budget, e2e TestBundleBudget).
//
//go:noinline
func (w *ckWriter) uv(v uint64) { w.b = binary.AppendUvarint(w.b, v) }

//go:noinline
func (w *ckWriter) iv(v int64)    { w.b = binary.AppendVarint(w.b, v) }
func (w *ckWriter) n(v int)       { w.uv(uint64(v)) }
func (w *ckWriter) ref(v int)     { w.uv(uint64(v + 1)) } // -1 (none) and up
func (w *ckWriter) at(t int64)    { w.iv(t - w.now) }
func (w *ckWriter) byte(v byte)   { w.b = append(w.b, v) }
func (w *ckWriter) f64(v float64) { w.uv(bits.ReverseBytes64(math.Float64bits(v))) }

func (w *ckWriter) bool(v bool) {
	if v {
		w.byte(1)
	} else {
		w.byte(0)
	}
}

// flags packs up to 8 booleans into one byte, the first in bit 0.
func (w *ckWriter) flags(vs ...bool) {
	var b byte
	for i, v := range vs {
		if v {
			b |= 1 << i
		}
	}
	w.byte(b)
}

func (w *ckWriter) str(s string) {
	i, ok := w.strs[s]
	if !ok {
		i = len(w.tab)
		w.strs[s] = i
		w.tab = append(w.tab, s)
	}
	w.n(i)
}

func (w *ckWriter) thr(t *thread) {
	if t == nil {
		w.uv(0)
		return
	}
	w.uv(uint64(t.id) + 1)
}

func (w *ckWriter) threads(ts []*thread) {
	w.n(len(ts))
	for _, t := range ts {
		w.thr(t)
	}
}

func (w *ckWriter) ints(vs []int) {
	w.n(len(vs))
	for _, v := range vs {
		w.iv(int64(v))
	}
}

// ckReader reads a checkpoint. The first error sticks and every later read
// returns zero, so decoding a damaged checkpoint ends with one error naming
// where it went wrong, never a panic; counts are checked against the bytes left
// before anything is allocated for them.
type ckReader struct {
	b   []byte
	off int
	err error
	now int64
	tab []string
	s   *Sim // threads resolve against s.threads
	// where names the part being read, for errors ("cpu 3", "workload").
	where string
	idx   int
}

// errCkShort is a checkpoint that ends before its last field.
var errCkShort = errors.New("ends early (truncated?)")

// at sets the part being read: name and, when idx >= 0, its index.
func (r *ckReader) in(name string, idx int) { r.where, r.idx = name, idx }

func (r *ckReader) failf(format string, args ...any) {
	if r.err != nil {
		return
	}
	where := r.where
	if r.idx >= 0 {
		where = fmt.Sprintf("%s %d", where, r.idx)
	}
	msg := fmt.Sprintf(format, args...)
	if where != "" {
		msg = where + ": " + msg
	}
	r.err = fmt.Errorf("%w: %s", ErrCheckpointCorrupt, msg)
}

func (r *ckReader) short() {
	r.failf("%v", errCkShort)
}

func (r *ckReader) uv() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b[r.off:])
	if n <= 0 {
		r.short()
		return 0
	}
	r.off += n
	return v
}

func (r *ckReader) iv() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b[r.off:])
	if n <= 0 {
		r.short()
		return 0
	}
	r.off += n
	return v
}

func (r *ckReader) byte() byte {
	if r.err != nil {
		return 0
	}
	if r.off >= len(r.b) {
		r.short()
		return 0
	}
	r.off++
	return r.b[r.off-1]
}

func (r *ckReader) at() int64 { return r.iv() + r.now }

// past reads a time written with at that must be at or before the clock, and
// not before time 0.
func (r *ckReader) past() int64 {
	t := r.at()
	if (t < 0 || t > r.now) && r.err == nil {
		r.failf("time %d ns is outside [0, %d]", t, r.now)
		return 0
	}
	return t
}

func (r *ckReader) f64() float64 { return math.Float64frombits(bits.ReverseBytes64(r.uv())) }

func (r *ckReader) bool() bool {
	b := r.byte()
	if b > 1 {
		r.failf("a flag is %d, not 0 or 1", b)
	}
	return b == 1
}

// flags reads n booleans packed by ckWriter.flags.
func (r *ckReader) flags(n int) []bool {
	b := r.byte()
	if b>>n != 0 {
		r.failf("flag bits %#x beyond the %d defined", b, n)
	}
	out := make([]bool, n)
	for i := range out {
		out[i] = b&(1<<i) != 0
	}
	return out
}

// n reads a non-negative int below limit.
func (r *ckReader) n(limit int) int {
	v := r.uv()
	if v >= uint64(limit) && r.err == nil {
		r.failf("%d is out of range (below %d)", v, limit)
		return 0
	}
	return int(v)
}

// u32 reads a uint32.
func (r *ckReader) u32() uint32 {
	v := r.uv()
	if v > 1<<32-1 && r.err == nil {
		r.failf("%d does not fit 32 bits", v)
	}
	return uint32(v)
}

// ref reads -1 (none) or an int below limit.
func (r *ckReader) ref(limit int) int { return r.n(limit+1) - 1 }

// intIn reads an int in [lo, hi].
func (r *ckReader) intIn(lo, hi int64) int64 {
	v := r.iv()
	if (v < lo || v > hi) && r.err == nil {
		r.failf("%d is out of range [%d, %d]", v, lo, hi)
		return lo
	}
	return v
}

// count reads a length whose elements take at least minBytes each, up to
// limit, refusing one the bytes left cannot hold: a hostile length allocates
// nothing.
func (r *ckReader) count(minBytes, limit int) int {
	v := r.uv()
	if r.err != nil {
		return 0
	}
	left := uint64(len(r.b)-r.off) / uint64(max(minBytes, 1))
	if v > left || v > uint64(limit) {
		r.failf("a count of %d exceeds what is left (%d bytes) or its limit %d", v, len(r.b)-r.off, limit)
		return 0
	}
	return int(v)
}

func (r *ckReader) str() string {
	i := r.uv()
	if r.err != nil {
		return ""
	}
	if i >= uint64(len(r.tab)) {
		r.failf("string %d is not in the table of %d", i, len(r.tab))
		return ""
	}
	return r.tab[i]
}

// thr reads a thread reference (nil for none).
func (r *ckReader) thr() *thread {
	v := r.uv()
	if v == 0 || r.err != nil {
		return nil
	}
	if v > uint64(len(r.s.threads)) {
		r.failf("thread %d does not exist (there are %d)", v-1, len(r.s.threads))
		return nil
	}
	return r.s.threads[v-1]
}

// mustThr reads a thread reference that may not be nil.
func (r *ckReader) mustThr() *thread {
	t := r.thr()
	if t == nil && r.err == nil {
		r.failf("a thread is missing")
	}
	return t
}

func (r *ckReader) threads(limit int) []*thread {
	n := r.count(1, limit)
	out := make([]*thread, 0, n)
	for range n {
		out = append(out, r.mustThr())
	}
	return out
}

func (r *ckReader) ints(limit int, lo, hi int64) []int {
	n := r.count(1, limit)
	out := make([]int, 0, n)
	for range n {
		out = append(out, int(r.intIn(lo, hi)))
	}
	return out
}

// raw reads a length-prefixed byte string of at most limit bytes (a view of
// the input).
func (r *ckReader) raw(limit int) []byte {
	n := r.count(1, limit)
	if r.err != nil {
		return nil
	}
	r.off += n
	return r.b[r.off-n : r.off]
}

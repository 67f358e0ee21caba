package runner

import (
	"math"
	"reflect"

	"schedplay/engine"
)

// The scenario (once per arm) and the engine's results (a few times a second)
// cross the wire as their Go values, field by field in declaration order: both
// ends are built from the same source, so the order is shared. This keeps the JSON
// library out of the worker, which would make it half a megabyte (gzip) larger
// and the page over its 4 MB budget. Nil and empty slices and maps stay distinct,
// and floats cross as their bits, so values arrive exactly as sent.

// appendValue appends v in engine.AppendBinaryValue's form (the engine's
// scenario key digests the same form, so the worker carries one walker).
func appendValue(b []byte, v reflect.Value) []byte { return engine.AppendBinaryValue(b, v) }

// readValue reads into v what appendValue wrote for a value of its type.
func readValue(r *reader, v reflect.Value) {
	if r.err != nil {
		return
	}
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(r.byte() != 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(r.varint())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(r.uvarint())
	case reflect.Float32, reflect.Float64:
		v.SetFloat(math.Float64frombits(r.uint64()))
	case reflect.String:
		v.SetString(r.string())
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				readValue(r, v.Field(i))
			}
		}
	case reflect.Array, reflect.Slice:
		if v.Kind() == reflect.Slice {
			n, ok := readLength(r, v)
			if !ok {
				return
			}
			v.Set(reflect.MakeSlice(v.Type(), n, n))
		}
		for i := range v.Len() {
			readValue(r, v.Index(i))
		}
	case reflect.Map:
		n, ok := readLength(r, v)
		if !ok {
			return
		}
		v.Set(reflect.MakeMapWithSize(v.Type(), n))
		for range n {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			readValue(r, k)
			readValue(r, e)
			if r.err != nil {
				return
			}
			v.SetMapIndex(k, e)
		}
	default:
		r.fail("cannot read a " + v.Type().String())
	}
}

// readLength reads a slice's or map's length as appendValue writes it (0 for
// nil, else length+1); for nil it zeroes v and reports false.
func readLength(r *reader, v reflect.Value) (int, bool) {
	n := r.count(1)
	if n == 0 {
		v.SetZero()
		return 0, false
	}
	return n - 1, true
}

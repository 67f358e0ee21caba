package runner

import (
	"encoding/binary"
	"math"
	"reflect"
	"slices"
)

// The scenario (once per arm) and the engine's results (a few times a second)
// cross the wire as their Go values, field by field in declaration order: both
// ends are built from the same source, so the order is shared. This keeps the JSON
// library out of the worker, which would make it half a megabyte (gzip) larger
// and the page over its 4 MB budget. Nil and empty slices and maps stay distinct,
// and floats cross as their bits, so values arrive exactly as sent.

// appendValue appends v. It handles the kinds engine.Scenario and engine.Results
// are made of; any other kind is a programming error.
func appendValue(b []byte, v reflect.Value) []byte {
	switch v.Kind() {
	case reflect.Bool:
		return append(b, flagIf(v.Bool(), 1))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return binary.AppendVarint(b, v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return binary.AppendUvarint(b, v.Uint())
	case reflect.Float32, reflect.Float64:
		return binary.LittleEndian.AppendUint64(b, math.Float64bits(v.Float()))
	case reflect.String:
		return appendString(b, v.String())
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				b = appendValue(b, v.Field(i))
			}
		}
		return b
	case reflect.Array, reflect.Slice:
		if v.Kind() == reflect.Slice {
			if v.IsNil() {
				return append(b, 0)
			}
			b = binary.AppendUvarint(b, uint64(v.Len())+1)
		}
		for i := range v.Len() {
			b = appendValue(b, v.Index(i))
		}
		return b
	case reflect.Map:
		if v.IsNil() {
			return append(b, 0)
		}
		b = binary.AppendUvarint(b, uint64(v.Len())+1)
		keys := v.MapKeys()
		slices.SortFunc(keys, func(x, y reflect.Value) int {
			if x.String() < y.String() {
				return -1
			}
			return 1
		})
		for _, k := range keys {
			b = appendValue(b, k)
			b = appendValue(b, v.MapIndex(k))
		}
		return b
	}
	panic("runner.appendValue: cannot send a " + v.Type().String())
}

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

package engine

import (
	"encoding/binary"
	"math"
	"reflect"
	"slices"
)

// AppendBinaryValue appends v (a Scenario, Results or any value made of the
// kinds they are made of: booleans, integers, floats, strings, structs,
// arrays, slices and string-keyed maps) in a compact binary form: exported
// fields in declaration order, integers as varints, floats as their IEEE
// bits, a slice or map as its length plus one (0 for nil) then its elements,
// a map's in key order. Both ends of the playground's worker wire read it
// (playground/runner), and Scenario.Key digests it: one walker in the
// engine worker's download instead of two. Any other kind is a programming
// error.
func AppendBinaryValue(b []byte, v reflect.Value) []byte { return appendBinary(b, v, false) }

// appendBinary is AppendBinaryValue; keyed leaves out the struct fields
// tagged key:"appended", which Scenario.Key digests after the rest.
func appendBinary(b []byte, v reflect.Value, keyed bool) []byte {
	switch v.Kind() {
	case reflect.Bool:
		if v.Bool() {
			return append(b, 1)
		}
		return append(b, 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return binary.AppendVarint(b, v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return binary.AppendUvarint(b, v.Uint())
	case reflect.Float32, reflect.Float64:
		return binary.LittleEndian.AppendUint64(b, math.Float64bits(v.Float()))
	case reflect.String:
		b = binary.AppendUvarint(b, uint64(v.Len()))
		return append(b, v.String()...)
	case reflect.Struct:
		for i := range v.NumField() {
			if f := v.Type().Field(i); f.IsExported() && !(keyed && f.Tag.Get("key") == "appended") {
				b = appendBinary(b, v.Field(i), keyed)
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
			b = appendBinary(b, v.Index(i), keyed)
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
			b = appendBinary(b, k, keyed)
			b = appendBinary(b, v.MapIndex(k), keyed)
		}
		return b
	}
	panic("engine.AppendBinaryValue: a value of type " + v.Type().String())
}

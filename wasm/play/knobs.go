package play

import (
	"reflect"
	"strconv"
	"strings"

	"schedplay/engine"
)

// knobValues reads every scalar field of sc by its knob path ("machine.vcpus" ->
// "32"): integers in decimal (a 64-bit seed keeps every digit), floats in the
// shortest form that round-trips, booleans as true/false, strings as they are.
// Lists (arms, published) are not knobs and are skipped. It walks the struct by
// its JSON tags, the same names engine.KnobPaths lists, without encoding JSON:
// the page does this on every load and knob change.
func knobValues(sc engine.Scenario) map[string]string {
	out := make(map[string]string, 64)
	var walk func(v reflect.Value, prefix string)
	walk = func(v reflect.Value, prefix string) {
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if tag == "" || tag == "-" {
				continue
			}
			fv := v.Field(i)
			switch fv.Kind() {
			case reflect.Struct:
				walk(fv, prefix+tag+".")
			case reflect.Slice, reflect.Map:
			default:
				out[prefix+tag] = formatScalar(fv)
			}
		}
	}
	walk(reflect.ValueOf(sc), "")
	return out
}

func formatScalar(v reflect.Value) string {
	switch v.Kind() {
	case reflect.Bool:
		return strconv.FormatBool(v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(v.Uint(), 10)
	case reflect.Float32, reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	case reflect.String:
		return v.String()
	}
	return ""
}

package engine

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// FieldError is a problem with one scenario field, named by its dotted JSON path
// (the same path the CLI's --set and the playground's URL use).
type FieldError struct {
	Path string
	Msg  string
}

func (e *FieldError) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

func fieldErr(path, format string, args ...any) error {
	return &FieldError{Path: path, Msg: fmt.Sprintf(format, args...)}
}

// DecodeScenario reads a scenario strictly, applies knob overrides ("path=value",
// applied in order) and validates the result. Fields the document leaves out take
// their defaults; platform costs default to the chosen platform's.
func DecodeScenario(data []byte, sets ...string) (Scenario, error) {
	if len(data) > MaxScenarioBytes {
		return Scenario{}, fieldErr("", "scenario is %d bytes, above the limit %d", len(data), MaxScenarioBytes)
	}
	if len(sets) > 0 {
		var err error
		if data, err = applyKnobs(data, sets); err != nil {
			return Scenario{}, err
		}
	}
	// Pass 1 learns the platform; pass 2 decodes over that platform's defaults so
	// that costs the document does not give come from the right platform.
	// The version is never defaulted: a document must say which schema it is.
	sc := DefaultScenario()
	sc.Version = 0
	if err := unmarshalStrict(data, &sc); err != nil {
		return Scenario{}, err
	}
	if p := sc.Machine.Platform; p == "native" || p == "kvm" {
		sc = DefaultScenario()
		sc.Version = 0
		sc.Machine.Platform = p
		sc.Machine.Costs = platformCosts(p)
		if err := unmarshalStrict(data, &sc); err != nil {
			return Scenario{}, err
		}
	}
	if err := sc.Validate(); err != nil {
		return Scenario{}, err
	}
	return sc, nil
}

// WithKnobs returns a copy of sc with knob overrides applied and validated.
func (sc Scenario) WithKnobs(sets ...string) (Scenario, error) {
	data, err := sc.Canonical()
	if err != nil {
		return Scenario{}, err
	}
	return DecodeScenario(data, sets...)
}

// Canonical is the scenario's canonical JSON: every field present, members in
// schema order, no insignificant whitespace. Equal scenarios give equal bytes.
func (sc Scenario) Canonical() ([]byte, error) {
	return json.Marshal(sc, json.Deterministic(true))
}

func unmarshalStrict(data []byte, sc *Scenario) error {
	err := json.Unmarshal(data, sc, json.RejectUnknownMembers(true))
	if err == nil {
		return nil
	}
	return jsonFieldError(err)
}

// jsonFieldError rewrites the JSON library's error as a FieldError with a dotted path.
func jsonFieldError(err error) error {
	var serr *json.SemanticError
	if errors.As(err, &serr) {
		path := pointerToPath(string(serr.JSONPointer))
		switch {
		case serr.Err != nil && strings.Contains(serr.Err.Error(), "unknown object member"):
			return fieldErr(path, "unknown field")
		case serr.GoType != nil && serr.JSONKind != 0:
			return fieldErr(path, "cannot use JSON %s as %s", kindName(serr.JSONKind), goTypeName(serr.GoType))
		case serr.Err != nil:
			return fieldErr(path, "%v", serr.Err)
		}
		return fieldErr(path, "invalid value")
	}
	var sxerr *jsontext.SyntacticError
	if errors.As(err, &sxerr) {
		return fieldErr(pointerToPath(string(sxerr.JSONPointer)), "malformed JSON at byte %d: %v", sxerr.ByteOffset, sxerr.Err)
	}
	return fieldErr("", "malformed JSON: %v", err)
}

func pointerToPath(p string) string {
	p = strings.TrimPrefix(p, "/")
	if p == "" {
		return ""
	}
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = strings.NewReplacer("~1", "/", "~0", "~").Replace(s)
	}
	return strings.Join(parts, ".")
}

func kindName(k jsontext.Kind) string {
	switch k {
	case 'n':
		return "null"
	case 'f', 't':
		return "boolean"
	case '"':
		return "string"
	case '0':
		return "number"
	case '{':
		return "object"
	case '[':
		return "array"
	}
	return "value"
}

func goTypeName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "integer"
	case reflect.Uint64, reflect.Uint, reflect.Uint32:
		return "non-negative integer"
	case reflect.Float64, reflect.Float32:
		return "number"
	case reflect.String:
		return "string"
	case reflect.Struct, reflect.Map:
		return "object"
	case reflect.Slice:
		return "array"
	}
	return t.String()
}

// applyKnobs sets dotted-path knobs in the JSON document. Each path must name a
// scalar field of Scenario; the value is parsed by that field's type (booleans
// accept true/false/1/0).
func applyKnobs(data []byte, sets []string) ([]byte, error) {
	var doc map[string]any
	if len(bytes.TrimSpace(data)) == 0 {
		doc = map[string]any{}
	} else if err := json.Unmarshal(data, &doc); err != nil {
		return nil, jsonFieldError(err)
	}
	if doc == nil {
		doc = map[string]any{}
	}
	for _, kv := range sets {
		path, value, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, fieldErr(path, "knob %q needs the form path=value", kv)
		}
		v, err := KnobValue(path, value)
		if err != nil {
			return nil, err
		}
		obj := doc
		parts := strings.Split(path, ".")
		for i, p := range parts[:len(parts)-1] {
			next, ok := obj[p].(map[string]any)
			if !ok {
				if obj[p] != nil {
					return nil, fieldErr(strings.Join(parts[:i+1], "."), "is not an object")
				}
				next = map[string]any{}
				obj[p] = next
			}
			obj = next
		}
		obj[parts[len(parts)-1]] = v
	}
	return json.Marshal(doc, json.Deterministic(true))
}

// KnobValue parses a knob's string value by the type of the field its path names.
// It fails with a FieldError for an unknown path or an unparsable value.
func KnobValue(path, value string) (any, error) {
	t, err := knobType(path)
	if err != nil {
		return nil, err
	}
	switch t.Kind() {
	case reflect.Bool:
		switch strings.ToLower(value) {
		case "true", "1", "on", "yes":
			return true, nil
		case "false", "0", "off", "no":
			return false, nil
		}
		return nil, fieldErr(path, "%q is not a boolean (true/false/1/0)", value)
	case reflect.Int, reflect.Int64:
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil {
			return nil, fieldErr(path, "%q is not an integer", value)
		}
		return n, nil
	case reflect.Uint64:
		n, err := strconv.ParseUint(value, 10, 64)
		if err != nil {
			return nil, fieldErr(path, "%q is not a non-negative integer", value)
		}
		return n, nil
	case reflect.Float64:
		f, err := strconv.ParseFloat(value, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fieldErr(path, "%q is not a finite number", value)
		}
		return f, nil
	case reflect.String:
		return value, nil
	}
	return nil, fieldErr(path, "is not a settable knob")
}

// knobType resolves a dotted path to the Go type of the scalar Scenario field it names.
func knobType(path string) (reflect.Type, error) {
	t := reflect.TypeFor[Scenario]()
	parts := strings.Split(path, ".")
	for i, p := range parts {
		if t.Kind() != reflect.Struct {
			return nil, fieldErr(path, "unknown knob")
		}
		f, ok := fieldByJSONName(t, p)
		if !ok {
			return nil, fieldErr(strings.Join(parts[:i+1], "."), "unknown knob")
		}
		t = f.Type
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Slice, reflect.Map:
		return nil, fieldErr(path, "is not a settable knob (it is an object or list)")
	}
	return t, nil
}

func fieldByJSONName(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if tag == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// KnobPaths lists every settable knob path, in schema order.
func KnobPaths() []string {
	var out []string
	var walk func(t reflect.Type, prefix string)
	walk = func(t reflect.Type, prefix string) {
		for i := range t.NumField() {
			f := t.Field(i)
			tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if tag == "" || tag == "-" {
				continue
			}
			switch f.Type.Kind() {
			case reflect.Struct:
				walk(f.Type, prefix+tag+".")
			case reflect.Slice, reflect.Map:
			default:
				if tag != "version" && tag != "name" && tag != "description" {
					out = append(out, prefix+tag)
				}
			}
		}
	}
	walk(reflect.TypeFor[Scenario](), "")
	return out
}

package engine

import (
	"bytes"
	"errors"
	"fmt"
	"io"
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
		return Scenario{}, fieldErr("", "the scenario is larger than the limit of %d bytes", MaxScenarioBytes)
	}
	if err := checkShape(data, len(sets) > 0); err != nil {
		return Scenario{}, err
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

// checkShape rejects, with the path where it happens, what strict decoding would
// report vaguely or accept silently: malformed JSON, a document that is not an
// object, and null for a field (which would quietly mean zero, not the default).
// An empty document is an error unless knobs are set on it.
func checkShape(data []byte, withKnobs bool) error {
	if len(bytes.TrimSpace(data)) == 0 {
		if withKnobs {
			return nil
		}
		return fieldErr("", `the scenario is empty: want a JSON object such as {"version":1}`)
	}
	dec := jsontext.NewDecoder(bytes.NewReader(data))
	for first := true; ; first = false {
		tok, err := dec.ReadToken()
		if err == io.EOF {
			return nil
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return fieldErr("", "malformed JSON: the document ends before it is complete")
		}
		if err != nil {
			msg := strings.TrimPrefix(err.Error(), "jsontext: ")
			return fieldErr(pointerToPath(string(dec.StackPointer())), "malformed JSON: %s", msg)
		}
		switch {
		case first && tok.Kind() != '{':
			return fieldErr("", "the scenario must be a JSON object, not %s", kindName(tok.Kind()))
		case tok.Kind() == 'n':
			return fieldErr(pointerToPath(string(dec.StackPointer())), "null is not allowed: leave the field out to get its default")
		}
	}
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
		case serr.GoType != nil && serr.JSONKind == '0' && len(serr.JSONValue) > 0:
			return fieldErr(path, "%s %s", quoteBounded(string(serr.JSONValue)), numberProblem(string(serr.JSONValue), serr.GoType))
		case serr.GoType != nil && serr.JSONKind != 0:
			return fieldErr(path, "want %s, not %s", goTypeName(serr.GoType), kindName(serr.JSONKind))
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

// kindName names a JSON kind with its article, as messages use it.
func kindName(k jsontext.Kind) string {
	switch k {
	case 'n':
		return "null"
	case 'f', 't':
		return "a boolean"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case '{':
		return "an object"
	case '[':
		return "an array"
	}
	return "a JSON value"
}

// numberProblem says why a JSON number does not fit a numeric field.
func numberProblem(v string, t reflect.Type) string {
	f, err := strconv.ParseFloat(v, 64)
	switch {
	case err != nil:
		return "is out of range for a number"
	case t.Kind() == reflect.Float64 || t.Kind() == reflect.Float32:
		return "does not fit " + goTypeName(t)
	case f != math.Trunc(f):
		return "is not a whole number; want " + goTypeName(t)
	case f < 0 && (t.Kind() == reflect.Uint64 || t.Kind() == reflect.Uint):
		return "is negative; want " + goTypeName(t)
	}
	return "is out of range for " + goTypeName(t)
}

// quoteBounded is a value from the input as a message shows it (the caller
// quotes it), cut short if long, so an error never echoes an unbounded input.
func quoteBounded(s string) string {
	const max = 40
	if len(s) > max {
		return s[:max] + "..."
	}
	return s
}

func goTypeName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "an integer"
	case reflect.Uint64, reflect.Uint, reflect.Uint32:
		return "a non-negative integer"
	case reflect.Float64, reflect.Float32:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice:
		return "an array"
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

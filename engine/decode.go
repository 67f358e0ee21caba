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
	return DecodeScenarioUpTo(MaxDurationMs, data, sets...)
}

// DecodeScenarioUpTo is DecodeScenario for a front end that runs scenarios
// of up to maxDurationMs (at most MaxCLIDurationMs): the CLI. The limit
// goes with the scenario (Scenario.DurationLimitMs) through WithKnobs and
// into the engine, which checks it again.
func DecodeScenarioUpTo(maxDurationMs int64, data []byte, sets ...string) (Scenario, error) {
	return decodeScenario(maxDurationMs, true, data, sets...)
}

// decodeScenario is DecodeScenarioUpTo; sized says data is a document from
// outside, bounded by MaxScenarioBytes. WithKnobs' is a valid scenario's own
// canonical form, which a trace's model (workload.trace) may make larger.
func decodeScenario(maxDurationMs int64, sized bool, data []byte, sets ...string) (Scenario, error) {
	limit := min(max(maxDurationMs, MaxDurationMs), MaxCLIDurationMs)
	if sized && len(data) > MaxScenarioBytes {
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
	sc.Machine.settle(data)
	if limit > MaxDurationMs {
		sc.maxDurationMs = limit
	}
	if err := sc.Validate(); err != nil {
		return Scenario{}, err
	}
	return sc, nil
}

// WithKnobs returns a copy of sc with knob overrides applied and validated.
//
// A knob that changes machine.platform brings the new platform's default costs
// with it, as a document that leaves its costs out gets them (DecodeScenario):
// every cost still at the old platform's default follows the platform, and one
// the scenario or another knob sets keeps its value. So an arm that sets the
// platform means the same whether it is resolved from a file or from a decoded
// scenario.
func (sc Scenario) WithKnobs(sets ...string) (Scenario, error) {
	if p := platformSetBy(sets); p != "" && p != sc.Machine.Platform {
		sc.Machine.Costs = followPlatform(sc.Machine.Costs, sc.Machine.Platform, p)
	}
	data, err := sc.Canonical()
	if err != nil {
		return Scenario{}, err
	}
	return decodeScenario(sc.DurationLimitMs(), false, data, sets...)
}

// platformSetBy is the platform the last machine.platform knob of sets names,
// if it names a known one ("" otherwise: decoding reports a bad value).
func platformSetBy(sets []string) string {
	p := ""
	for _, kv := range sets {
		if path, v, ok := strings.Cut(kv, "="); ok && path == "machine.platform" {
			p = v
		}
	}
	if p != "native" && p != "kvm" {
		return ""
	}
	return p
}

// followPlatform moves each cost of c that is at platform from's default to
// platform to's default.
func followPlatform(c Costs, from, to string) Costs {
	was, now := platformCosts(from), platformCosts(to)
	cv, wv, nv := reflect.ValueOf(&c).Elem(), reflect.ValueOf(was), reflect.ValueOf(now)
	for i := range cv.NumField() {
		if cv.Field(i).Equal(wv.Field(i)) {
			cv.Field(i).Set(nv.Field(i))
		}
	}
	return c
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
		if err != nil {
			fe := JSONFieldError(err)
			if fe.Path == "" && !errors.Is(err, io.ErrUnexpectedEOF) {
				// The decoder knows where it is even when its error does not say.
				fe.Path = pointerToPath(string(dec.StackPointer()))
			}
			return fe
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
	return JSONFieldError(err)
}

// JSONFieldError rewrites an error of the JSON library (json.Unmarshal with
// RejectUnknownMembers, or jsontext) as a *FieldError naming the member at
// fault by its dotted path ("steps.2.highlight.cpu"), with a message for the
// person who wrote the document: "unknown field (the fields here are ...)",
// "want a whole number, not a string", "1.5 is not a whole number", "the field
// appears twice". Every scenario and lesson decoder reports its JSON errors so.
// Values and paths from the input are cut short, so a message never echoes an
// unbounded input. A nil err gives nil.
func JSONFieldError(err error) *FieldError {
	if err == nil {
		return nil
	}
	var serr *json.SemanticError
	if errors.As(err, &serr) {
		path := pointerToPath(string(serr.JSONPointer))
		switch {
		case serr.Err != nil && strings.Contains(serr.Err.Error(), "unknown object member"):
			return &FieldError{Path: path, Msg: "unknown field" + knownFields(serr.GoType)}
		case serr.GoType != nil && serr.JSONKind == '0' && len(serr.JSONValue) > 0:
			v := string(serr.JSONValue)
			return &FieldError{Path: path, Msg: quoteBounded(v) + " " + numberProblem(v, serr.GoType)}
		case serr.GoType != nil && serr.JSONKind != 0:
			return &FieldError{Path: path, Msg: "want " + goTypeName(serr.GoType) + ", not " + kindName(serr.JSONKind)}
		case serr.Err != nil:
			return &FieldError{Path: path, Msg: serr.Err.Error()}
		}
		return &FieldError{Path: path, Msg: "invalid value"}
	}
	var sxerr *jsontext.SyntacticError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &FieldError{Msg: "malformed JSON: the document ends before it is complete"}
	case errors.As(err, &sxerr):
		path := pointerToPath(string(sxerr.JSONPointer))
		if strings.Contains(sxerr.Err.Error(), "duplicate object member") {
			return &FieldError{Path: path, Msg: "the field appears twice: give it once"}
		}
		return &FieldError{Path: path, Msg: fmt.Sprintf("malformed JSON: %v (at byte %d)", sxerr.Err, sxerr.ByteOffset)}
	}
	return &FieldError{Msg: "malformed JSON: " + strings.TrimPrefix(err.Error(), "jsontext: ")}
}

// maxPathBytes bounds a path taken from the input (an unknown member's name, a
// syntax error deep in nested arrays) as a message shows it.
const maxPathBytes = 120

func pointerToPath(p string) string {
	p = strings.TrimPrefix(p, "/")
	if p == "" {
		return ""
	}
	parts := strings.Split(p, "/")
	for i, s := range parts {
		parts[i] = quoteBounded(strings.NewReplacer("~1", "/", "~0", "~").Replace(s))
	}
	return quoteBoundedTo(strings.Join(parts, "."), maxPathBytes)
}

// knownFields lists, for a message about an unknown member of a struct of type
// t, the members it has: " (the fields here are a, b, c)", or "" when t is not a
// struct.
func knownFields(t reflect.Type) string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return ""
	}
	var names []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case !f.IsExported() || name == "-":
		case name == "":
			names = append(names, f.Name)
		default:
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return " (the fields here are " + strings.Join(names, ", ") + ")"
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

// numberProblem says why a JSON number v does not fit a numeric field of type t.
func numberProblem(v string, t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var unsigned bool
	switch t.Kind() {
	case reflect.Float64, reflect.Float32:
		return "is out of range for a number"
	case reflect.Int, reflect.Int64, reflect.Int32, reflect.Int16, reflect.Int8:
	case reflect.Uint, reflect.Uint64, reflect.Uint32, reflect.Uint16, reflect.Uint8:
		unsigned = true
	default:
		return "is not " + goTypeName(t)
	}
	bits := t.Bits()
	lo, hi := strconv.FormatInt(math.MinInt64>>(64-bits), 10), strconv.FormatInt(math.MaxInt64>>(64-bits), 10)
	limit := math.Ldexp(1, bits-1) // the magnitude just out of range
	if unsigned {
		lo, hi = "0", strconv.FormatUint(math.MaxUint64>>(64-bits), 10)
		limit = math.Ldexp(1, bits)
	}
	f, err := strconv.ParseFloat(v, 64)
	switch {
	case err == nil && f != math.Trunc(f):
		return "is not a whole number"
	case unsigned && f < 0:
		return "is negative: want a whole number from 0 to " + hi
	case err != nil || f >= limit || f < -limit:
		return "is out of range: want a whole number from " + lo + " to " + hi
	}
	// A whole number in range that the field still refuses is written with a
	// fraction, an exponent or a sign (1.0, 1e3, -0).
	if f == 0 {
		f = 0 // not -0
	}
	return "is not in plain digits: write " + strconv.FormatFloat(f, 'f', -1, 64)
}

// quoteBounded is a value from the input as a message shows it (the caller
// quotes it), cut short if long, so an error never echoes an unbounded input.
func quoteBounded(s string) string { return quoteBoundedTo(s, 40) }

func quoteBoundedTo(s string, max int) string {
	if len(s) > max {
		return s[:max] + "..."
	}
	return s
}

// goTypeName names what a field of type t takes, with its article, in words for
// people (a whole number rather than an int64).
func goTypeName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Pointer:
		return goTypeName(t.Elem())
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int64, reflect.Int32, reflect.Int16, reflect.Int8:
		return "a whole number"
	case reflect.Uint, reflect.Uint64, reflect.Uint32, reflect.Uint16, reflect.Uint8:
		return "a whole number, 0 or more"
	case reflect.Float64, reflect.Float32:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
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
		return nil, JSONFieldError(err)
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
		if path == "machine.topology" {
			// The CPU count follows the shape, as a document that gives a
			// topology and no vcpus gets it (Machine.settle).
			if t, err := ParseTopology(value); err == nil {
				obj["vcpus"] = t.CPUs()
			}
		}
	}
	return json.Marshal(doc, json.Deterministic(true))
}

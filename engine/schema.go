package engine

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The knob schema: every settable scenario field with its kind, unit, range,
// choices, a one-sentence description, and which scenarios it applies to. Every
// front end reads it: the CLI's knobs and --set, the playground's URL state and
// controls, share decoding, and the knob reference in docs/knobs.md. Validate
// checks each field against it, then the rules that tie fields together.

// KnobKind is how a knob's value is written and parsed.
type KnobKind string

const (
	KindBool   KnobKind = "bool"   // true/false (1/0, on/off, yes/no accepted)
	KindInt    KnobKind = "int"    // a whole number
	KindFloat  KnobKind = "float"  // a finite number
	KindChoice KnobKind = "choice" // one of Choices
)

// Knob describes one settable scenario field.
type Knob struct {
	// Path is the dotted JSON path ("machine.vcpus"), the name used everywhere.
	Path string   `json:"path"`
	Kind KnobKind `json:"kind"`
	// Label is a short name for a control ("vCPUs").
	Label string `json:"label"`
	// Unit is the value's unit ("ns", "µs", "ms", "/s", "iterations"), or "".
	Unit string `json:"unit,omitzero"`
	// Min and Max bound an int or float knob. Rules that tie a field to another
	// (warm-up below the duration, a CPU index below the vCPU count) are checked
	// by Validate as well.
	Min float64 `json:"min"`
	Max float64 `json:"max"`
	// Log says the range is best stepped by factors (costs, rates) rather than
	// evenly (counts).
	Log bool `json:"log,omitzero"`
	// CPUIndex says the value names a vCPU (where a thread starts): it must stay
	// below machine.vcpus, so a front end that lowers the vCPU count moves it.
	CPUIndex bool `json:"cpu_index,omitzero"`
	// Choices are the values of a choice knob.
	Choices []string `json:"choices,omitzero"`
	// Doc says what the knob does, in one sentence.
	Doc string `json:"doc"`
	// AppliesTo says, in words, when the knob matters ("kvm", "osv policy",
	// "request_server workload"); "" means always. Applies decides it.
	AppliesTo string `json:"applies_to,omitzero"`

	applies func(sc *Scenario) bool
	// accepts are values a choice knob takes besides Choices, not offered
	// (sched.policy=scx needs a policy's source, which a page control cannot
	// give).
	accepts []string
	// check, for a choice knob that takes more values than it could list,
	// accepts the others (machine.topology: any shape in ktstr's notation)
	// or says why not.
	check func(value string) error
	// durationBound: the knob's Max is MaxDurationMs (or just under it),
	// and grows with a scenario's longer limit (Scenario.DurationLimitMs).
	durationBound bool
	get           func(sc *Scenario) reflect.Value
}

// Applies reports whether the knob changes anything in sc: the page shows only the
// controls that do.
func (k Knob) Applies(sc Scenario) bool { return k.applies == nil || k.applies(&sc) }

// Values are every value a choice knob takes: its Choices, which front ends
// offer, then the values it accepts besides them (sched.policy=scx, which
// needs a policy's source; workload.kind=rtapp, which needs a description).
// A listing of what --set takes shows them all.
func (k Knob) Values() []string { return append(slices.Clone(k.Choices), k.accepts...) }

// Applicability conditions, named as the AppliesTo text says them.
func onKVM(sc *Scenario) bool         { return sc.Machine.Platform == "kvm" }
func onOSv(sc *Scenario) bool         { return sc.Sched.Policy == "osv" }
func onScx(sc *Scenario) bool         { return sc.Sched.Policy == "scx_simple" || sc.Sched.Policy == "scx" }
func onScxPolicy(sc *Scenario) bool   { return sc.Sched.Policy == "scx" }
func onLinux(sc *Scenario) bool       { return sc.Sched.Policy == "linux" }
func notOSv(sc *Scenario) bool        { return sc.Sched.Policy != "osv" }
func withClients(sc *Scenario) bool   { return isKind(sc, WorkloadRequestServer, WorkloadCommit) }
func withRequests(sc *Scenario) bool  { return isKind(sc, WorkloadRequestServer) }
func withHackbench(sc *Scenario) bool { return isKind(sc, WorkloadHackbench) }
func withSyncPairs(sc *Scenario) bool { return isKind(sc, WorkloadSyncPairs) }
func withSchbench(sc *Scenario) bool  { return isKind(sc, WorkloadSchbench) }
func withCommit(sc *Scenario) bool {
	return isKind(sc, WorkloadCommit) || isKind(sc, WorkloadRequestServer) && sc.Workload.CommitDeviceUs > 0
}
func withServiceCV(sc *Scenario) bool {
	return withConcurrency(sc) && (sc.Workload.Service.Dist == "uniform" || sc.Workload.Service.Dist == "lognormal")
}
func withSpin(sc *Scenario) bool { return sc.Sched.IdleSpin.Cap > 0 }
func withSMT(sc *Scenario) bool {
	t, err := ParseTopology(sc.Machine.Topology)
	return err == nil && sc.Machine.Topology != "" && t.ThreadsPerCore > 1
}
func withAdaptive(sc *Scenario) bool { return sc.Sched.IdleSpin.Adaptive && sc.Sched.IdleSpin.Cap > 0 }
func withAsymmetricSpin(sc *Scenario) bool {
	return withAdaptive(sc) && sc.Sched.IdleSpin.Rule == SpinAsymmetric
}
func withHostPoll(sc *Scenario) bool { return onKVM(sc) && sc.Machine.HostHaltPollNs > 0 }
func withBalancer(sc *Scenario) bool { return onOSv(sc) && sc.Sched.BalanceIntervalMs > 0 }
func withHousekeeping(sc *Scenario) bool {
	return sc.Workload.WakeSourcesPerS > 0
}
func isKind(sc *Scenario, kinds ...string) bool { return slices.Contains(kinds, sc.Workload.Kind) }

// Knobs returns the schema, in the scenario's field order. The slice is new on
// every call: callers may keep or change it.
func Knobs() []Knob {
	ks := knobTable()
	for i := range ks {
		ks[i].get = fieldGetter(ks[i].Path)
	}
	return ks
}

// LookupKnob returns the schema entry of a path. It resolves only that entry's
// field, so a lookup costs a table scan, not a reflection walk per knob.
func LookupKnob(path string) (Knob, bool) {
	for _, k := range knobTable() {
		if k.Path == path {
			k.get = fieldGetter(k.Path)
			return k, true
		}
	}
	return Knob{}, false
}

// KnobPaths lists every settable knob path, in schema order.
func KnobPaths() []string {
	ks := knobTable()
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = k.Path
	}
	return out
}

// Get returns the value of knob path in sc, written as --set and the URL write it.
func (sc Scenario) Get(path string) (string, error) {
	k, ok := LookupKnob(path)
	if !ok {
		return "", knobPathError(path)
	}
	return knobText(k.get(&sc)), nil
}

// CanonicalKnobValue writes a knob value the way Get writes the knob: "on" and
// "1" of a boolean read "true", a float "1e3" reads "1000". Two values the
// engine reads alike write alike, so a front end can compare them as text.
func CanonicalKnobValue(path, value string) (string, error) {
	x, err := KnobValue(path, value)
	if err != nil {
		return "", err
	}
	return knobText(reflect.ValueOf(x)), nil
}

// knobText writes a knob's value as --set and the URL write it.
func knobText(v reflect.Value) string {
	switch v.Kind() {
	case reflect.Bool:
		return strconv.FormatBool(v.Bool())
	case reflect.Int, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10)
	case reflect.Uint64:
		return strconv.FormatUint(v.Uint(), 10)
	case reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64)
	}
	return v.String()
}

// KnobValue parses a knob's string value by the kind of the field its path names,
// and checks a choice against its choices. It fails with a FieldError naming the
// path for an unknown path or an unparsable value; ranges are Validate's.
func KnobValue(path, value string) (any, error) {
	k, ok := LookupKnob(path)
	if !ok {
		return nil, knobPathError(path)
	}
	if !utf8.ValidString(value) {
		return nil, fieldErr(path, "the value is not valid UTF-8")
	}
	switch k.Kind {
	case KindBool:
		switch strings.ToLower(value) {
		case "true", "1", "on", "yes":
			return true, nil
		case "false", "0", "off", "no":
			return false, nil
		}
		return nil, fieldErr(path, "%q is not true or false (1/0, on/off and yes/no work too)", quoteBounded(value))
	case KindInt:
		if path == "seed" {
			n, err := strconv.ParseUint(value, 10, 64)
			if err != nil {
				return nil, fieldErr(path, "%q is not a whole number of 0 or more", quoteBounded(value))
			}
			return n, nil
		}
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil {
			return nil, fieldErr(path, "%q is not a whole number", quoteBounded(value))
		}
		return n, nil
	case KindFloat:
		f, err := strconv.ParseFloat(value, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fieldErr(path, "%q is not a finite number", quoteBounded(value))
		}
		return f, nil
	}
	switch {
	case slices.Contains(k.Choices, value) || slices.Contains(k.accepts, value):
	case k.check != nil:
		if err := k.check(value); err != nil {
			return nil, fieldErr(path, "%v", err)
		}
	default:
		return nil, fieldErr(path, "%q is not one of %v", quoteBounded(value), k.Choices)
	}
	return value, nil
}

// knobPathError explains why path names no knob.
func knobPathError(path string) error {
	switch {
	case path == "":
		return fieldErr("", "empty knob path: want path=value, e.g. machine.vcpus=8")
	case !utf8.ValidString(path):
		return fieldErr("", "the knob path is not valid UTF-8")
	case strings.HasPrefix(path, ".") || strings.HasSuffix(path, ".") || strings.Contains(path, ".."):
		return fieldErr("", "%q is not a knob path: paths are names joined by single dots, e.g. machine.vcpus", path)
	}
	// Name the longest prefix that is a known object, so the message says where the
	// path went wrong.
	parts := strings.Split(path, ".")
	t := reflect.TypeFor[Scenario]()
	for i, p := range parts {
		if t.Kind() != reflect.Struct {
			return fieldErr(strings.Join(parts[:i], "."), "is a value, not an object: %q names no knob", path)
		}
		f, ok := fieldByJSONName(t, p)
		if !ok {
			return fieldErr(strings.Join(parts[:i+1], "."), "unknown knob (see schedplay knobs)")
		}
		t = f.Type
	}
	return fieldErr(path, "is not a settable knob (it is an object or a list)")
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

// fieldGetter returns a function reaching the field a path names (the schema
// table is checked against the struct by a test, so a path always resolves).
func fieldGetter(path string) func(sc *Scenario) reflect.Value {
	var index []int
	t := reflect.TypeFor[Scenario]()
	for _, p := range strings.Split(path, ".") {
		f, ok := fieldByJSONName(t, p)
		if !ok {
			panic(fmt.Sprintf("engine.fieldGetter: schema path %q names no field", path))
		}
		index = append(index, f.Index...)
		t = f.Type
	}
	return func(sc *Scenario) reflect.Value { return reflect.ValueOf(sc).Elem().FieldByIndex(index) }
}

// checkRanges validates every knob of sc against its schema range or choices.
func (v *validator) checkRanges(sc *Scenario) {
	for _, k := range Knobs() {
		val := k.get(sc)
		switch k.Kind {
		case KindInt:
			if val.Kind() == reflect.Uint64 {
				continue // the seed: any 64-bit value
			}
			hi := int64(k.Max)
			if k.durationBound {
				hi += sc.DurationLimitMs() - MaxDurationMs
			}
			v.intRange(k.Path, val.Int(), int64(k.Min), hi)
		case KindFloat:
			v.floatRange(k.Path, val.Float(), k.Min, k.Max)
		case KindChoice:
			switch s := val.String(); {
			case slices.Contains(k.accepts, s):
			case k.check != nil:
				if err := k.check(s); err != nil {
					v.fail(k.Path, "%v", err)
				}
			default:
				v.oneOf(k.Path, s, k.Choices...)
			}
		}
	}
}

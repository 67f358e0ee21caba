package engine

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
)

func TestDecodeScenarioErrorsNameTheField(t *testing.T) {
	tests := []struct {
		desc, in string
		sets     []string
		wantPath string
		wantMsg  string
	}{
		{"zero vcpus", `{"version":1,"machine":{"vcpus":0}}`, nil, "machine.vcpus", "0 is below the minimum 1"},
		{"too many vcpus", `{"version":1,"machine":{"vcpus":129}}`, nil, "machine.vcpus", "above the maximum 128"},
		{"unknown member", `{"version":1,"machine":{"vcpu":4}}`, nil, "machine.vcpu", "unknown field"},
		{"wrong type", `{"version":1,"workload":{"clients":"many"}}`, nil, "workload.clients", "want a whole number, not a string"},
		{"fraction for integer", `{"version":1,"workload":{"clients":1.5}}`, nil, "workload.clients", "1.5 is not a whole number"},
		{"missing version", `{}`, nil, "version", "not supported"},
		{"future version", `{"version":2}`, nil, "version", "not supported"},
		{"bad platform", `{"version":1,"machine":{"platform":"xen"}}`, nil, "machine.platform", "not one of"},
		{"too many clients", `{"version":1}`, []string{"workload.clients=5000"}, "workload.clients", "above the maximum 4096"},
		{"horizon bounded", `{"version":1}`, []string{"duration_ms=999999999"}, "duration_ms", "above the maximum"},
		{"waker off the machine", `{"version":1,"machine":{"vcpus":4},"workload":{"waker_cpu":4}}`, nil, "workload.waker_cpu", "above the maximum 3"},
		{"floor above cap", `{"version":1,"sched":{"idle_spin":{"cap":100,"floor":200}}}`, nil, "sched.idle_spin.floor", "above the maximum 100"},
		{"unknown knob", `{"version":1}`, []string{"machine.vcpu=8"}, "machine.vcpu", "unknown knob"},
		{"knob not boolean", `{"version":1}`, []string{"sched.wake_pull=maybe"}, "sched.wake_pull", "is not true or false"},
		{"knob without value", `{"version":1}`, []string{"sched.wake_pull"}, "sched.wake_pull", "path=value"},
		{"knob on an object", `{"version":1}`, []string{"machine=3"}, "machine", "not a settable knob"},
		{"malformed JSON", `{"version":1,`, nil, "", "malformed JSON: the document ends before it is complete"},
		{"hex number", `{"version":1,"seed": 0x10}`, nil, "seed", "malformed JSON: invalid character 'x'"},
		{"number out of range", `{"version":1,"workload":{"service":{"mean_us":1e309}}}`, nil, "workload.service.mean_us", "1e309 is out of range for a number"},
		{"negative seed", `{"version":1,"seed":-1}`, nil, "seed", "-1 is negative: want a whole number from 0 to 18446744073709551615"},
		{"null object", `{"version":1,"machine":null}`, nil, "machine", "null is not allowed"},
		{"null value", `{"version":1,"workload":{"clients":null}}`, nil, "workload.clients", "null is not allowed"},
		{"null document", `null`, nil, "", "must be a JSON object, not null"},
		{"empty document", ` `, nil, "", "the scenario is empty"},
		{"empty knob path", `{"version":1}`, []string{"=5"}, "", "empty knob path"},
		{"knob path with a leading dot", `{"version":1}`, []string{".machine.vcpus=1"}, "", `".machine.vcpus" is not a knob path`},
		{"knob value not UTF-8", `{"version":1}`, []string{"machine.platform=\xff"}, "machine.platform", "not valid UTF-8"},
		{"knob below a value", `{"version":1}`, []string{"machine.vcpus.x=1"}, "machine.vcpus", "is a value, not an object"},
		{"cost below its floor", `{"version":1}`, []string{"workload.hackbench.write_ns=1"}, "workload.hackbench.write_ns", "1 is below the minimum 50"},
		{"top-level array", `[]`, nil, "", "must be a JSON object, not an array"},
		{"NaN-free numbers", `{"version":1,"machine":{"host_contention_per_s":-1}}`, nil, "machine.host_contention_per_s", "below the minimum 0"},
		{"bad arm knob", `{"version":1,"arms":[{"name":"a","set":{"nope":"1"}}]}`, nil, "arms.0.set.nope", "unknown knob"},
		{"oversized", `{"version":1,"description":"` + strings.Repeat("x", MaxScenarioBytes) + `"}`, nil, "", fmt.Sprintf("larger than the limit of %d bytes", MaxScenarioBytes)},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			_, err := DecodeScenario([]byte(tc.in), tc.sets...)
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v, want a *FieldError", err)
			}
			if fe.Path != tc.wantPath || !strings.Contains(fe.Msg, tc.wantMsg) {
				t.Errorf("err = %q (path %q), want path %q and message containing %q", err, fe.Path, tc.wantPath, tc.wantMsg)
			}
		})
	}
}

func TestDecodeScenarioDefaultsAndKnobs(t *testing.T) {
	sc, err := DecodeScenario([]byte(`{"version":1,"machine":{"platform":"native"}}`),
		"machine.vcpus=8", "sched.wake_pull=1", "sched.idle_spin.adaptive=true", "workload.clients=3", "seed=42")
	if err != nil {
		t.Fatal(err)
	}
	if sc.Machine.VCPUs != 8 || !sc.Sched.WakePull || !sc.Sched.IdleSpin.Adaptive || sc.Workload.Clients != 3 || sc.Seed != 42 {
		t.Errorf("knobs not applied: %+v", sc)
	}
	if sc.Machine.Costs != platformCosts("native") {
		t.Errorf("native costs = %+v, want the native defaults", sc.Machine.Costs)
	}
	kvm, err := sc.WithKnobs("machine.platform=kvm")
	if err != nil {
		t.Fatal(err)
	}
	// Canonical output spells every cost, so a platform switch keeps the costs the
	// document now states; a fresh document takes the new platform's defaults.
	if kvm.Machine.Platform != "kvm" {
		t.Errorf("platform = %q", kvm.Machine.Platform)
	}
	fresh, err := DecodeScenario([]byte(`{"version":1}`), "machine.platform=kvm")
	if err != nil {
		t.Fatal(err)
	}
	if fresh.Machine.Costs != platformCosts("kvm") {
		t.Errorf("kvm costs = %+v", fresh.Machine.Costs)
	}
}

func TestCanonicalRoundTrip(t *testing.T) {
	for _, name := range exampleNames(t) {
		t.Run(name, func(t *testing.T) {
			sc := loadExample(t, name)
			a, err := sc.Canonical()
			if err != nil {
				t.Fatal(err)
			}
			back, err := DecodeScenario(a)
			if err != nil {
				t.Fatalf("canonical form does not decode: %v", err)
			}
			b, _ := back.Canonical()
			if string(a) != string(b) {
				t.Errorf("canonical form is not a fixed point:\n%s\n%s", a, b)
			}
		})
	}
}

// TestKnobTableMatchesScenario: the schema lists every scalar field of Scenario,
// in field order, with the kind its Go type has, and a range the defaults of both
// platforms keep.
func TestKnobTableMatchesScenario(t *testing.T) {
	var fields []string
	kinds := map[string]reflect.Kind{}
	var walk func(t reflect.Type, prefix string)
	walk = func(rt reflect.Type, prefix string) {
		for i := range rt.NumField() {
			f := rt.Field(i)
			tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			switch {
			case !f.IsExported():
				// No part of the document (a front end's duration limit).
			case prefix+tag == "sched.scx.source":
				// A sched_ext policy is a program, given whole (--policy, or
				// the scenario's sched.scx.source), not a knob; its
				// watchdog's timeout is one.
			case prefix+tag == "workload.rtapp":
				// So is an rt-app description (workload.kind=rtapp).
			case prefix+tag == "workload.trace":
				// And a trace's replay model (workload.kind=trace).
			case f.Type.Kind() == reflect.Struct:
				walk(f.Type, prefix+tag+".")
			case f.Type.Kind() == reflect.Slice || f.Type.Kind() == reflect.Map:
			case tag == "version" || tag == "name" || tag == "description":
			default:
				fields = append(fields, prefix+tag)
				kinds[prefix+tag] = f.Type.Kind()
			}
		}
	}
	walk(reflect.TypeFor[Scenario](), "")
	if got := KnobPaths(); !slices.Equal(got, fields) {
		t.Fatalf("schema paths differ from the Scenario's fields:\nschema %v\nfields %v", got, fields)
	}
	want := map[KnobKind][]reflect.Kind{
		KindBool:   {reflect.Bool},
		KindInt:    {reflect.Int, reflect.Int64, reflect.Uint64},
		KindFloat:  {reflect.Float64},
		KindChoice: {reflect.String},
	}
	for _, k := range Knobs() {
		if !slices.Contains(want[k.Kind], kinds[k.Path]) {
			t.Errorf("%s: schema kind %s, Go kind %s", k.Path, k.Kind, kinds[k.Path])
		}
		if k.Doc == "" || k.Label == "" {
			t.Errorf("%s: no doc or label", k.Path)
		}
		if (k.Kind == KindInt || k.Kind == KindFloat) && !(k.Min <= k.Max) {
			t.Errorf("%s: range [%v, %v]", k.Path, k.Min, k.Max)
		}
		if (k.Kind == KindChoice) != (len(k.Choices) > 0) {
			t.Errorf("%s: choices %v for kind %s", k.Path, k.Choices, k.Kind)
		}
		if (k.applies == nil) != (k.AppliesTo == "") {
			t.Errorf("%s: applies and AppliesTo disagree", k.Path)
		}
	}
	for _, platform := range []string{"native", "kvm"} {
		if _, err := DecodeScenario([]byte(`{"version":1,"machine":{"platform":"` + platform + `"}}`)); err != nil {
			t.Errorf("the %s defaults do not validate: %v", platform, err)
		}
	}
}

// TestGetSetRoundTrip: every knob's value read with Get sets back unchanged.
func TestGetSetRoundTrip(t *testing.T) {
	sc := loadExample(t, "tpcb-32vcpu")
	var sets []string
	for _, p := range KnobPaths() {
		v, err := sc.Get(p)
		if err != nil {
			t.Fatalf("Get(%s): %v", p, err)
		}
		sets = append(sets, p+"="+v)
	}
	again, err := sc.WithKnobs(sets...)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := sc.Canonical()
	b, _ := again.Canonical()
	if string(a) != string(b) {
		t.Errorf("setting every knob to its own value changed the scenario:\n%s\n%s", a, b)
	}
}

// FuzzDecodeScenario: any input either decodes to a scenario that validates and
// round-trips, or fails with a FieldError; it never panics. A decoded scenario's
// arms resolve to scenarios that validate, or fail with a FieldError.
func FuzzDecodeScenario(f *testing.F) {
	for _, name := range []string{"tpcb-32vcpu", "pgbench-ro", "durable-write", "idle-guest"} {
		data, err := examples().ReadFile(name + ".json")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, "workload.clients=8")
	}
	f.Add([]byte(`{"version":1}`), "machine.vcpus=0")
	f.Add([]byte(`{"version":1,"machine":{"vcpus":1e400}}`), "")
	f.Add([]byte(`{"version":1,"arms":[{"name":"x","set":{"a.b":"c"}}]}`), "sched.wake_pull=yes")
	f.Add([]byte(`{"version":1,"machine":{"topology":"2n2l1c2t","capacity":[1024,1024,512,512],"numa_distance":[[10,20],[20,10]]}}`), "machine.topology=1n2l4c2t")
	f.Add([]byte(`{"version":1,"workload":{"waker_cpu":3},"arms":[{"name":"x","set":{"machine.vcpus":"2"}},{"name":"y","set":{}}]}`), "seed=2")
	f.Fuzz(func(t *testing.T, data []byte, knob string) {
		var sets []string
		if knob != "" {
			sets = []string{knob}
		}
		sc, err := DecodeScenario(data, sets...)
		if err != nil {
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v is not a FieldError", err)
			}
			return
		}
		if err := sc.Validate(); err != nil {
			t.Fatalf("decoded scenario does not validate: %v", err)
		}
		c, err := sc.Canonical()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := DecodeScenario(c); err != nil {
			t.Fatalf("canonical form rejected: %v\n%s", err, c)
		}
		arms, err := sc.ArmScenarios()
		if err != nil {
			if _, ok := err.(*FieldError); !ok {
				t.Fatalf("arm error %v is not a FieldError", err)
			}
			return
		}
		for _, a := range arms {
			if err := a.Scenario.Validate(); err != nil {
				t.Fatalf("arm %q does not validate: %v", a.Name, err)
			}
		}
	})
}

// TestJSONFieldError: the JSON library's errors become FieldErrors with the
// dotted path and a message for people, whatever the document decodes into
// (the lesson decoder shares this).
func TestJSONFieldError(t *testing.T) {
	type inner struct {
		CPU   *int   `json:"cpu,omitzero"`
		Small int8   `json:"small"`
		Quiet string `json:"-"`
	}
	type doc struct {
		N     int               `json:"n"`
		U     uint64            `json:"u"`
		F     float64           `json:"f"`
		S     string            `json:"s"`
		B     bool              `json:"b"`
		M     map[string]string `json:"m"`
		Steps []inner           `json:"steps"`
		Plain int
	}
	tests := []struct {
		desc, in      string
		wantPath      string
		wantMsg       string // the whole message
		wantMsgPrefix bool   // wantMsg is only its beginning
	}{
		{desc: "unknown field, with the fields there are", in: `{"nn":1}`, wantPath: "nn",
			wantMsg: "unknown field (the fields here are n, u, f, s, b, m, steps, Plain)"},
		{desc: "unknown field deep in a list", in: `{"steps":[{},{"cpux":1}]}`, wantPath: "steps.1.cpux",
			wantMsg: "unknown field (the fields here are cpu, small)"},
		{desc: "a string for a whole number", in: `{"n":"3"}`, wantPath: "n", wantMsg: "want a whole number, not a string"},
		{desc: "a string for a pointer to one", in: `{"steps":[{"cpu":"3"}]}`, wantPath: "steps.0.cpu", wantMsg: "want a whole number, not a string"},
		{desc: "a fraction", in: `{"steps":[{"cpu":1.5}]}`, wantPath: "steps.0.cpu", wantMsg: "1.5 is not a whole number"},
		{desc: "an exponent", in: `{"n":1e3}`, wantPath: "n", wantMsg: "1e3 is not in plain digits: write 1000"},
		{desc: "minus zero", in: `{"u":-0}`, wantPath: "u", wantMsg: "-0 is not in plain digits: write 0"},
		{desc: "negative for a count", in: `{"u":-2}`, wantPath: "u", wantMsg: "-2 is negative: want a whole number from 0 to 18446744073709551615"},
		{desc: "too large for a small type", in: `{"steps":[{"small":200}]}`, wantPath: "steps.0.small",
			wantMsg: "200 is out of range: want a whole number from -128 to 127"},
		{desc: "too large for any", in: `{"n":1e30}`, wantPath: "n", wantMsg: "1e30 is out of range: want a whole number from -9223372036854775808 to 9223372036854775807"},
		{desc: "out of range for a number", in: `{"f":1e400}`, wantPath: "f", wantMsg: "1e400 is out of range for a number"},
		{desc: "a long number is cut short", in: `{"n":0.` + strings.Repeat("5", 100) + `}`, wantPath: "n",
			wantMsg: "0." + strings.Repeat("5", 38) + "... is not a whole number"},
		{desc: "a number for a boolean", in: `{"b":1}`, wantPath: "b", wantMsg: "want true or false, not a number"},
		{desc: "a number for a string in a map", in: `{"m":{"a.b":3}}`, wantPath: "m.a.b", wantMsg: "want a string, not a number"},
		{desc: "an array for an object", in: `{"m":[]}`, wantPath: "m", wantMsg: "want an object, not an array"},
		{desc: "an object for a list", in: `{"steps":{}}`, wantPath: "steps", wantMsg: "want an array, not an object"},
		{desc: "the document is not an object", in: `[1]`, wantPath: "", wantMsg: "want an object, not an array"},
		{desc: "a duplicate field", in: `{"s":"a","s":"b"}`, wantPath: "s", wantMsg: "the field appears twice: give it once"},
		{desc: "malformed", in: `{"s":"a",}`, wantPath: "", wantMsg: "malformed JSON: invalid character", wantMsgPrefix: true},
		{desc: "cut short", in: `{"s":"a"`, wantPath: "", wantMsg: "malformed JSON: the document ends before it is complete"},
		{desc: "escaped pointer tokens", in: `{"a~b/c":1}`, wantPath: "a~b/c", wantMsg: "unknown field", wantMsgPrefix: true},
		{desc: "a long unknown name is cut short", in: `{"` + strings.Repeat("y", 1000) + `":1}`,
			wantPath: strings.Repeat("y", 40) + "...", wantMsg: "unknown field", wantMsgPrefix: true},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			var d doc
			err := json.Unmarshal([]byte(tc.in), &d, json.RejectUnknownMembers(true))
			if err == nil {
				t.Fatal("the document decodes")
			}
			fe := JSONFieldError(err)
			if fe.Path != tc.wantPath {
				t.Errorf("path %q, want %q (%v)", fe.Path, tc.wantPath, fe)
			}
			if got := fe.Msg; got != tc.wantMsg && !(tc.wantMsgPrefix && strings.HasPrefix(got, tc.wantMsg)) {
				t.Errorf("message %q, want %q", got, tc.wantMsg)
			}
		})
	}
	if JSONFieldError(nil) != nil {
		t.Error("no error should give no FieldError")
	}
	long := strings.Repeat(`[`, 200) + `}`
	var v any
	fe := JSONFieldError(json.Unmarshal([]byte(long), &v))
	if len(fe.Path) != maxPathBytes+len("...") || !strings.HasPrefix(fe.Msg, "malformed JSON") {
		t.Errorf("a syntax error 200 levels deep: path of %d bytes, message %q", len(fe.Path), fe.Msg)
	}
}

// A knob value the engine reads one way is written one way, as Get writes it.
func TestCanonicalKnobValue(t *testing.T) {
	for _, tc := range []struct{ path, in, want string }{
		{"sched.wake_pull", "on", "true"},
		{"sched.wake_pull", "0", "false"},
		{"workload.service.mean_us", "1e3", "1000"},
		{"workload.clients", "064", "64"},
		{"seed", "18446744073709551615", "18446744073709551615"},
		{"sched.policy", "linux", "linux"},
	} {
		got, err := CanonicalKnobValue(tc.path, tc.in)
		if err != nil || got != tc.want {
			t.Errorf("%s=%s: %q, %v; want %q", tc.path, tc.in, got, err, tc.want)
		}
	}
	if _, err := CanonicalKnobValue("sched.policy", "bsd"); err == nil {
		t.Error("a choice the knob does not have was written")
	}
}

package main

import (
	"fmt"
	"io/fs"
	"reflect"
	"strconv"
	"strings"

	"schedplay/engine"
)

// cmdList: schedplay list — the presets with their descriptions.
func (a *app) cmdList(args []string) error {
	fs0 := a.newFlagSet("list", "")
	pos, err := parse(fs0, args, a)
	if err != nil {
		return err
	}
	if err := wantArgs(fs0, pos); err != nil {
		return err
	}
	var b strings.Builder
	t := table{}
	for _, name := range a.presetNames() {
		data, err := fs.ReadFile(a.examples, name+".json")
		if err != nil {
			return err
		}
		sc, err := engine.DecodeScenario(data)
		if err != nil {
			// A broken preset is a bug, but listing the others is still useful.
			t.add(name, "(invalid: "+err.Error()+")")
			continue
		}
		var arms []string
		for _, x := range sc.Arms {
			arms = append(arms, x.Name)
		}
		extra := ""
		if len(arms) > 0 {
			extra = fmt.Sprintf(" [arms %s; %d published points]", strings.Join(arms, "/"), len(sc.Published))
		}
		t.add(name, summary(sc.Description)+extra)
	}
	t.write(&b)
	_, err = fmt.Fprint(a.stdout, b.String())
	return err
}

// summary is a description's first sentence (presets describe themselves at
// length; the list needs one line each).
func summary(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	return s
}

// cmdKnobs: schedplay knobs — every knob path with its type and default. Platform
// costs default per platform, so both platforms' defaults are shown where they differ.
func (a *app) cmdKnobs(args []string) error {
	fs0 := a.newFlagSet("knobs", "")
	pos, err := parse(fs0, args, a)
	if err != nil {
		return err
	}
	if err := wantArgs(fs0, pos); err != nil {
		return err
	}
	def, err := engine.DecodeScenario([]byte(`{"version":1}`))
	if err != nil {
		return fmt.Errorf("the default scenario does not validate: %w", err)
	}
	other := "native"
	if def.Machine.Platform == "native" {
		other = "kvm"
	}
	alt, err := engine.DecodeScenario([]byte(`{"version":1}`), "machine.platform="+other)
	if err != nil {
		return fmt.Errorf("the default %s scenario does not validate: %w", other, err)
	}
	t := table{}
	t.add("knob", "type", "default ("+def.Machine.Platform+")", "default ("+other+")")
	for _, p := range engine.KnobPaths() {
		typ, dv := knobField(def, p)
		_, av := knobField(alt, p)
		if p == "machine.platform" || av == dv {
			av = ""
		}
		t.add(p, typ, dv, av)
	}
	var b strings.Builder
	t.write(&b)
	_, err = fmt.Fprint(a.stdout, b.String())
	return err
}

// knobField returns the type name and value of the field a knob path names in sc.
func knobField(sc engine.Scenario, path string) (string, string) {
	v := reflect.ValueOf(sc)
	for _, part := range strings.Split(path, ".") {
		found := false
		for i := range v.NumField() {
			name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
			if name == part {
				v, found = v.Field(i), true
				break
			}
		}
		if !found {
			return "?", "?"
		}
	}
	switch v.Kind() {
	case reflect.Bool:
		return "bool", strconv.FormatBool(v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "int", strconv.FormatInt(v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "uint", strconv.FormatUint(v.Uint(), 10)
	case reflect.Float32, reflect.Float64:
		return "float", strconv.FormatFloat(v.Float(), 'g', -1, 64)
	case reflect.String:
		return "string", v.String()
	}
	return v.Kind().String(), fmt.Sprint(v.Interface())
}

package playground

// Compare specs: what the compare setting (off, the scenario's own arms, or one
// knob at two values) asks the stage to run, and how the page names it.

import (
	"errors"
	"fmt"
	"slices"

	"schedplay/engine"
	"schedplay/playground/urlstate"
)

// comparison is a compare setting resolved against a base scenario.
type comparison struct {
	// arms are the arms compared (none for one run), named for the page; resolve
	// turns them into the scenarios the stage runs.
	arms []engine.Arm
	// label names what is compared ("pull off ↔ pull on"); "" for one run.
	label string
}

// compareMode resolves the default compare mode: the scenario's arms when it has
// two or more, otherwise off.
func compareMode(v urlstate.View, base engine.Scenario) string {
	return urlstate.CompareMode(v.Compare, base)
}

// compareOf lists the arms v's compare setting asks for on base, or says why
// base cannot be compared that way. controls name and format a compared knob.
func compareOf(v urlstate.View, base engine.Scenario, controls []Control) (comparison, error) {
	arms, err := urlstate.ComparedArms(v.Compare, v.CompareA, v.CompareB, base)
	if err != nil {
		return comparison{}, fmt.Errorf("compare: %v; showing one run", err)
	}
	switch mode := compareMode(v, base); mode {
	case urlstate.CompareOff:
		return comparison{}, nil
	case urlstate.CompareArms:
		return comparison{arms: arms, label: arms[0].Name + " ↔ " + arms[1].Name}, nil
	default:
		ctl := findControl(controls, mode)
		if ctl == nil {
			return comparison{arms: arms, label: mode + " " + v.CompareA + " ↔ " + v.CompareB}, nil
		}
		for i, val := range []string{v.CompareA, v.CompareB} {
			arms[i].Name = ctl.Label + " " + shortVal(ctl, mode, val)
		}
		return comparison{arms: arms,
			label: ctl.Label + " " + shortVal(ctl, mode, v.CompareA) + " ↔ " + shortVal(ctl, mode, v.CompareB)}, nil
	}
}

// resolve is the comparison's arms on base as the engine resolves them (one
// arm, base itself, for one run), or why the engine cannot run them.
func (c comparison) resolve(base engine.Scenario) ([]engine.ArmScenario, error) {
	base.Arms = c.arms
	arms, err := base.ArmScenarios()
	if err != nil {
		// The message names the arm and its override; the path (arms.N.set...)
		// would name arms the page's user never wrote.
		msg := err.Error()
		if fe := (*engine.FieldError)(nil); errors.As(err, &fe) {
			msg = fe.Msg
		}
		return nil, fmt.Errorf("compare: %s; showing one run", msg)
	}
	return arms, nil
}

func shortVal(ctl *Control, path, v string) string {
	if ctl != nil {
		return ctl.format(canonicalKnob(path, v))
	}
	return v
}

// canonicalKnob writes a knob value the way Scenario.Get writes it, or as it is
// when the engine cannot read it (the caller reports that).
func canonicalKnob(path, v string) string {
	if c, err := engine.CanonicalKnobValue(path, v); err == nil {
		return c
	}
	return v
}

// compareOptions lists the comparisons offered: off, the scenario's own arms,
// every two-valued control that applies to base (booleans off/on, selects their
// first two values), and cur, the current setting, when it is none of those.
func compareOptions(base engine.Scenario, controls []Control, cur string) []Option {
	out := []Option{{urlstate.CompareOff, "off: one run"}}
	if len(base.Arms) >= 2 {
		out = append(out, Option{urlstate.CompareArms, "preset arms: " + base.Arms[0].Name + " ↔ " + base.Arms[1].Name})
	}
	for _, c := range controls {
		switch {
		case !c.knob.Applies(base) || c.noCompare:
		case c.Kind == "toggle":
			out = append(out, Option{c.Path, c.Label + ": off ↔ on"})
		case c.Kind == "select" && len(c.Options) >= 2:
			v := urlstate.FormatCompare(c.Path, c.Options[0].Value, c.Options[1].Value)
			out = append(out, Option{v, c.Label + ": " + c.Options[0].Label + " ↔ " + c.Options[1].Label})
			for _, p := range c.pairs {
				v := urlstate.FormatCompare(c.Path, p[0], p[1])
				out = append(out, Option{v, c.Label + ": " + c.format(p[0]) + " ↔ " + c.format(p[1])})
			}
		}
	}
	if slices.ContainsFunc(out, func(o Option) bool { return o.Value == cur }) {
		return out
	}
	return append(out, Option{cur, "custom: " + cur})
}

// compareValue is the compare select's value for v: the setting as the fragment
// writes it, or the mode the default resolves to on base.
func compareValue(v urlstate.View, base engine.Scenario) string {
	mode := compareMode(v, base)
	if mode == v.Compare {
		return urlstate.FormatCompare(v.Compare, v.CompareA, v.CompareB)
	}
	return mode
}

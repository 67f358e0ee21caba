package engine

import (
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Resolving a scenario's arms. A compare view, a share preview, a sweep, the
// calibration and a lesson all run "the scenario with each arm's overrides
// applied"; ArmScenarios is the one place that does it, so they cannot disagree
// on the order overrides apply in, on what a bad arm is, or on how it is named.

// ArmScenario is one arm of a scenario, resolved: what a comparison runs for it.
type ArmScenario struct {
	// Name is the arm's name ("" for a scenario without arms).
	Name string
	// Sets are the arm's overrides as "path=value", sorted by path: the order they
	// are applied in, and the form DecodeScenario, WithKnobs and the CLI's --set take.
	Sets []string
	// Scenario is the scenario with the arm's overrides applied, validated. It
	// still lists every arm: arms change no single run.
	Scenario Scenario
}

// ArmScenarios resolves sc's arms: for each arm in order, sc with the arm's
// overrides applied (as WithKnobs applies them, so every field keeps the value sc
// has unless the arm sets it) and validated. A scenario without arms is one arm
// with no name and no overrides: sc itself, validated.
//
// An error is a *FieldError. A problem of sc itself names sc's field; a problem
// of an arm names the override at fault, arms.N.set.KEY, and the arm: a value
// the knob does not take, an unknown knob, or an override that breaks a rule
// tying fields together (machine.vcpus=2 where the waker is pinned to vCPU 3);
// too many arms name "arms".
func (sc Scenario) ArmScenarios() ([]ArmScenario, error) {
	if len(sc.Arms) > MaxArms {
		return nil, fieldErr("arms", "has %d arms, above the limit %d", len(sc.Arms), MaxArms)
	}
	// Each override must be a value its knob takes before anything is applied:
	// a bad one is then named as the arm's, not as a scenario field.
	for i, a := range sc.Arms {
		for _, k := range slices.Sorted(maps.Keys(a.Set)) {
			if _, err := KnobValue(k, a.Set[k]); err != nil {
				return nil, armErr(i, a, k, ": "+fieldMsg(err))
			}
		}
	}
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	if len(sc.Arms) == 0 {
		return []ArmScenario{{Scenario: sc}}, nil
	}
	out := make([]ArmScenario, 0, len(sc.Arms))
	for i, a := range sc.Arms {
		sets := a.sets()
		asc, err := sc.WithKnobs(sets...)
		if err != nil {
			return nil, sc.conflict(i, err)
		}
		out = append(out, ArmScenario{Name: a.Name, Sets: sets, Scenario: asc})
	}
	return out, nil
}

// conflict names the override of arm i that err (WithKnobs' refusal of the arm,
// sc itself being valid) is about: the override err names, or else the one
// without which the arm is valid. An arm none of whose overrides is to blame
// alone is named as a whole, arms.N.set.
func (sc Scenario) conflict(i int, err error) error {
	a := sc.Arms[i]
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Path == "" {
		// Not about a field (the JSON library, a size limit): about the arm as a whole.
		return fieldErr(pathIndex("arms", i, "set"), "arm %s: %v", quoteArm(a.Name), fieldMsg(err))
	}
	if _, ok := a.Set[fe.Path]; ok {
		return armErr(i, a, fe.Path, ": "+fe.Msg)
	}
	keys := slices.Sorted(maps.Keys(a.Set))
	for _, k := range keys {
		rest := maps.Clone(a.Set)
		delete(rest, k)
		if _, err := sc.WithKnobs(Arm{Set: rest}.sets()...); err == nil || len(keys) == 1 {
			return armErr(i, a, k, ", which conflicts with the scenario: "+fe.Error())
		}
	}
	return fieldErr(pathIndex("arms", i, "set"), "arm %s: its overrides together conflict with the scenario: %v", quoteArm(a.Name), fe)
}

// armErr is a problem with override key of arm i, rest what is wrong (from
// its punctuation on). The message names the arm and the override, so that it
// reads whole where the path is not shown (a page's compare picker, a lesson).
func armErr(i int, a Arm, key, rest string) error {
	return &FieldError{Path: pathIndex("arms", i, "set."+key),
		Msg: "arm " + quoteArm(a.Name) + " sets " + plain(key) + "=" + plain(a.Set[key]) + rest}
}

// plain is a knob path or value from the input as a message shows it: as it is
// when it reads so, quoted when it holds spaces, quotes or what does not print,
// and cut short if long.
func plain(s string) string {
	odd := !utf8.ValidString(s) || s == "" || strings.ContainsFunc(s, func(r rune) bool {
		return r == ' ' || r == '"' || !unicode.IsPrint(r)
	})
	if odd {
		return strconv.Quote(quoteBounded(s))
	}
	return quoteBounded(s)
}

// quoteArm is an arm's name as a message quotes it, cut short if long.
func quoteArm(name string) string { return strconv.Quote(quoteBounded(name)) }

// fieldMsg is err's message without its path.
func fieldMsg(err error) string {
	var fe *FieldError
	if errors.As(err, &fe) {
		return fe.Msg
	}
	return err.Error()
}

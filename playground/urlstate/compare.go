package urlstate

import (
	"errors"

	"schedplay/engine"
)

// What a compare setting runs. The page and a lesson's check both build the
// arms here and resolve them with engine.Scenario.ArmScenarios, so a lesson is
// checked by the code that runs it.

// CompareMode is the mode a compare setting resolves to on base: the default
// is base's own arms when it has two or more, otherwise off; any other mode is
// itself.
func CompareMode(mode string, base engine.Scenario) string {
	if mode != CompareDefault {
		return mode
	}
	if len(base.Arms) >= 2 {
		return CompareArms
	}
	return CompareOff
}

// ComparedArms lists the arms a compare setting (as ParseCompare returns it)
// runs on base, for base.ArmScenarios to resolve once they are base's arms:
// none (one run) for off; base's first two arms for arms; the knob at a and at
// b, named path=a and path=b, for a knob path. The one error is arms asked of a
// scenario with fewer than two.
func ComparedArms(mode, a, b string, base engine.Scenario) ([]engine.Arm, error) {
	switch mode = CompareMode(mode, base); mode {
	case CompareOff:
		return nil, nil
	case CompareArms:
		if len(base.Arms) < 2 {
			return nil, errors.New("this scenario has no arms to compare")
		}
		return base.Arms[:2:2], nil
	}
	return []engine.Arm{
		{Name: mode + "=" + a, Set: map[string]string{mode: a}},
		{Name: mode + "=" + b, Set: map[string]string{mode: b}},
	}, nil
}

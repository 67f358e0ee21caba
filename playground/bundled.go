package playground

import (
	"fmt"
	"slices"
	"strings"

	"schedplay/engine"
	"schedplay/playground/lesson"
	"schedplay/playground/urlstate"
)

// What the page's bundle saves states of (saved.go): every preset's arms, as
// the page compares them by default, at the end of the warm-up (the Skip
// warm-up button's moment), and the arms of every lesson step that starts past
// the first second, at the step's start, each resolved exactly as the page
// resolves them (reconcile, compareOf), so that their keys are the ones the
// page's arms have. internal/wasmbuild runs the engine to these moments and
// ships the checkpoints beside the wasm.

// bundledAfterNs is how far in a lesson step must start for the bundle to
// save its state: an earlier one replays in a moment.
const bundledAfterNs = 1_000_000_000

// BundledState is one scenario the bundle saves, and the moments.
type BundledState struct {
	// Labels say what it is saved for ("tpcb-32vcpu, arm pull off",
	// "lesson fan-out step 5, arm B").
	Labels   []string
	Scenario engine.Scenario
	// AtNs are the moments, ascending.
	AtNs []int64
}

// BundledStates lists the scenarios the bundle saves, one entry per scenario
// key, in the order first met (presets by name, then lessons by name).
func BundledStates(presets []Preset, lessons []lesson.Lesson) ([]BundledState, error) {
	var out []BundledState
	index := map[engine.ScenarioKey]int{}
	controls := Controls()
	add := func(label string, arms []engine.ArmScenario, atNs int64) {
		for i, a := range arms {
			k := a.Scenario.Key()
			j, ok := index[k]
			if !ok {
				j = len(out)
				index[k] = j
				out = append(out, BundledState{Scenario: a.Scenario})
			}
			b := &out[j]
			b.Labels = append(b.Labels, fmt.Sprintf("%s, arm %c (%s)", label, 'A'+i, a.Name))
			if !slices.Contains(b.AtNs, atNs) {
				b.AtNs = append(b.AtNs, atNs)
				slices.Sort(b.AtNs)
			}
		}
	}
	for _, p := range presets {
		arms, err := pageArms(presets, p.Name, nil, urlstate.CompareDefault, "", "", controls)
		if err != nil {
			// A preset that does not decode is reported where the page uses it;
			// it has nothing to save.
			continue
		}
		if w := arms[0].Scenario.WarmupMs; w > 0 {
			add(p.Name, arms, w*1e6)
		}
	}
	for _, l := range lessons {
		for i, st := range l.Steps {
			at := st.AtNs
			if st.Until != nil {
				at = st.Until.AfterNs
			}
			if at <= bundledAfterNs {
				continue
			}
			s := l.Setup(i)
			if s.Policy != "" || s.RTApp != "" {
				// The bundle is built without the Starlark binding, which a
				// step's own policy needs, and pageArms resolves presets
				// alone, not a step's rt-app workload: such a step runs
				// from zero.
				continue
			}
			mode, a, b, err := urlstate.ParseCompare(s.Compare)
			if err != nil {
				return nil, fmt.Errorf("lesson %s step %d: %w", l.Name, i+1, err)
			}
			arms, err := pageArms(presets, s.Preset, s.Knobs, mode, a, b, controls)
			if err != nil {
				return nil, fmt.Errorf("lesson %s step %d: %w", l.Name, i+1, err)
			}
			add(fmt.Sprintf("lesson %s step %d", l.Name, i+1), arms, at)
		}
	}
	return out, nil
}

// pageArms resolves the arms the page runs for a preset, knobs and compare
// setting, as Load and rebuild do.
func pageArms(presets []Preset, preset string, knobs []urlstate.Knob, mode, a, b string, controls []Control) ([]engine.ArmScenario, error) {
	s, probs := reconcile(presets, preset, knobs, nil)
	if len(probs) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(probs, "; "))
	}
	comp, err := compareOf(urlstate.View{Compare: mode, CompareA: a, CompareB: b}, s.base, controls)
	if err != nil {
		return nil, err
	}
	return comp.resolve(s.base)
}

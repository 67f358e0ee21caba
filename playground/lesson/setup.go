package lesson

// Steps against scenarios: what each step shows (its setup, carried over from
// the steps before it) and whether that runs: the preset exists, the knobs
// decode on it, the compare setting has two arms to compare, and every arm,
// vCPU and moment the step names is there.

import (
	"errors"
	"maps"

	"schedplay/engine"
	"schedplay/playground/urlstate"
)

// Setup is what the page shows at a step.
type Setup struct {
	Preset string
	// Knobs are the overrides in engine.KnobPaths order.
	Knobs []urlstate.Knob
	// Compare is as compare= writes it ("" for the preset's default).
	Compare string
	// Speed is the speed Play continues at ("" for the page's default).
	Speed string
	// Policy is the source of the sched_ext policy the scenario runs as its
	// own (sched.scx.source; "" for none).
	Policy string
	// RTApp is the rt-app description the scenario runs as its workload
	// (engine.Scenario.UseRTApp; "" for the preset's own).
	RTApp string
}

// Setup returns step i's setup (0-based): the lesson's preset and knobs, then
// each step's up to i. A step that names a preset starts again from that preset
// alone (its knobs and workload); compare, speed and the policy carry over
// until a step sets them again.
func (l Lesson) Setup(i int) Setup {
	s := Setup{Preset: l.Preset, Compare: l.Compare}
	knobs := maps.Clone(l.Set)
	for _, st := range l.Steps[:i+1] {
		if st.Preset != "" {
			s.Preset, knobs, s.RTApp = st.Preset, nil, ""
		}
		if knobs == nil {
			knobs = map[string]string{}
		}
		maps.Copy(knobs, st.Set)
		if st.Compare != "" {
			s.Compare = st.Compare
		}
		if st.Speed != "" {
			s.Speed = st.Speed
		}
		if st.Policy != nil {
			s.Policy = st.Policy.Source
		}
		if st.Workload != nil {
			s.RTApp = st.Workload.Source
		}
	}
	for _, p := range engine.KnobPaths() {
		if v, ok := knobs[p]; ok {
			s.Knobs = append(s.Knobs, urlstate.Knob{Path: p, Value: v})
		}
	}
	return s
}

// Sets are the knobs as engine.DecodeScenario takes them ("path=value").
func (s Setup) Sets() []string {
	out := make([]string, len(s.Knobs))
	for i, k := range s.Knobs {
		out[i] = k.Path + "=" + k.Value
	}
	return out
}

// Arms resolves the setup on its preset's data: the scenario of each arm it
// compares (one when it compares nothing), built and resolved as the page
// builds and resolves the arms it runs (urlstate.ComparedArms, then
// engine.Scenario.ArmScenarios). An error is an *Error naming the field at
// fault, "set" or "compare".
func (s Setup) Arms(presetData []byte) ([]engine.Scenario, error) {
	if s.RTApp != "" {
		var err error
		if presetData, err = s.withRTApp(presetData); err != nil {
			return nil, &Error{Field: "workload", Msg: err.Error()}
		}
	}
	base, err := engine.DecodeScenario(presetData, s.Sets()...)
	if err != nil {
		return nil, &Error{Field: "set", Msg: err.Error()}
	}
	if s.Policy != "" {
		base.Sched.Scx.Source = s.Policy
	}
	mode, a, b, err := urlstate.ParseCompare(s.Compare)
	if err != nil {
		return nil, &Error{Field: "compare", Msg: err.Error()}
	}
	if base.Arms, err = urlstate.ComparedArms(mode, a, b, base); err != nil {
		return nil, &Error{Field: "compare", Msg: err.Error()}
	}
	arms, err := base.ArmScenarios()
	if err != nil {
		// The message names the arm and its override; the path would name
		// arms the lesson does not write.
		msg := err.Error()
		if fe := (*engine.FieldError)(nil); errors.As(err, &fe) {
			msg = fe.Msg
		}
		return nil, &Error{Field: "compare", Msg: msg}
	}
	out := make([]engine.Scenario, len(arms))
	for i, arm := range arms {
		out[i] = arm.Scenario
	}
	return out, nil
}

// withRTApp is the preset's scenario with the setup's rt-app workload, as
// the page sets one (playground's source.withOwn): into the preset's own
// scenario, with the knob choosing the scheduler (what a description may
// ask for depends on it), before the knobs apply.
func (s Setup) withRTApp(presetData []byte) ([]byte, error) {
	sc, err := engine.DecodeScenario(presetData)
	if err != nil {
		return nil, err
	}
	for _, k := range s.Knobs {
		if k.Path == "sched.policy" {
			sc.Sched.Policy = k.Value
		}
	}
	sc.UseRTApp(s.RTApp)
	return sc.Canonical()
}

// Check resolves every step against the presets (presetData returns a preset's
// scenario file) and reports the first step that would not run as written.
func (l Lesson) Check(presetData func(name string) ([]byte, bool)) error {
	for i, st := range l.Steps {
		n := i + 1
		s := l.Setup(i)
		data, ok := presetData(s.Preset)
		if !ok {
			field := "preset"
			if st.Preset == "" && i > 0 {
				field = "preset (from an earlier step)"
			}
			return stepErr(n, field, "there is no preset %s", quote(s.Preset))
		}
		arms, err := s.Arms(data)
		if err != nil {
			e := err.(*Error)
			return stepErr(n, e.Field, "%s", e.Msg)
		}
		if err := st.checkOn(n, arms); err != nil {
			return err
		}
	}
	return nil
}

// checkOn checks what the step names against the arms it runs.
func (st Step) checkOn(n int, arms []engine.Scenario) error {
	end := arms[0].DurationMs * 1_000_000
	armOK := func(i int) bool { return i < len(arms) }
	switch u := st.Until; {
	case st.At != "" && st.AtNs > end:
		return stepErr(n, "at", "%s is after the run's end (%d ms)", st.At, arms[0].DurationMs)
	case u != nil && !armOK(u.ArmIndex):
		return stepErr(n, "until.arm", "there is no arm B: this step runs one arm")
	case u != nil && u.AfterNs >= end:
		return stepErr(n, "until.after", "%s is not before the run's end (%d ms)", u.After, arms[0].DurationMs)
	}
	if h := st.Highlight; h != nil {
		switch {
		case !armOK(h.ArmIndex):
			return stepErr(n, "highlight.arm", "there is no arm B: this step runs one arm")
		case h.CPU != nil && *h.CPU >= arms[h.ArmIndex].Machine.VCPUs:
			return stepErr(n, "highlight.cpu", "the machine has %d vCPUs", arms[h.ArmIndex].Machine.VCPUs)
		}
	}
	for _, p := range st.Placeholders {
		switch {
		case (p.Arm > 0 || p.Source == SourceRatio) && len(arms) < 2:
			return stepErr(n, "caption", "{%s} needs two arms; this step runs one", p.Raw)
		case (p.Source == SourceCPUQueue || p.Source == SourceCPUSpinWindow) && p.CPU >= arms[min(p.Arm, len(arms)-1)].Machine.VCPUs:
			return stepErr(n, "caption", "{%s}: the machine has %d vCPUs", p.Raw, arms[p.Arm].Machine.VCPUs)
		}
	}
	return nil
}

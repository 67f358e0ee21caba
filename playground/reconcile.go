package playground

// Reconciling a URL with the engine: which scenario a fragment (and a shared
// scenario) asks for, which of its knobs the engine accepts, and the minimal
// fragment that reproduces the result. Everything here is a function of its
// arguments alone, so these rules are tested without a Model.

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"schedplay/engine"
	"schedplay/internal/shareapi"
	"schedplay/kerneltrace"
	"schedplay/playground/urlstate"
)

// source is the scenario knob overrides apply to: a preset, or a shared scenario
// posing as a preset without a name.
type source struct {
	preset Preset
	sc     engine.Scenario // preset decoded
	// vals reads sc's knob values: a knob set to its source value stays out of the
	// fragment, which is thus minimal.
	vals   *knobReader
	shared bool
	// plain is the scenario before the page's policy; policy is the page's
	// sched_ext policy set into it as sched.scx.source ("" for none: policy.go).
	plain  []byte
	policy string
	// rtapp is the page's rt-app workload, set as workload.rtapp ("" for
	// none: workload.go).
	rtapp string
	// trace is the model of a recorded trace plain replays (workload.kind
	// trace, replay.go), nil for none: plain, and preset.Data unless an
	// rt-app workload replaced the trace (dataTrace), then hold a placeholder
	// model in its place (shareapi.SplitTrace), so a document stays within
	// engine.MaxScenarioBytes however large the trace.
	trace *kerneltrace.Model
	// published are sc's published figures with their settings in the engine's
	// form (see publishedFigures).
	published publishedSet
	// capacity is the page's machine.capacity, set into the document under
	// the knobs (decodeWith), nil for the scenario's own (machine.go).
	capacity []int
}

func newSource(p Preset, sc engine.Scenario, shared bool) source {
	return source{preset: p, sc: sc, vals: newKnobReader(sc), shared: shared, plain: p.Data, published: newPublishedSet(sc)}
}

// setup is the scenario the page shows: a source with knob overrides applied,
// and the knobs the fragment writes for it.
type setup struct {
	src  source
	base engine.Scenario // src with the knobs applied, before a compared arm's own
	vals *knobReader     // base's knob values
	// knobs are the overrides whose values differ from the source's, in
	// engine.KnobPaths order, so that one setup has one fragment.
	knobs []urlstate.Knob
}

// reconcile resolves what a URL asks for, the preset and knobs of a parsed
// fragment and, for a /s/{id} page, the shared scenario's bytes (nil for none),
// into the setup to show. Whatever is rejected is named in the returned problems
// and replaced by its default: a shared scenario that does not decode by the
// preset the fragment names, a missing or broken preset by the default one (or
// the engine's default scenario), a knob the engine refuses by the source's
// value. The setup always decodes, so a page opens whatever its URL.
func reconcile(presets []Preset, preset string, knobs []urlstate.Knob, shared []byte) (setup, []string) {
	return reconcileWith(presets, preset, knobs, nil, shared)
}

// reconcileWith is reconcile with the URL's machine.capacity (nil for none):
// a list the engine refuses with the knobs (one entry per CPU, each from 1
// to 1024) is dropped, and the problem names the entry at fault.
func reconcileWith(presets []Preset, preset string, knobs []urlstate.Knob, capacity []int, shared []byte) (setup, []string) {
	src, probs := resolveSource(presets, preset, shared)
	if capacity != nil {
		src.capacity = capacity
		var fe *engine.FieldError
		if _, err := src.decodeWith(knobs); errors.As(err, &fe) && strings.HasPrefix(fe.Path, urlstate.CapacityKey) {
			probs = append(probs, fe.Error()+"; using the scenario's")
			src.capacity = nil
		}
	}
	s, knobProbs := applyKnobs(src, knobs)
	return s, append(probs, knobProbs...)
}

// SharedRunsPolicy reports whether a shared scenario (a /s/{id} page's bytes,
// nil for none) runs a sched_ext policy of its own (sched.policy=scx with
// sched.scx.source): the page then starts the policy worker, which carries the
// Starlark interpreter the default engine worker does without. A scenario that
// does not decode runs the default preset instead (resolveSource), so no.
func SharedRunsPolicy(shared []byte) bool {
	if shared == nil {
		return false
	}
	sc, err := shareapi.DecodeScenario(shared)
	return err == nil && sc.Sched.Policy == "scx" && sc.Sched.Scx.Source != ""
}

// resolveSource picks the scenario the knobs apply to: the shared one, else the
// named preset, else the default preset, else the engine's default scenario.
func resolveSource(presets []Preset, name string, shared []byte) (source, []string) {
	var probs []string
	if shared != nil {
		doc, model, err := shareapi.SplitTrace(shared)
		var sc engine.Scenario
		if err == nil {
			sc, err = shareapi.WithTrace(doc, model)
		}
		if err == nil {
			src := newSource(Preset{Data: doc}, sc, true)
			src.plain, src.trace = doc, model
			return src, nil
		}
		probs = append(probs, "shared scenario: "+err.Error()+"; showing the default preset")
	}
	p, sc, ok, prob := usePreset(presets, name)
	if !ok && name != "" {
		probs = append(probs, prob)
		p, sc, ok, prob = usePreset(presets, "")
	}
	if !ok {
		if prob != "" {
			probs = append(probs, prob)
		}
		sc = engine.DefaultScenario()
		p = Preset{}
		p.Data, _ = sc.Canonical()
	}
	return newSource(p, sc, false), probs
}

// usePreset finds and decodes a preset ("" for the default), or says why not ("",
// with ok false, when there is no default preset).
func usePreset(presets []Preset, name string) (p Preset, sc engine.Scenario, ok bool, problem string) {
	p, found := findPreset(presets, name)
	if !found {
		if name != "" {
			problem = fmt.Sprintf("preset: there is no preset %q; showing the default", name)
		}
		return p, sc, false, problem
	}
	sc, err := p.Decode()
	if err != nil {
		return p, sc, false, "preset " + p.Name + ": " + err.Error() + "; showing the default"
	}
	return p, sc, true, ""
}

// applyKnobs applies knobs to src and drops, one at a time, each knob the engine
// rejects, until the rest decode. The knob to drop is the one the error names;
// when a cross-field rule names a field no knob set, it is the last knob without
// which the scenario is valid; when no single knob is to blame, every knob goes.
func applyKnobs(src source, knobs []urlstate.Knob) (setup, []string) {
	var probs []string
	for {
		knobs = clampCPUKnobs(knobs, src.vals, false)
		sc, err := src.decodeWith(knobs)
		if err == nil {
			return newSetup(src, sc, knobs), probs
		}
		var fe *engine.FieldError
		bad := -1
		if errors.As(err, &fe) {
			bad = knobIndex(knobs, fe.Path)
		}
		if bad < 0 {
			for i := len(knobs) - 1; i >= 0; i-- {
				if _, err2 := src.decodeWith(slices.Delete(slices.Clone(knobs), i, i+1)); err2 == nil {
					bad = i
					break
				}
			}
		}
		if bad < 0 {
			probs = append(probs, err.Error()+"; using the preset's values for every knob")
			sc, _ := src.decodeWith(nil)
			return newSetup(src, sc, nil), probs
		}
		if fe == nil || fe.Path != knobs[bad].Path {
			probs = append(probs, knobs[bad].Path+": conflicts with the scenario ("+err.Error()+"); using the default")
		} else {
			probs = append(probs, knobs[bad].Path+": "+fe.Msg+"; using the default")
		}
		knobs = slices.Delete(slices.Clone(knobs), bad, bad+1)
	}
}

// withKnob returns the setup with one more knob override (replacing an earlier
// value of the same knob), or the engine's error and the setup unchanged. Knobs
// that name a vCPU follow a machine given fewer vCPUs (clampCPUKnobs).
func (s setup) withKnob(path, value string) (setup, error) {
	if _, err := engine.KnobValue(path, value); err != nil {
		return s, err
	}
	knobs := slices.Clone(s.knobs)
	if i := knobIndex(knobs, path); i >= 0 {
		knobs[i].Value = value
	} else {
		knobs = append(knobs, urlstate.Knob{Path: path, Value: value})
	}
	knobs = clampCPUKnobs(knobs, s.vals, true)
	sc, err := s.src.decodeWith(knobs)
	if err != nil {
		return s, err
	}
	return newSetup(s.src, sc, knobs), nil
}

// newSetup pairs a decoded scenario with the knobs that produced it, keeping only
// the knobs whose values differ from the source's, in engine.KnobPaths order.
func newSetup(src source, base engine.Scenario, knobs []urlstate.Knob) setup {
	s := setup{src: src, base: base, vals: newKnobReader(base)}
	for _, path := range engine.KnobPaths() {
		if knobIndex(knobs, path) < 0 || s.vals.get(path) == src.vals.get(path) {
			continue
		}
		s.knobs = append(s.knobs, urlstate.Knob{Path: path, Value: urlValue(s.vals.get(path))})
	}
	return s
}

// knobIndex is the index of path's knob, or -1.
func knobIndex(knobs []urlstate.Knob, path string) int {
	return slices.IndexFunc(knobs, func(k urlstate.Knob) bool { return k.Path == path })
}

// decodeWith decodes the source's scenario with knobs applied, its trace's
// model (if any) set in it.
func (src source) decodeWith(knobs []urlstate.Knob) (engine.Scenario, error) {
	sets := make([]string, len(knobs))
	for i, k := range knobs {
		sets[i] = k.Path + "=" + k.Value
	}
	data := src.preset.Data
	if src.capacity != nil {
		var err error
		if data, err = withCapacity(data, src.capacity); err != nil {
			return engine.Scenario{}, err
		}
	}
	return shareapi.WithTrace(data, src.dataTrace(), sets...)
}

// dataTrace is the model preset.Data replays: the source's trace, unless the
// page's rt-app workload replaced it.
func (src source) dataTrace() *kerneltrace.Model {
	if src.rtapp != "" {
		return nil
	}
	return src.trace
}

// urlValue writes booleans as 1/0, the form the fragment uses.
func urlValue(v string) string {
	switch v {
	case "true":
		return "1"
	case "false":
		return "0"
	}
	return v
}

// cpuKnobs are the knobs that name a vCPU: where a waker, spawner or parent
// thread starts (the schema's CPUIndex knobs).
func cpuKnobs() []string {
	var out []string
	for _, k := range engine.Knobs() {
		if k.CPUIndex {
			out = append(out, k.Path)
		}
	}
	return out
}

// clampCPUKnobs keeps the vCPUs the knobs name on the machine when the knobs give
// it fewer vCPUs than one such knob names in cur (the values the knobs apply to):
// it adds knobs naming the last vCPU instead, so a vCPU slider at 1 or a
// hand-written machine.vcpus=1 works instead of failing on workload.waker_cpu.
// With fixExplicit (the slider), such knobs among the knobs move too; without it
// (a link), an out-of-range vCPU the link gives is left to fail by name.
func clampCPUKnobs(knobs []urlstate.Knob, cur *knobReader, fixExplicit bool) []urlstate.Knob {
	i := knobIndex(knobs, "machine.vcpus")
	if i < 0 {
		return knobs
	}
	n, err := strconv.Atoi(knobs[i].Value)
	if err != nil || n < 1 {
		return knobs
	}
	out := slices.Clone(knobs)
	for _, p := range cpuKnobs() {
		if j := knobIndex(out, p); j >= 0 {
			if c, err := strconv.Atoi(out[j].Value); err == nil && c >= n && fixExplicit {
				out[j].Value = strconv.Itoa(n - 1)
			}
			continue
		}
		if c, err := strconv.Atoi(cur.get(p)); err == nil && c >= n {
			out = append(out, urlstate.Knob{Path: p, Value: strconv.Itoa(n - 1)})
		}
	}
	return out
}

// FragmentHasPolicy reports whether a URL fragment carries a sched_ext
// policy's source (the policy key): the page then starts the policy worker
// at once rather than moving to it after the first arm.
func FragmentHasPolicy(fragment string) bool {
	st, _ := urlstate.Parse(fragment)
	return st.Policy != ""
}

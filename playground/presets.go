package playground

import (
	"io/fs"
	"path"
	"slices"
	"strings"

	"schedplay/engine"
	"schedplay/examples"
)

// Preset is one example scenario offered by the preset picker.
type Preset struct {
	// Name is the file stem, used in URLs (preset=tpcb-32vcpu).
	Name string
	// Data is the scenario file, the base that knob overrides apply to. It is
	// decoded when the preset is used, not when the page starts.
	Data []byte
}

// Decode reads the preset's scenario (validated by the engine).
func (p Preset) Decode() (engine.Scenario, error) { return engine.DecodeScenario(p.Data) }

// defaultPreset is the scenario a bare URL opens: the idle-pull collapse, the
// playground's headline story. When it is missing the first preset is used.
const defaultPreset = "tpcb-32vcpu"

// LoadPresets reads every *.json scenario in fsys (examples.FS in production),
// sorted by name. Files are decoded only when chosen (Model.Load), so a broken one
// is reported then, by field, and the page falls back to the default.
func LoadPresets(fsys fs.FS) ([]Preset, []string) {
	var out []Preset
	var probs []string
	names, err := fs.Glob(fsys, "*.json")
	if err != nil {
		return nil, []string{err.Error()}
	}
	slices.Sort(names)
	for _, n := range names {
		data, err := fs.ReadFile(fsys, n)
		if err != nil {
			probs = append(probs, n+": "+err.Error())
			continue
		}
		out = append(out, Preset{Name: strings.TrimSuffix(path.Base(n), ".json"), Data: data})
	}
	return out, probs
}

// BuiltinPresets loads the embedded examples.
func BuiltinPresets() ([]Preset, []string) { return LoadPresets(examples.FS) }

// findPreset returns the named preset, or the default one for "".
func findPreset(ps []Preset, name string) (Preset, bool) {
	if name == "" {
		name = defaultPreset
		if _, ok := findPreset(ps, name); !ok && len(ps) > 0 {
			return ps[0], true
		}
	}
	for _, p := range ps {
		if p.Name == name {
			return p, true
		}
	}
	return Preset{}, false
}

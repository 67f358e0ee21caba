package playground

import "schedplay/engine"

// knobReader reads one scenario's knob values by path, as the engine writes them
// (Scenario.Get: integers in decimal, booleans true/false, floats in their
// shortest form), and keeps each value it has read. Get looks the path up in the
// engine's schema every time (a fraction of a millisecond), and the page reads
// the same few knobs of the same scenario on every update. Copies of a setup or
// an arm share their reader; the scenario never changes under it.
type knobReader struct {
	sc   engine.Scenario
	read map[string]string
}

func newKnobReader(sc engine.Scenario) *knobReader {
	return &knobReader{sc: sc, read: map[string]string{}}
}

// get returns the value of knob path, or "" for a path that names no knob.
func (r *knobReader) get(path string) string {
	v, ok := r.read[path]
	if !ok {
		v, _ = r.sc.Get(path)
		r.read[path] = v
	}
	return v
}

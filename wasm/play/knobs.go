package play

import (
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"schedplay/engine"
)

// knobValues reads every scalar field of sc by its knob path ("machine.vcpus" ->
// "32"), as the canonical JSON writes it: numbers verbatim (so a 64-bit seed keeps
// every digit), booleans as true/false, strings unquoted. Lists (arms, published)
// are skipped: they are not knobs.
func knobValues(sc engine.Scenario) (map[string]string, error) {
	data, err := sc.Canonical()
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	dec := jsontext.NewDecoder(strings.NewReader(string(data)))
	var stack []string // object member names down to the current value
	var expectName []bool
	for {
		tok, err := dec.ReadToken()
		if err != nil {
			break // io.EOF at the end; canonical JSON is well formed
		}
		k := tok.Kind()
		inObj := len(expectName) > 0 && expectName[len(expectName)-1]
		if inObj && k == '"' {
			// A member name: remember it and expect its value next.
			stack = append(stack, tok.String())
			expectName[len(expectName)-1] = false
			continue
		}
		switch k {
		case '{':
			expectName = append(expectName, true)
			continue
		case '}':
			expectName = expectName[:len(expectName)-1]
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case '[':
			// Skip the whole list (its tokens up to the matching ']').
			for depth := 1; depth > 0; {
				t, err := dec.ReadToken()
				if err != nil {
					return out, err
				}
				switch t.Kind() {
				case '[', '{':
					depth++
				case ']', '}':
					depth--
				}
			}
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		default:
			out[strings.Join(stack, ".")] = tok.String()
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		}
		if len(expectName) > 0 {
			expectName[len(expectName)-1] = true
		}
	}
	return out, nil
}

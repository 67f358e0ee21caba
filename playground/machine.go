package playground

// The machine control: the topology select beside the vCPU slider offers a
// few machines, one of which (four big and four little CPUs) is not a
// topology but a flat machine with per-CPU capacities, machine.capacity,
// which is a list and so no knob: the page carries it beside the knobs
// (source.capacity, and machine.capacity in the URL, urlstate/capacity.go).

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/go-json-experiment/json"

	"schedplay/engine"
	"schedplay/playground/urlstate"
)

// BigLittle is the topology select's value for four big CPUs and four
// little ones at half their speed (the select's other values are
// machine.topology's own).
const BigLittle = "4big4little"

// bigLittleCapacity is BigLittle's machine.capacity: CPUs 0-3 big, 4-7 at
// half the capacity, as engine.Machine's comment has it.
func bigLittleCapacity() []int {
	return []int{1024, 1024, 1024, 1024, 512, 512, 512, 512}
}

// machineChoices are the topology select's values in order, with their
// names: flat first (machine.vcpus alone), then growing machines.
func machineChoices() ([]string, map[string]string) {
	return []string{"", "1n2l4c2t", "2n2l4c2t", BigLittle, "2n8l4c2t"}, map[string]string{
		"":         "flat",
		"1n2l4c2t": "1n2l4c2t: 16 CPUs, 2 LLCs",
		"2n2l4c2t": "2n2l4c2t: 16 CPUs, 2 nodes",
		BigLittle:  "4 big + 4 little: 8 CPUs",
		"2n8l4c2t": "64 CPUs: 2 nodes × 4 LLCs × 4 cores × 2 threads",
	}
}

// machineChoice is the topology select's value for sc: its topology, or
// BigLittle for a flat machine of BigLittle's capacities; a flat machine
// with other capacities shows as flat (its capacities are the scenario's).
func machineChoice(sc engine.Scenario) string {
	if sc.Machine.Topology == "" && slices.Equal(sc.Machine.Capacity, bigLittleCapacity()) {
		return BigLittle
	}
	return sc.Machine.Topology
}

// vcpusNote says why the vCPU slider is disabled ("" when it is not): a
// topology gives the CPU count, and capacities are one per CPU.
func vcpusNote(sc engine.Scenario) string {
	switch {
	case sc.Machine.Topology != "":
		return "set by the topology " + sc.Machine.Topology
	case len(sc.Machine.Capacity) > 0:
		return "set by the CPUs' capacities: choose flat to change"
	}
	return ""
}

// setMachine is the topology select's Set: machine.topology to value, or
// BigLittle's eight CPUs with their capacities. Leaving BigLittle drops the
// page's capacities; choosing flat keeps the CPU count the machine had, and
// the vCPU slider takes over from there.
func (m *Model) setMachine(value string) string {
	s, err := m.setup.withMachine(value)
	if err != nil {
		return err.Error()
	}
	m.setup = s
	m.view.AtNs = 0
	m.dropSweep()
	m.rebuild()
	return ""
}

// withMachine is the setup with the topology select at value.
func (s setup) withMachine(value string) (setup, error) {
	// The select sets the machine's shape and CPU count together: a
	// topology gives the count (the URL then has no machine.vcpus), flat
	// keeps the count the machine has, BigLittle has eight.
	knobs := slices.DeleteFunc(slices.Clone(s.knobs), func(k urlstate.Knob) bool {
		return k.Path == "machine.topology" || k.Path == "machine.vcpus"
	})
	src := s.src
	src.capacity = nil
	switch value {
	case BigLittle:
		src.capacity = bigLittleCapacity()
		knobs = append(knobs, urlstate.Knob{Path: "machine.vcpus", Value: strconv.Itoa(len(src.capacity))},
			urlstate.Knob{Path: "machine.topology", Value: ""})
	case "":
		knobs = append(knobs, urlstate.Knob{Path: "machine.vcpus", Value: strconv.Itoa(s.base.Machine.VCPUs)},
			urlstate.Knob{Path: "machine.topology", Value: ""})
	default:
		if _, err := engine.KnobValue("machine.topology", value); err != nil {
			return s, err
		}
		knobs = append(knobs, urlstate.Knob{Path: "machine.topology", Value: value})
	}
	knobs = clampCPUKnobs(knobs, s.vals, true)
	sc, err := src.decodeWith(knobs)
	if err != nil {
		return s, err
	}
	return newSetup(src, sc, knobs), nil
}

// withCapacity sets machine.capacity in a scenario document: the knobs,
// applied after it, may then give the machine the CPU count the list is for.
func withCapacity(data []byte, caps []int) ([]byte, error) {
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("machine.capacity: the scenario is not an object: %v", err)
	}
	machine, _ := doc["machine"].(map[string]any)
	if machine == nil {
		machine = map[string]any{}
		doc["machine"] = machine
	}
	machine["capacity"] = caps
	return json.Marshal(doc, json.Deterministic(true))
}

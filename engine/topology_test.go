package engine

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestParseTopology(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Topology
		cpus int
		err  string // a part of the error, "" for none
	}{
		{in: "1n1l1c1t", want: Topology{1, 1, 1, 1}, cpus: 1},
		{in: "1n2l4c2t", want: Topology{1, 2, 4, 2}, cpus: 16},
		// l counts the machine's LLCs, as ktstr's: 2 nodes of 1 LLC.
		{in: "2n2l4c2t", want: Topology{2, 2, 4, 2}, cpus: 16},
		{in: "2n4l4c2t", want: Topology{2, 4, 4, 2}, cpus: 32},
		{in: "2n8l4c2t", want: Topology{2, 8, 4, 2}, cpus: 64},
		{in: "1n1l128c1t", want: Topology{1, 1, 128, 1}, cpus: 128},
		{in: "", err: "not ktstr's notation"},
		{in: "2x4", err: "not ktstr's notation"},
		{in: "1n2l4c", err: "not ktstr's notation"},
		{in: "1n2l4c2", err: "not ktstr's notation"},
		{in: "n2l4c2t", err: "not ktstr's notation"},
		{in: "1N2L4C2T", err: "not ktstr's notation"},
		{in: "1n2l4c2t ", err: "goes on after the t"},
		{in: "+1n2l4c2t", err: "not ktstr's notation"},
		{in: "01n2l4c2t", err: "leading zero"},
		{in: "0n2l4c2t", err: "0 nodes"},
		{in: "1n0l4c2t", err: "0 LLCs"},
		{in: "1n1l0c2t", err: "0 cores per LLC"},
		{in: "1n1l1c0t", err: "0 threads per core"},
		{in: "2n3l4c2t", err: "do not split evenly over 2 nodes"},
		{in: "1n1l99999999999999999999c1t", err: "above the limit of 128 CPUs"},
		{in: "1n1l200c1t", err: "above the limit of 128 CPUs"},
		{in: "2n8l8c4t", err: "makes 256 CPUs"},
	} {
		got, err := ParseTopology(tc.in)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseTopology(%q) = %v, %v; want an error with %q", tc.in, got, err, tc.err)
			}
		case err != nil:
			t.Errorf("ParseTopology(%q): %v", tc.in, err)
		case got != tc.want || got.CPUs() != tc.cpus || got.String() != tc.in:
			t.Errorf("ParseTopology(%q) = %+v (%d CPUs, %s); want %+v (%d CPUs)", tc.in, got, got.CPUs(), got, tc.want, tc.cpus)
		}
	}
}

// topoTable builds the table of a machine the test expects to be valid.
func topoTable(t *testing.T, m Machine) *TopoTable {
	t.Helper()
	tt, err := NewTopoTable(m)
	if err != nil {
		t.Fatal(err)
	}
	return tt
}

// TestTopoTableNumbering: CPUs are numbered as ktstr's decompose and QEMU's
// x86_topo_ids_from_idx number them, threads of a core first.
func TestTopoTableNumbering(t *testing.T) {
	type place struct{ cpu, node, llc, core, thread int }
	for _, tc := range []struct {
		m      Machine
		places []place
		sib    map[int][]int
	}{
		{m: Machine{VCPUs: 4}, // flat: a core per CPU, one LLC, one node
			places: []place{{0, 0, 0, 0, 0}, {3, 0, 0, 3, 0}},
			sib:    map[int][]int{0: {0}, 3: {3}}},
		{m: Machine{VCPUs: 16, Topology: "1n2l4c2t"},
			places: []place{{0, 0, 0, 0, 0}, {1, 0, 0, 0, 1}, {2, 0, 0, 1, 0}, {7, 0, 0, 3, 1}, {8, 0, 1, 4, 0}, {15, 0, 1, 7, 1}},
			sib:    map[int][]int{0: {0, 1}, 1: {0, 1}, 9: {8, 9}}},
		{m: Machine{VCPUs: 32, Topology: "2n4l4c2t"},
			places: []place{{0, 0, 0, 0, 0}, {8, 0, 1, 4, 0}, {16, 1, 2, 8, 0}, {31, 1, 3, 15, 1}}},
		{m: Machine{VCPUs: 12, Topology: "3n3l2c2t"},
			places: []place{{3, 0, 0, 1, 1}, {4, 1, 1, 2, 0}, {11, 2, 2, 5, 1}}},
		{m: Machine{VCPUs: 8, Topology: "1n1l2c4t"},
			places: []place{{5, 0, 0, 1, 1}},
			sib:    map[int][]int{5: {4, 5, 6, 7}}},
	} {
		tt := topoTable(t, tc.m)
		if tt.NumCPUs() != tc.m.VCPUs || len(tt.CPUs()) != tc.m.VCPUs {
			t.Errorf("%s: %d CPUs, want %d", tt.Shape(), tt.NumCPUs(), tc.m.VCPUs)
		}
		for _, p := range tc.places {
			c := tt.CPU(p.cpu)
			if c.Node != p.node || c.LLC != p.llc || c.Core != p.core || c.Thread != p.thread || c.Capacity != SchedCapacityScale {
				t.Errorf("%s: CPU %d is %+v, want node %d LLC %d core %d thread %d capacity %d", tt.Shape(), p.cpu, c, p.node, p.llc, p.core, p.thread, SchedCapacityScale)
			}
		}
		for cpu, want := range tc.sib {
			if got := tt.Siblings(cpu); !slices.Equal(got, want) {
				t.Errorf("%s: CPU %d's siblings %v, want %v", tt.Shape(), cpu, got, want)
			}
		}
		// Every CPU's siblings share its core, LLC and node.
		for i := range tt.NumCPUs() {
			for _, s := range tt.Siblings(i) {
				if a, b := tt.CPU(i), tt.CPU(s); a.Core != b.Core || a.LLC != b.LLC || a.Node != b.Node {
					t.Errorf("%s: CPU %d (%+v) and its sibling %d (%+v) are apart", tt.Shape(), i, a, s, b)
				}
			}
		}
	}
}

func TestTopoTableCapacityAndDistance(t *testing.T) {
	bigLittle := []int{1024, 1024, 1024, 1024, 512, 512, 512, 512}
	tt := topoTable(t, Machine{VCPUs: 8, Capacity: bigLittle})
	for i, want := range bigLittle {
		if got := tt.CPU(i).Capacity; got != want {
			t.Errorf("CPU %d's capacity %d, want %d", i, got, want)
		}
	}
	tt = topoTable(t, Machine{VCPUs: 16, Topology: "2n2l4c2t"})
	for _, tc := range []struct{ a, b, want int }{{0, 0, 10}, {0, 1, 20}, {1, 0, 20}, {1, 1, 10}} {
		if got := tt.Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("default distance(%d, %d) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
	if got := tt.CPUDistance(0, 8); got != 20 {
		t.Errorf("CPUs 0 and 8 (nodes 0 and 1) are %d apart, want 20", got)
	}
	d := [][]int{{10, 16, 32}, {16, 10, 21}, {32, 21, 10}}
	tt = topoTable(t, Machine{VCPUs: 3, Topology: "3n3l1c1t", NUMADistance: d})
	for a, row := range d {
		for b, want := range row {
			if got := tt.Distance(a, b); got != want {
				t.Errorf("distance(%d, %d) = %d, want %d", a, b, got, want)
			}
		}
	}
}

// TestMachineErrors: a bad machine fails decoding with an error naming the
// field at fault.
func TestMachineErrors(t *testing.T) {
	for _, tc := range []struct {
		name, machine string
		sets          []string
		path, msg     string
	}{
		{"bad notation", `{"topology":"2x4"}`, nil, "machine.topology", "not ktstr's notation"},
		{"zero count", `{"topology":"1n1l0c1t"}`, nil, "machine.topology", "0 cores per LLC"},
		{"too many CPUs", `{"topology":"2n8l8c4t"}`, nil, "machine.topology", "above the limit 128"},
		{"LLCs over nodes", `{"topology":"2n3l1c1t"}`, nil, "machine.topology", "do not split evenly"},
		{"vcpus disagrees", `{"vcpus":8,"topology":"1n2l4c2t"}`, nil, "machine.vcpus", "differs from the 16 CPUs machine.topology"},
		{"vcpus knob disagrees", `{"topology":"1n2l4c2t"}`, []string{"machine.vcpus=8"}, "machine.vcpus", "machine.topology"},
		{"bad knob", `{}`, []string{"machine.topology=4c"}, "machine.topology", "not ktstr's notation"},
		{"capacity length", `{"vcpus":4,"capacity":[1024,512]}`, nil, "machine.capacity", "has 2 entries for 4 CPUs"},
		{"capacity length after topology", `{"topology":"1n1l2c2t","capacity":[1024,512]}`, nil, "machine.capacity", "for 4 CPUs"},
		{"capacity zero", `{"vcpus":2,"capacity":[1024,0]}`, nil, "machine.capacity.1", "not a capacity from 1 to 1024"},
		{"capacity above scale", `{"vcpus":2,"capacity":[2048,1024]}`, nil, "machine.capacity.0", "not a capacity"},
		{"distance rows", `{"topology":"2n2l1c1t","numa_distance":[[10,20]]}`, nil, "machine.numa_distance", "1 rows for 2 nodes"},
		{"distance row length", `{"topology":"2n2l1c1t","numa_distance":[[10,20],[20]]}`, nil, "machine.numa_distance.1", "1 distances for 2 nodes"},
		{"distance local", `{"topology":"2n2l1c1t","numa_distance":[[10,20],[20,11]]}`, nil, "machine.numa_distance.1.1", "to itself is 10"},
		{"distance remote", `{"topology":"2n2l1c1t","numa_distance":[[10,10],[10,10]]}`, nil, "machine.numa_distance.0.1", "from 11 to 254"},
		{"distance unreachable", `{"topology":"2n2l1c1t","numa_distance":[[10,255],[255,10]]}`, nil, "machine.numa_distance.0.1", "from 11 to 254"},
		{"distance asymmetric", `{"topology":"2n2l1c1t","numa_distance":[[10,20],[30,10]]}`, nil, "machine.numa_distance.1.0", "symmetric"},
		{"distance on a flat machine", `{"numa_distance":[[10,20],[20,10]]}`, nil, "machine.numa_distance", "2 rows for 1 nodes"},
		{"capacity not a list", `{"capacity":1024}`, nil, "machine.capacity", "want an array"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeScenario([]byte(`{"version":1,"machine":`+tc.machine+`}`), tc.sets...)
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Path != tc.path || !strings.Contains(fe.Msg, tc.msg) {
				t.Fatalf("got %v; want %s: ...%s...", err, tc.path, tc.msg)
			}
		})
	}
}

// TestTopologySetsVCPUs: machine.vcpus follows a topology unless given, a
// topology knob brings its CPU count, and the flat default writes nothing
// new in the canonical form.
func TestTopologySetsVCPUs(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		sets      []string
		vcpus     int
	}{
		{"left out", `{"version":1,"machine":{"topology":"1n2l4c2t"}}`, nil, 16},
		{"given alike", `{"version":1,"machine":{"vcpus":16,"topology":"1n2l4c2t"}}`, nil, 16},
		{"knob over a vcpus", `{"version":1,"machine":{"vcpus":8}}`, []string{"machine.topology=2n8l4c2t"}, 64},
		{"back to flat", `{"version":1,"machine":{"vcpus":16,"topology":"1n2l4c2t"}}`, []string{"machine.topology="}, 16},
		{"flat then vcpus", `{"version":1,"machine":{"topology":"1n2l4c2t"}}`, []string{"machine.topology=", "machine.vcpus=6"}, 6},
		{"empty lists", `{"version":1,"machine":{"vcpus":2,"capacity":[],"numa_distance":[]}}`, nil, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := DecodeScenario([]byte(tc.doc), tc.sets...)
			if err != nil {
				t.Fatal(err)
			}
			if sc.Machine.VCPUs != tc.vcpus {
				t.Errorf("machine.vcpus %d, want %d", sc.Machine.VCPUs, tc.vcpus)
			}
			if sc.Machine.Capacity != nil || sc.Machine.NUMADistance != nil {
				t.Errorf("empty lists kept: %v %v", sc.Machine.Capacity, sc.Machine.NUMADistance)
			}
			again, err := sc.WithKnobs()
			if err != nil || again.Machine.VCPUs != tc.vcpus || again.Machine.Topology != sc.Machine.Topology {
				t.Errorf("the canonical form decodes to %+v, %v", again.Machine, err)
			}
		})
	}
	c, err := DefaultScenario().Canonical()
	if err != nil {
		t.Fatal(err)
	}
	for _, member := range []string{"topology", "capacity", "numa_distance"} {
		if bytes.Contains(c, []byte(`"`+member+`"`)) {
			t.Errorf("the flat default's canonical form has %s: %s", member, c)
		}
	}
}

// TestSimShowsItsTopology: the Sim of a machine given as a topology, with
// capacities and distances, shows its table. (That a topology of one LLC
// without SMT runs as the flat machine is TestTopologyFlatIsTheFlatReference;
// every other topology now changes placement and speed.)
func TestSimShowsItsTopology(t *testing.T) {
	topo := loadExample(t, "hackbench", "machine.vcpus=16", "duration_ms=200", "warmup_ms=50")
	topo.Machine.Topology = "2n2l4c2t"
	topo.Machine.Capacity = slices.Repeat([]int{1024, 1024, 512, 512}, 4)
	topo.Machine.NUMADistance = [][]int{{10, 31}, {31, 10}}
	s, err := NewSim(topo)
	if err != nil {
		t.Fatal(err)
	}
	tt := s.Topology()
	if tt.Shape() != (Topology{2, 2, 4, 2}) || tt.CPU(9).Node != 1 || tt.CPU(2).Capacity != 512 || tt.Distance(0, 1) != 31 {
		t.Errorf("the Sim's table: %v %+v %+v distance %d", tt.Shape(), tt.CPU(9), tt.CPU(2), tt.Distance(0, 1))
	}
}

// TestScenarioKeyKeptOnFlatMachines: the topology fields (key:"appended")
// leave a flat machine's scenario key as it is without them, and each of
// them, set, changes it. The keys are pinned as of checkpoint format 6,
// whose machine.costs.smt_yield_pct (a cost every scenario has) changed
// every key when every older checkpoint was refused anyway: a later field
// that changes them should come with a format change too.
func TestScenarioKeyKeptOnFlatMachines(t *testing.T) {
	for _, tc := range []struct {
		name string
		sc   Scenario
		want string // the key at checkpoint format 6
	}{
		{"default", DefaultScenario(), "f7d4430ca9aa0e01fdd70196cf899db1"},
		{"hackbench", loadExample(t, "hackbench"), "46f264bb36d917f600383445bd768394"},
	} {
		if got := tc.sc.Key().String(); got != tc.want {
			t.Errorf("%s: key %s, was %s", tc.name, got, tc.want)
		}
	}
	flat := DefaultScenario()
	flat.Machine.VCPUs = 16
	seen := map[ScenarioKey]string{flat.Key(): "flat"}
	for name, change := range map[string]func(m *Machine){
		"topology":      func(m *Machine) { m.Topology = "1n2l4c2t" },
		"capacity":      func(m *Machine) { m.Capacity = slices.Repeat([]int{1024}, 16) },
		"numa_distance": func(m *Machine) { m.NUMADistance = [][]int{{10}} },
	} {
		sc := flat
		change(&sc.Machine)
		if other, ok := seen[sc.Key()]; ok {
			t.Errorf("%s set has %s's key", name, other)
		}
		seen[sc.Key()] = name
	}
}

// FuzzParseTopology: any string either parses to a shape that writes back
// as the same string and builds a consistent table, or fails; it never
// panics.
func FuzzParseTopology(f *testing.F) {
	for _, s := range []string{"1n2l4c2t", "2n4l4c2t", "2n3l1c1t", "01n1l1c1t", "1n1l128c1t", "9999n", "1n1l1c1tt", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		shape, err := ParseTopology(s)
		if err != nil {
			if s != "" && checkTopologyNotation(s) == nil {
				t.Fatalf("%q: ParseTopology refuses what the knob accepts", s)
			}
			return
		}
		if shape.String() != s {
			t.Fatalf("%q parses to %+v, which writes %q", s, shape, shape)
		}
		if n := shape.CPUs(); n < 1 || n > MaxVCPUs {
			t.Fatalf("%q makes %d CPUs", s, n)
		}
		tt, err := NewTopoTable(Machine{VCPUs: shape.CPUs(), Topology: s})
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		for i := range tt.NumCPUs() {
			c := tt.CPU(i)
			if c.Node < 0 || c.Node >= shape.Nodes || c.LLC >= shape.LLCs || c.LLC/shape.LLCsPerNode() != c.Node ||
				c.Core/shape.CoresPerLLC != c.LLC || c.Thread != i-c.Core*shape.ThreadsPerCore || len(tt.Siblings(i)) != shape.ThreadsPerCore {
				t.Fatalf("%q: CPU %d is %+v", s, i, c)
			}
		}
	})
}

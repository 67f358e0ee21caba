package engine

import (
	"fmt"
	"slices"
	"strconv"
)

// The machine's topology (issue 34): NUMA nodes, last-level caches, cores and
// SMT threads, each CPU's capacity and the distances between nodes. The table
// is built and checked here; the Linux reference's placement (linux_topo.go),
// sched_ext's idle selection (scx_topo.go) and the speed of work (smt.go)
// read it, each reducing to the flat rules on the flat default.
//
// The notation is ktstr's (likewhatevs/ktstr, src/vmm/topology.rs, Topology's
// Display and FromStr): NnLlCcTt, where L is the machine's total LLC count, a
// multiple of N, not a count per node. ktstr's TOTAL is llcs * cores_per_llc *
// threads_per_core, so 2n4l4c2t is 2 nodes of 2 LLCs, 32 CPUs. Following it
// keeps a shape written here the same machine a ktstr test boots.
//
// CPUs are numbered as ktstr's Topology::decompose and QEMU's -smp
// (x86_topo_ids_from_idx, include/hw/i386/topology.h) number them, and so as
// the guest's Linux sees them: threads of a core are consecutive (with two
// threads per core, CPUs 0 and 1 are core 0's siblings), cores of an LLC are
// consecutive, and LLCs fill the nodes in order.

// SchedCapacityScale is a full-speed CPU's capacity: the kernel's
// SCHED_CAPACITY_SCALE (1 << SCHED_CAPACITY_SHIFT, include/linux/sched.h),
// the scale arch_scale_cpu_capacity and sched_ext's scx_bpf_cpuperf_cap use.
const SchedCapacityScale = 1024

// NUMA distances on the kernel's scale (node_distance, ACPI SLIT): a node to
// itself is 10; without a matrix, two nodes are 20 apart, what ktstr and QEMU
// give a guest whose distances are not set. 255 is SLIT's "unreachable",
// which no simulated machine is, so a remote distance is 11 to 254.
const (
	NUMALocalDistance  = 10
	NUMARemoteDistance = 20
	NUMAMaxDistance    = 254
)

// Topology is a machine's shape: Nodes NUMA nodes sharing LLCs last-level
// caches between them evenly, CoresPerLLC cores under each LLC and
// ThreadsPerCore SMT threads (CPUs) in each core.
type Topology struct {
	Nodes, LLCs, CoresPerLLC, ThreadsPerCore int
}

// FlatTopology is machine.vcpus' shape, the default: one node, one LLC, vcpus
// cores of one thread.
func FlatTopology(vcpus int) Topology {
	return Topology{Nodes: 1, LLCs: 1, CoresPerLLC: vcpus, ThreadsPerCore: 1}
}

// CPUs is the machine's CPU count.
func (t Topology) CPUs() int { return t.LLCs * t.CoresPerLLC * t.ThreadsPerCore }

// LLCsPerNode is how many LLCs each node has.
func (t Topology) LLCsPerNode() int { return t.LLCs / t.Nodes }

// String writes t in ktstr's notation ("1n2l4c2t").
func (t Topology) String() string {
	return fmt.Sprintf("%dn%dl%dc%dt", t.Nodes, t.LLCs, t.CoresPerLLC, t.ThreadsPerCore)
}

// ParseTopology reads ktstr's notation NnLlCcTt. Each count is written in
// plain digits (no sign, no leading zero, so one machine has one spelling
// and one scenario key), at least 1; L is a multiple of N; the machine has
// at most MaxVCPUs CPUs.
func ParseTopology(s string) (Topology, error) {
	// NnLlCcTt's counts in order, with the letter ending each.
	counts := [4]struct {
		letter byte
		name   string
	}{{'n', "nodes"}, {'l', "LLCs"}, {'c', "cores per LLC"}, {'t', "threads per core"}}
	var n [4]int
	rest := s
	for i, c := range counts {
		j := 0
		for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
			j++
		}
		if j == 0 || j == len(rest) || rest[j] != c.letter {
			return Topology{}, fmt.Errorf("%q is not ktstr's notation NnLlCcTt (nodes, LLCs in all, cores per LLC, threads per core), e.g. 1n2l4c2t", quoteBounded(s))
		}
		digits := rest[:j]
		// Any count above MaxVCPUs is too many on its own, so four digits
		// say all there is to say and the product cannot overflow.
		if len(digits) > 1 && digits[0] == '0' {
			return Topology{}, fmt.Errorf("%q: write %s without a leading zero", quoteBounded(s), c.name)
		}
		v := MaxVCPUs + 1
		if len(digits) <= 4 {
			v, _ = strconv.Atoi(digits)
		}
		switch {
		case v == 0:
			return Topology{}, fmt.Errorf("%q has 0 %s: every count is at least 1", quoteBounded(s), c.name)
		case v > MaxVCPUs:
			return Topology{}, fmt.Errorf("%q has %s %s, above the limit of %d CPUs", quoteBounded(s), quoteBounded(digits), c.name, MaxVCPUs)
		}
		n[i] = v
		rest = rest[j+1:]
	}
	if rest != "" {
		return Topology{}, fmt.Errorf("%q is not ktstr's notation NnLlCcTt: it goes on after the t", quoteBounded(s))
	}
	t := Topology{Nodes: n[0], LLCs: n[1], CoresPerLLC: n[2], ThreadsPerCore: n[3]}
	if t.LLCs%t.Nodes != 0 {
		return Topology{}, fmt.Errorf("%q: %d LLCs do not split evenly over %d nodes (l counts the machine's LLCs in all, as ktstr's does: 2n4l4c2t is 2 nodes of 2 LLCs)", s, t.LLCs, t.Nodes)
	}
	if t.CPUs() > MaxVCPUs {
		return Topology{}, fmt.Errorf("%q makes %d CPUs (%d LLCs x %d cores x %d threads), above the limit %d", s, t.CPUs(), t.LLCs, t.CoresPerLLC, t.ThreadsPerCore, MaxVCPUs)
	}
	return t, nil
}

// checkTopologyNotation is machine.topology's check as a knob value: "" (flat)
// or any shape ParseTopology reads.
func checkTopologyNotation(s string) error {
	if s == "" {
		return nil
	}
	_, err := ParseTopology(s)
	return err
}

// TopoCPU is one CPU's place in the machine. Indexes are the machine's, not
// their parent's: LLC 3 is the second LLC of node 1 on 2n4l4c2t.
type TopoCPU struct {
	Node, LLC, Core int
	// Thread is the CPU's SMT index within its core, 0 to ThreadsPerCore-1.
	Thread int
	// Capacity is on the kernel's scale: SchedCapacityScale at full speed.
	Capacity int
}

// TopoTable is the machine's per-CPU table: where each CPU sits, its
// capacity, and the distance between any two nodes. It is built once from a
// valid scenario's machine and never changes, so a Sim hands out the same one
// to every reader.
type TopoTable struct {
	shape Topology
	cpus  []TopoCPU
	// dist is the node distance matrix, row-major.
	dist []int
}

// NewTopoTable builds the table of a machine, checking machine.topology,
// machine.vcpus against it, machine.capacity and machine.numa_distance: an
// error is a *FieldError naming the field at fault.
func NewTopoTable(m Machine) (*TopoTable, error) {
	shape := FlatTopology(m.VCPUs)
	if m.Topology != "" {
		t, err := ParseTopology(m.Topology)
		if err != nil {
			return nil, fieldErr("machine.topology", "%v", err)
		}
		shape = t
		if m.VCPUs != t.CPUs() {
			return nil, fieldErr("machine.vcpus", "%d differs from the %d CPUs machine.topology %q has: leave machine.vcpus out (the topology sets it), give %d, or make machine.topology \"\" for a flat machine",
				m.VCPUs, t.CPUs(), m.Topology, t.CPUs())
		}
	}
	if shape.CoresPerLLC < 1 || shape.CPUs() > MaxVCPUs {
		return nil, fieldErr("machine.vcpus", "%d is not from 1 to %d", m.VCPUs, MaxVCPUs)
	}
	tt := &TopoTable{shape: shape, cpus: make([]TopoCPU, shape.CPUs())}
	if len(m.Capacity) > 0 && len(m.Capacity) != len(tt.cpus) {
		return nil, fieldErr("machine.capacity", "has %d entries for %d CPUs: give one per CPU, in CPU order (%d is full speed), or leave it out for all %d",
			len(m.Capacity), len(tt.cpus), SchedCapacityScale, SchedCapacityScale)
	}
	perLLC := shape.CoresPerLLC * shape.ThreadsPerCore
	for i := range tt.cpus {
		c := TopoCPU{
			Thread:   i % shape.ThreadsPerCore,
			Core:     i / shape.ThreadsPerCore,
			LLC:      i / perLLC,
			Capacity: SchedCapacityScale,
		}
		c.Node = c.LLC / shape.LLCsPerNode()
		if len(m.Capacity) > 0 {
			c.Capacity = m.Capacity[i]
			if c.Capacity < 1 || c.Capacity > SchedCapacityScale {
				return nil, fieldErr("machine.capacity."+strconv.Itoa(i), "%d is not a capacity from 1 to %d (SCHED_CAPACITY_SCALE, full speed)", c.Capacity, SchedCapacityScale)
			}
		}
		tt.cpus[i] = c
	}
	nodes := shape.Nodes
	tt.dist = make([]int, nodes*nodes)
	for a := range nodes {
		for b := range nodes {
			tt.dist[a*nodes+b] = NUMARemoteDistance
			if a == b {
				tt.dist[a*nodes+b] = NUMALocalDistance
			}
		}
	}
	if len(m.NUMADistance) > 0 {
		if err := tt.setDistances(m.NUMADistance); err != nil {
			return nil, err
		}
	}
	return tt, nil
}

// setDistances checks and takes machine.numa_distance: a square matrix of
// one row per node, 10 on the diagonal, 11 to 254 elsewhere, symmetric (as
// ktstr's NumaDistance requires; ACPI SLIT allows asymmetry, which no
// machine this models has).
func (tt *TopoTable) setDistances(d [][]int) error {
	nodes := tt.shape.Nodes
	const path = "machine.numa_distance"
	if len(d) != nodes {
		return fieldErr(path, "has %d rows for %d nodes: give a row per node, or leave it out for %d local and %d remote", len(d), nodes, NUMALocalDistance, NUMARemoteDistance)
	}
	for a, row := range d {
		at := path + "." + strconv.Itoa(a)
		if len(row) != nodes {
			return fieldErr(at, "has %d distances for %d nodes: give one to each node", len(row), nodes)
		}
		for b, x := range row {
			at := at + "." + strconv.Itoa(b)
			switch {
			case a == b && x != NUMALocalDistance:
				return fieldErr(at, "%d: a node's distance to itself is %d", x, NUMALocalDistance)
			case a != b && (x <= NUMALocalDistance || x > NUMAMaxDistance):
				return fieldErr(at, "%d: a distance between two nodes is from %d to %d", x, NUMALocalDistance+1, NUMAMaxDistance)
			case a != b && b < a && x != d[b][a]:
				return fieldErr(at, "%d differs from %s.%d.%d, %d: distances are symmetric", x, path, b, a, d[b][a])
			}
			tt.dist[a*nodes+b] = x
		}
	}
	return nil
}

// mustTopoTable is NewTopoTable of a machine Validate has accepted.
func mustTopoTable(m Machine) *TopoTable {
	tt, err := NewTopoTable(m)
	if err != nil {
		panic("engine: the topology of a validated machine: " + err.Error())
	}
	return tt
}

// Shape is the machine's shape (FlatTopology(vcpus) without machine.topology).
func (tt *TopoTable) Shape() Topology { return tt.shape }

// NumCPUs is the machine's CPU count.
func (tt *TopoTable) NumCPUs() int { return len(tt.cpus) }

// CPU is where CPU i sits and its capacity.
func (tt *TopoTable) CPU(i int) TopoCPU { return tt.cpus[i] }

// CPUs is the whole table, a copy, in CPU order.
func (tt *TopoTable) CPUs() []TopoCPU { return slices.Clone(tt.cpus) }

// Siblings are the CPUs of cpu's core, cpu among them, in CPU order: the
// kernel's topology_sibling_cpumask. Just cpu without SMT.
func (tt *TopoTable) Siblings(cpu int) []int {
	t := tt.shape.ThreadsPerCore
	first := cpu - cpu%t
	out := make([]int, t)
	for i := range out {
		out[i] = first + i
	}
	return out
}

// Distance is node_distance(a, b) between nodes a and b.
func (tt *TopoTable) Distance(a, b int) int { return tt.dist[a*tt.shape.Nodes+b] }

// CPUDistance is the distance between the nodes of CPUs a and b.
func (tt *TopoTable) CPUDistance(a, b int) int {
	return tt.Distance(tt.cpus[a].Node, tt.cpus[b].Node)
}

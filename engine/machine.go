package engine

import "github.com/go-json-experiment/json"

// Machine describes the (virtual) hardware and the platform it runs on.
type Machine struct {
	// VCPUs is the CPU count: the shorthand for a flat machine (one node,
	// one LLC, a core per CPU), or, with Topology, its product.
	VCPUs int `json:"vcpus"`
	// Topology is the machine's shape in ktstr's notation NnLlCcTt: N NUMA
	// nodes, L last-level caches in all (a multiple of N: ktstr counts the
	// machine's LLCs, not a node's), C cores per LLC, T SMT threads per core;
	// 1n2l4c2t is 16 CPUs. "" is flat. A document that gives it may leave
	// VCPUs out (decoding sets it to the product); one that gives both must
	// agree. topology.go numbers the CPUs; the Linux reference's placement
	// (linux_topo.go) and sched_ext's idle selection (scx_topo.go) read it.
	Topology string `json:"topology,omitzero" key:"appended"`
	// Capacity is each CPU's capacity, in CPU order, on the kernel's scale
	// (SCHED_CAPACITY_SCALE: 1024 is full speed, the default); empty: all
	// 1024. Four big and four little CPUs: [1024,1024,1024,1024,512,512,512,512].
	// Data only for now: CPUs run at one speed (issue 34).
	Capacity []int `json:"capacity,omitzero" key:"appended"`
	// NUMADistance is the node distance matrix, row a column b being the
	// kernel's node_distance(a, b) (ACPI SLIT, what numactl -H shows), a row
	// per node; empty: 10 to itself, 20 to any other. Placement reads whether
	// nodes are within RECLAIM_DISTANCE; no cost follows distance yet.
	NUMADistance [][]int `json:"numa_distance,omitzero" key:"appended"`
	// Platform is "native" (halt is cheap) or "kvm" (halt is a VM exit).
	Platform string `json:"platform"`
	// HostHaltPollNs is KVM's halt_poll_ns maximum; 0 disables host halt polling.
	// The window grows x2 from HostHaltPollStartNs and shrinks /2 (halt-polling.rst).
	HostHaltPollNs      int64 `json:"host_halt_poll_ns"`
	HostHaltPollStartNs int64 `json:"host_halt_poll_start_ns"`
	// HostContentionPerS is the rate (per vCPU, per second) at which another host
	// task becomes runnable on the vCPU's physical CPU. Host halt polling stops as soon
	// as that happens, so a wake that arrives afterwards pays the full halted-vCPU wake.
	HostContentionPerS float64 `json:"host_contention_per_s"`
	Costs              Costs   `json:"costs"`
}

// settle finishes a machine decoded from the document data: a topology
// without machine.vcpus gives the CPU count (the default's 32 would rarely
// be its product), and an empty list reads as one left out, so that the
// canonical form and the scenario key have one spelling of "all defaults".
func (m *Machine) settle(data []byte) {
	if len(m.Capacity) == 0 {
		m.Capacity = nil
	}
	if len(m.NUMADistance) == 0 {
		m.NUMADistance = nil
	}
	if m.Topology == "" {
		return
	}
	if t, err := ParseTopology(m.Topology); err == nil && !givesVCPUs(data) {
		m.VCPUs = t.CPUs()
	}
}

// givesVCPUs reports whether the document data has a machine.vcpus member.
// data has been decoded strictly already, so anything it does not say is
// no error of this reading's.
func givesVCPUs(data []byte) bool {
	var doc struct {
		Machine struct {
			VCPUs *int `json:"vcpus"`
		} `json:"machine"`
	}
	_ = json.Unmarshal(data, &doc)
	return doc.Machine.VCPUs != nil
}

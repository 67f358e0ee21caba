package engine

// Machine describes the (virtual) hardware and the platform it runs on.
type Machine struct {
	VCPUs int `json:"vcpus"`
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

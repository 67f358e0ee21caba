package engine

import "fmt"

// The topology-aware idle helpers a policy calls (ext_idle.c's kfuncs), on
// the rules of scx_topo.go.

// cpusMask checks a policy's cpus_allowed list and returns it as a mask:
// nil for a nil list (the task's own CPUs).
func (k *ScxKernel) cpusMask(cpus []int, what string) ([]bool, error) {
	if cpus == nil {
		return nil, nil
	}
	mask := make([]bool, len(k.s.cpus))
	for _, c := range cpus {
		if c < 0 || c >= len(mask) {
			return nil, fmt.Errorf("%s: CPU %d out of range 0..%d", what, c, len(mask)-1)
		}
		mask[c] = true
	}
	return mask, nil
}

// PickIdleCPUFlags is scx_bpf_pick_idle_cpu(p->cpus_ptr, flags): with
// ScxPickIdleCore only a CPU of a wholly idle core, else a wholly idle core
// first and then any idle CPU (pick_idle_cpu_in_node); the CPU is claimed.
// -1 when none is.
func (k *ScxKernel) PickIdleCPUFlags(p ScxTask, flags int64) (int, error) {
	return k.PickIdleCPUIn(p, nil, flags)
}

// PickIdleCPUIn is scx_bpf_pick_idle_cpu with cpus_allowed the CPUs of cpus
// p may run on (nil: all of p's).
func (k *ScxKernel) PickIdleCPUIn(p ScxTask, cpus []int, flags int64) (int, error) {
	if err := k.checkGlobalIdle("pick_idle_cpu", perNodePickMsg); err != nil {
		return -1, err
	}
	if err := k.checkPickFlags(flags, "pick_idle_cpu"); err != nil {
		return -1, err
	}
	if err := k.checkBuiltinIdle("pick_idle_cpu"); err != nil {
		return -1, err
	}
	mask, err := k.cpusMask(cpus, "pick_idle_cpu")
	if err != nil {
		return -1, err
	}
	return k.pickIdle(p.t, k.thisCPU, mask, flags), nil
}

func (k *ScxKernel) checkPickFlags(flags int64, what string) error {
	if flags&^(ScxPickIdleCore|ScxPickIdleInNode) != 0 {
		return fmt.Errorf("%s: flags %#x: only PICK_IDLE_CORE and PICK_IDLE_IN_NODE are modelled", what, flags)
	}
	return nil
}

// SelectCPUAnd is scx_bpf_select_cpu_and: scx_select_cpu_dfl restricted to
// the CPUs of cpus p may run on (nil: all of p's), with SCX_PICK_IDLE_*
// flags; the idle CPU it claimed, or -1 (-EBUSY). From select_cpu or
// enqueue (select_cpu_from_kfunc); a task that may run on one CPU only
// gets that CPU if it is idle and allowed, and nothing else is tried.
func (k *ScxKernel) SelectCPUAnd(p ScxTask, prevCPU int, wakeFlags int64, cpus []int, flags int64) (int, error) {
	if k.in != ScxOpSelectCPU && k.in != ScxOpEnqueue {
		return -1, fmt.Errorf("select_cpu_and: called from %s: only select_cpu and enqueue may", k.in)
	}
	if err := k.checkCPU(p.t, prevCPU, "select_cpu_and: prev_cpu"); err != nil {
		return -1, err
	}
	if err := k.checkPickFlags(flags, "select_cpu_and"); err != nil {
		return -1, err
	}
	if err := k.checkBuiltinIdle("select_cpu_and"); err != nil {
		return -1, err
	}
	mask, err := k.cpusMask(cpus, "select_cpu_and")
	if err != nil {
		return -1, err
	}
	t := p.t
	if t.pinned || len(k.s.cpus) == 1 {
		sc := idleScope{t: t, hi: len(k.s.cpus), mask: mask}
		if sc.has(prevCPU) && k.idleCPU(k.s.cpus[prevCPU]) {
			k.claimed[prevCPU] = true
			return prevCPU, nil
		}
		return -1, nil
	}
	if wakeFlags&ScxWakeSync != 0 && k.thisCPU >= 0 && (mask == nil || mask[k.thisCPU]) && k.syncInNode(k.thisCPU, prevCPU, flags) {
		// The WAKE_SYNC branch, by the scenario's rule (selectCPUDfl).
		if k.wakeSyncReason(k.thisCPU) != "" {
			return k.thisCPU, nil
		}
	}
	c, _ := k.scxSelectCPUDfl(t, prevCPU, k.thisCPU, mask, flags)
	return c, nil
}

// IdleSMTCPUs is scx_bpf_get_idle_smtmask: the CPUs of the wholly idle
// cores, in order; without SMT, the idle mask (as the kernel returns).
func (k *ScxKernel) IdleSMTCPUs() ([]int, error) {
	if err := k.checkGlobalIdle("get_idle_smtmask", perNodeMaskMsg); err != nil {
		return nil, err
	}
	if err := k.checkBuiltinIdle("get_idle_smtmask"); err != nil {
		return nil, err
	}
	if !k.smtActive() {
		return k.IdleCPUs()
	}
	var out []int
	for c := range k.s.cpus {
		if k.smtIdle(c) {
			out = append(out, c)
		}
	}
	return out, nil
}

// CPUNode is scx_bpf_cpu_node: cpu's NUMA node (with or without per-node
// idle masks).
func (k *ScxKernel) CPUNode(cpu int) (int, error) {
	if cpu < 0 || cpu >= len(k.s.cpus) {
		return 0, fmt.Errorf("cpu_node: CPU %d out of range 0..%d", cpu, len(k.s.cpus)-1)
	}
	return k.s.topo.CPU(cpu).Node, nil
}

// Topology is the machine's topology table (Sim.Topology), for a policy
// that reads LLCs, cores and siblings (as a BPF policy reads them from
// userspace's tables).
func (k *ScxKernel) Topology() *TopoTable { return k.s.topo }

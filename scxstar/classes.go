package scxstar

import (
	"go.starlark.net/starlark"

	"schedplay/engine"
)

// The callbacks and constants of the classes above sched_ext: a real-time or
// deadline task taking a CPU from the policy (cpu_release, with
// scx.reenqueue_local) and the policy getting it back (cpu_acquire).

// addClassesAbove adds their constants to the scx module's members.
func addClassesAbove(m starlark.StringDict) {
	m["ENQ_REENQ"] = starlark.MakeInt64(engine.ScxEnqReenq)
	m["CPU_PREEMPT_RT"] = starlark.MakeInt64(engine.ScxCPUPreemptRT)
	m["CPU_PREEMPT_DL"] = starlark.MakeInt64(engine.ScxCPUPreemptDL)
	m["CPU_PREEMPT_STOP"] = starlark.MakeInt64(engine.ScxCPUPreemptStop)
	m["CPU_PREEMPT_UNKNOWN"] = starlark.MakeInt64(engine.ScxCPUPreemptUnknown)
}

// CPUAcquire is cpu_acquire(cpu).
func (p *Policy) CPUAcquire(k *engine.ScxKernel, cpu int) error {
	p.argsOf(engine.ScxOpCPUAcquire)[0] = starlark.MakeInt(cpu)
	_, err := p.call(k, engine.ScxOpCPUAcquire, 1)
	return err
}

// CPURelease is cpu_release(cpu, reason, next): next is the real-time or
// deadline task that takes the CPU (scx_cpu_release_args.task).
func (p *Policy) CPURelease(k *engine.ScxKernel, cpu int, reason int64, next engine.ScxTask) error {
	a := p.argsOf(engine.ScxOpCPURelease)
	a[0], a[1], a[2] = starlark.MakeInt(cpu), starlark.MakeInt64(reason), p.task(next)
	_, err := p.call(k, engine.ScxOpCPURelease, 3)
	return err
}

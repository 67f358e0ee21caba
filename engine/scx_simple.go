package engine

import "encoding/binary"

// scx_simple (tools/sched_ext/scx_simple.bpf.c) in weighted-vtime mode, as Go
// ops on the sched_ext core (scx.go; docs/mechanisms.md, WAKE_SYNC):
//
//   - select_cpu: select_cpu_dfl; a CPU found idle gets the task straight
//     into its local DSQ with a default slice (simple_select_cpu);
//   - enqueue: onto the shared DSQ 0 in vtime order, a sleeper credited at
//     most one slice behind the current vtime (simple_enqueue);
//   - dispatch: move the shared DSQ's head to the local DSQ (simple_dispatch);
//   - running: the current vtime follows the task that starts running
//     (simple_running).
//
// The vtime is the task's CPU time (weight 100 for every task, so
// simple_stopping's weighted charge is the time run). What differs from the
// BPF program, kept so that results stay what they were before the core:
// the floor (one slice behind) applies to the key it is inserted with but is
// not kept in the task's vtime, which restarts from its CPU time at its next
// enqueue; scx_simple.bpf.c keeps the raised dsq_vtime. The Starlark
// examples/policies/scx_simple.star does the same, so the two agree.
type scxSimple struct {
	ScxNoOps
	sliceNs  int64
	vtimeNow int64
}

const scxSimpleDSQ = 0 // SHARED_DSQ

func (p *scxSimple) Defined() ScxOpSet {
	return ScxOpInit | ScxOpSelectCPU | ScxOpEnqueue | ScxOpDispatch | ScxOpRunning
}

func (p *scxSimple) Init(k *ScxKernel) error { return k.CreateDSQ(scxSimpleDSQ) }

func (p *scxSimple) SelectCPU(k *ScxKernel, t ScxTask, prevCPU int, wakeFlags int64) (int, error) {
	cpu, idle, err := k.SelectCPUDfl(t, prevCPU, wakeFlags)
	if err == nil && idle {
		err = k.DSQInsert(t, ScxDSQLocal, p.sliceNs, 0)
	}
	return cpu, err
}

func (p *scxSimple) Enqueue(k *ScxKernel, t ScxTask, enqFlags int64) error {
	vt := t.RuntimeNs()
	if floor := p.vtimeNow - p.sliceNs; vt < floor {
		vt = floor
	}
	return k.DSQInsertVtime(t, scxSimpleDSQ, p.sliceNs, vt, enqFlags)
}

func (p *scxSimple) Dispatch(k *ScxKernel, cpu int, prev ScxTask) error {
	_, err := k.DSQMoveToLocal(scxSimpleDSQ)
	return err
}

func (p *scxSimple) Running(k *ScxKernel, t ScxTask) error {
	p.vtimeNow = max(p.vtimeNow, t.Vtime())
	return nil
}

func (p *scxSimple) SaveState() ([]byte, error) {
	return binary.AppendVarint(nil, p.vtimeNow), nil
}

func (p *scxSimple) LoadState(data []byte) error {
	v, n := binary.Varint(data)
	if n <= 0 || n != len(data) {
		return errScxState
	}
	p.vtimeNow = v
	return nil
}

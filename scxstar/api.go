package scxstar

import (
	"fmt"

	"go.starlark.net/starlark"

	"schedplay/engine"
)

// The scx module's helpers for porting real schedulers (issue 34 item 5;
// engine/scx_api.go): scx.cpumask and the topology masks, cpu_core,
// cpu_capacity, what runs where (task_running, cpu_curr, waker), DSQ walks
// (dsq_tasks with dsq_move_task and dsq_move_vtime), task_set_slice and
// task_set_dsq_vtime, create_dsq's node, and cpuperf_cap/cur/set.

// cpuperfOne is SCX_CPUPERF_ONE: the full performance level.
const cpuperfOne = engine.SchedCapacityScale

// addAPI adds them to the module's members m.
func addAPI(p *Policy, m starlark.StringDict) {
	m["cpumask"] = starlark.NewBuiltin("cpumask", p.newCpumask)
	m["CPUPERF_ONE"] = starlark.MakeInt(cpuperfOne)
	fn := func(name string, params []param, f func(k *engine.ScxKernel, a argv) (starlark.Value, error)) {
		addFn(p, m, name, params, f)
	}
	task, cpu := param{"p", argTask}, param{"cpu", argInt32}
	checkCPU := func(name string, k *engine.ScxKernel, c int64) error {
		if c < 0 || c >= int64(k.NrCPUs()) {
			return fmt.Errorf("%s: CPU %d out of range 0..%d", name, c, k.NrCPUs()-1)
		}
		return nil
	}
	// The machine's shape (topology_core_id, arch_scale_cpu_capacity, and the
	// masks a BPF scheduler builds from userspace's topology tables).
	fn("cpu_core", []param{cpu}, func(k *engine.ScxKernel, a argv) (starlark.Value, error) {
		if err := checkCPU("cpu_core", k, a[0].n); err != nil {
			return nil, err
		}
		return starlark.MakeInt(k.Topology().CPU(int(a[0].n)).Core), nil
	})
	fn("cpu_capacity", []param{cpu}, func(k *engine.ScxKernel, a argv) (starlark.Value, error) {
		c, err := k.CPUPerfCap(int(a[0].n))
		if err != nil {
			return nil, fmt.Errorf("cpu_capacity: %v", err)
		}
		return starlark.MakeInt(c), nil
	})
	fn("llc_cpus", []param{{"llc", argInt32}}, func(k *engine.ScxKernel, a argv) (starlark.Value, error) {
		sh := k.Topology().Shape()
		if a[0].n < 0 || a[0].n >= int64(sh.LLCs) {
			return nil, fmt.Errorf("llc_cpus: LLC %d out of range 0..%d", a[0].n, sh.LLCs-1)
		}
		per := k.NrCPUs() / sh.LLCs
		return maskRange(int(a[0].n)*per, int(a[0].n+1)*per), nil
	})
	fn("node_cpus", []param{{"node", argInt32}}, func(k *engine.ScxKernel, a argv) (starlark.Value, error) {
		sh := k.Topology().Shape()
		if a[0].n < 0 || a[0].n >= int64(sh.Nodes) {
			return nil, fmt.Errorf("node_cpus: node %d out of range 0..%d", a[0].n, sh.Nodes-1)
		}
		per := k.NrCPUs() / sh.Nodes
		return maskRange(int(a[0].n)*per, int(a[0].n+1)*per), nil
	})
	// What runs where.
	fn("task_running", []param{task}, func(k *engine.ScxKernel, a argv) (starlark.Value, error) {
		return starlark.Bool(a[0].task().t.Running()), nil
	})
	fn("cpu_curr", []param{cpu}, func(k *engine.ScxKernel, a argv) (starlark.Value, error) {
		t, err := k.CPUCurr(int(a[0].n))
		if err != nil {
			return nil, err
		}
		return p.task(t), nil
	})
	fn("waker", nil, func(k *engine.ScxKernel, _ argv) (starlark.Value, error) {
		t, err := k.Waker()
		if err != nil {
			return nil, err
		}
		return p.task(t), nil
	})
	// Tasks' slice and vtime (scx_bpf_task_set_slice, scx_bpf_task_set_dsq_vtime:
	// the same as assigning p.slice and p.dsq_vtime).
	fn("task_set_slice", []param{task, {"slice", argInt64}}, func(k *engine.ScxKernel, a argv) (starlark.Value, error) {
		if a[1].n < 0 {
			return nil, fmt.Errorf("task_set_slice: slice %d is negative", a[1].n)
		}
		a[0].task().t.SetSlice(a[1].n)
		return starlark.None, nil
	})
	fn("task_set_dsq_vtime", []param{task, {"vtime", argInt64}}, func(k *engine.ScxKernel, a argv) (starlark.Value, error) {
		a[0].task().t.SetVtime(a[1].n)
		return starlark.None, nil
	})
	// DSQ walks.
	fn("dsq_tasks", []param{{"dsq", argInt32}}, func(k *engine.ScxKernel, a argv) (starlark.Value, error) {
		ts, err := k.DSQTasks(a[0].n)
		if err != nil {
			return nil, err
		}
		out := make(starlark.Tuple, len(ts))
		for i, t := range ts {
			out[i] = p.task(t)
		}
		return out, nil
	})
	fn("timer_start", []param{{"ns", argInt64}, {"callback?", argValue}}, func(k *engine.ScxKernel, a argv) (starlark.Value, error) {
		return p.timerStart(k, a[0].n, a[1].v)
	})
	move := func(name string, byVtime bool) {
		fn(name, []param{task, {"dst", argInt32}, {"enq_flags?", argInt32}}, func(k *engine.ScxKernel, a argv) (starlark.Value, error) {
			ok, err := k.DSQMoveTask(a[0].task().t, a[1].n, a[2].n, byVtime)
			return starlark.Bool(ok), err
		})
	}
	move("dsq_move_task", false)
	move("dsq_move_vtime", true)
	fn("create_dsq", []param{{"id", argInt32}, {"node?", argInt32}}, func(k *engine.ScxKernel, a argv) (starlark.Value, error) {
		return starlark.None, k.CreateDSQNode(a[0].n, a[1].n)
	})
	// Performance levels (scx_bpf_cpuperf_cap, _cur, _set): the capacity is
	// the machine's; a level set is kept and read back, not yet applied to
	// the CPU's speed (issue 34 item 2).
	fn("cpuperf_cap", []param{cpu}, func(k *engine.ScxKernel, a argv) (starlark.Value, error) {
		c, err := k.CPUPerfCap(int(a[0].n))
		return starlark.MakeInt(c), err
	})
	fn("cpuperf_cur", []param{cpu}, func(k *engine.ScxKernel, a argv) (starlark.Value, error) {
		if err := checkCPU("cpuperf_cur", k, a[0].n); err != nil {
			return nil, err
		}
		return starlark.MakeInt(p.api.perf(int(a[0].n))), nil
	})
	fn("cpuperf_set", []param{cpu, {"perf", argInt32}}, func(k *engine.ScxKernel, a argv) (starlark.Value, error) {
		if err := checkCPU("cpuperf_set", k, a[0].n); err != nil {
			return nil, err
		}
		if a[1].n < 0 || a[1].n > cpuperfOne {
			// scx_bpf_cpuperf_set: "Invalid cpuperf target".
			return nil, fmt.Errorf("cpuperf_set: perf %d for CPU %d: want 0..%d (CPUPERF_ONE)", a[1].n, a[0].n, cpuperfOne)
		}
		p.api.setPerf(int(a[0].n), int(a[1].n), k.NrCPUs())
		return starlark.None, nil
	})
}

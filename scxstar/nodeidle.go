package scxstar

import (
	"go.starlark.net/starlark"

	"schedplay/engine"
)

// The scx module's per-node idle helpers (engine/scx_nodeidle.go, ext_idle.c
// under SCX_OPS_BUILTIN_IDLE_PER_NODE): the flag, PICK_IDLE_IN_NODE, a node's
// idle and SMT idle masks (scx_bpf_get_idle_cpumask_node,
// scx_bpf_get_idle_smtmask_node), and the searches from a node
// (scx_bpf_pick_idle_cpu_node, scx_bpf_pick_any_cpu_node). cpu_node
// (scx_bpf_cpu_node) is topo.go's.

// addNodeIdle adds them to the module's members m.
func addNodeIdle(p *Policy, m starlark.StringDict) {
	m["OPS_BUILTIN_IDLE_PER_NODE"] = starlark.MakeInt64(engine.ScxOpsBuiltinIdlePerNode)
	m["PICK_IDLE_IN_NODE"] = starlark.MakeInt64(engine.ScxPickIdleInNode)
	fn := func(name string, params []param, f func(k *engine.ScxKernel, a argv) (starlark.Value, error)) {
		addFn(p, m, name, params, f)
	}
	node := param{"node", argInt32}
	mask := func(cpus []int, err error) (starlark.Value, error) {
		if err != nil {
			return nil, err
		}
		return maskOf(cpus), nil
	}
	fn("get_idle_cpumask_node", []param{node}, func(k *engine.ScxKernel, a argv) (starlark.Value, error) {
		return mask(k.IdleCPUsNode(int(a[0].n)))
	})
	fn("get_idle_smtmask_node", []param{node}, func(k *engine.ScxKernel, a argv) (starlark.Value, error) {
		return mask(k.IdleSMTCPUsNode(int(a[0].n)))
	})
	search := []param{{"p", argTask}, node, {"flags?", argInt32}, {"cpus?", argValue}}
	pick := func(name string, f func(k *engine.ScxKernel, p engine.ScxTask, cpus []int, node int, flags int64) (int, error)) {
		fn(name, search, func(k *engine.ScxKernel, a argv) (starlark.Value, error) {
			cpus := a[3].v
			if cpus == nil {
				cpus = starlark.None
			}
			list, err := cpuList(name, cpus)
			if err != nil {
				return nil, err
			}
			cpu, err := f(k, a[0].task().t, list, int(a[1].n), a[2].n)
			return starlark.MakeInt(cpu), err
		})
	}
	pick("pick_idle_cpu_node", (*engine.ScxKernel).PickIdleCPUNode)
	pick("pick_any_cpu_node", (*engine.ScxKernel).PickAnyCPUNode)
}

package scxstar

import (
	"fmt"

	"go.starlark.net/starlark"

	"schedplay/engine"
)

// The scx module's topology-aware idle helpers (engine/scx_topo_kfuncs.go):
// PICK_IDLE_CORE, pick_idle_cpu with flags and cpus, select_cpu_and,
// get_idle_smtmask, and the machine's shape (cpu_node, cpu_llc,
// smt_siblings, nr_nodes, nr_llcs).

// addTopo adds them to the module's members m, replacing module.go's
// pick_idle_cpu(p) with pick_idle_cpu(p, flags=0, cpus=None), which takes
// the same calls.
func addTopo(p *Policy, m starlark.StringDict) {
	m["PICK_IDLE_CORE"] = starlark.MakeInt64(engine.ScxPickIdleCore)
	fn := func(name string, f func(k *engine.ScxKernel, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error)) {
		m[name] = starlark.NewBuiltin(name, func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
			if p.k == nil {
				return nil, fmt.Errorf("%s: called at the top level: call it from a callback (init for set-up)", name)
			}
			return f(p.k, args, kw)
		})
	}
	fn("pick_idle_cpu", func(k *engine.ScxKernel, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
		var t *task
		var flags int32
		var cpus starlark.Value = starlark.None
		if err := starlark.UnpackArgs("pick_idle_cpu", args, kw, "p", &t, "flags?", &flags, "cpus?", &cpus); err != nil {
			return nil, err
		}
		list, err := cpuList("pick_idle_cpu", cpus)
		if err != nil {
			return nil, err
		}
		cpu, err := k.PickIdleCPUIn(t.t, list, int64(flags))
		return starlark.MakeInt(cpu), err
	})
	fn("select_cpu_and", func(k *engine.ScxKernel, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
		var t *task
		var prev, wakeFlags, flags int32
		var cpus starlark.Value
		if err := starlark.UnpackArgs("select_cpu_and", args, kw, "p", &t, "prev_cpu", &prev, "wake_flags", &wakeFlags, "cpus", &cpus, "flags?", &flags); err != nil {
			return nil, err
		}
		list, err := cpuList("select_cpu_and", cpus)
		if err != nil {
			return nil, err
		}
		cpu, err := k.SelectCPUAnd(t.t, int(prev), int64(wakeFlags), list, int64(flags))
		return starlark.MakeInt(cpu), err
	})
	fn("get_idle_smtmask", func(k *engine.ScxKernel, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
		if err := starlark.UnpackArgs("get_idle_smtmask", args, kw); err != nil {
			return nil, err
		}
		cpus, err := k.IdleSMTCPUs()
		if err != nil {
			return nil, err
		}
		return maskOf(cpus), nil
	})
	perCPU := func(name string, f func(tt *engine.TopoTable, cpu int) starlark.Value) {
		fn(name, func(k *engine.ScxKernel, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
			var cpu int32
			if err := starlark.UnpackArgs(name, args, kw, "cpu", &cpu); err != nil {
				return nil, err
			}
			if cpu < 0 || int(cpu) >= k.NrCPUs() {
				return nil, fmt.Errorf("%s: CPU %d out of range 0..%d", name, cpu, k.NrCPUs()-1)
			}
			return f(k.Topology(), int(cpu)), nil
		})
	}
	perCPU("cpu_node", func(tt *engine.TopoTable, cpu int) starlark.Value { return starlark.MakeInt(tt.CPU(cpu).Node) })
	perCPU("cpu_llc", func(tt *engine.TopoTable, cpu int) starlark.Value { return starlark.MakeInt(tt.CPU(cpu).LLC) })
	perCPU("smt_siblings", func(tt *engine.TopoTable, cpu int) starlark.Value { return maskOf(tt.Siblings(cpu)) })
	count := func(name string, f func(sh engine.Topology) int) {
		fn(name, func(k *engine.ScxKernel, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
			if err := starlark.UnpackArgs(name, args, kw); err != nil {
				return nil, err
			}
			return starlark.MakeInt(f(k.Topology().Shape())), nil
		})
	}
	count("nr_nodes", func(sh engine.Topology) int { return sh.Nodes })
	count("nr_llcs", func(sh engine.Topology) int { return sh.LLCs })
}

// cpuList reads a list of CPU numbers or a cpumask (None: nil, all the
// task's CPUs).
func cpuList(name string, v starlark.Value) ([]int, error) {
	if v == starlark.None {
		return nil, nil
	}
	if m, ok := v.(*cpumask); ok {
		return m.cpus(), nil
	}
	it, ok := v.(starlark.Iterable)
	if !ok {
		return nil, fmt.Errorf("%s: cpus: want a list of CPUs or a cpumask, got %s", name, v.Type())
	}
	iter := it.Iterate()
	defer iter.Done()
	out := []int{}
	var x starlark.Value
	for iter.Next(&x) {
		c, err := starlark.AsInt32(x)
		if err != nil {
			return nil, fmt.Errorf("%s: cpus: %v", name, err)
		}
		if len(out) == engine.MaxVCPUs {
			return nil, fmt.Errorf("%s: cpus: more than %d entries", name, engine.MaxVCPUs)
		}
		out = append(out, c)
	}
	return out, nil
}

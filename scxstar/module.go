package scxstar

import (
	"fmt"

	"go.starlark.net/starlark"

	"schedplay/engine"
)

// The module scx: the helpers (the scx_bpf_* kfuncs without their prefix) and
// constants of docs/policies.md. Each helper acts on the core of the callback
// running; called at the top level, it is an error naming it.

func newModule(p *Policy, sliceDflNs int64) *module {
	m := starlark.StringDict{
		"DSQ_GLOBAL":            starlark.MakeInt64(engine.ScxDSQGlobal),
		"DSQ_LOCAL":             starlark.MakeInt64(engine.ScxDSQLocal),
		"DSQ_LOCAL_ON":          starlark.MakeInt64(engine.ScxDSQLocalOn),
		"SLICE_INF":             starlark.MakeInt64(engine.ScxSliceInf),
		"ENQ_WAKEUP":            starlark.MakeInt64(engine.ScxEnqWakeup),
		"ENQ_HEAD":              starlark.MakeInt64(engine.ScxEnqHead),
		"ENQ_PREEMPT":           starlark.MakeInt64(engine.ScxEnqPreempt),
		"ENQ_LAST":              starlark.MakeInt64(engine.ScxEnqLast),
		"DEQ_SLEEP":             starlark.MakeInt64(engine.ScxDeqSleep),
		"OPS_KEEP_BUILTIN_IDLE": starlark.MakeInt64(engine.ScxOpsKeepBuiltinIdle),
		"OPS_ENQ_LAST":          starlark.MakeInt64(engine.ScxOpsEnqLast),
		"WAKE_SYNC":             starlark.MakeInt64(engine.ScxWakeSync),
		"KICK_IDLE":             starlark.MakeInt64(engine.ScxKickIdle),
		"KICK_PREEMPT":          starlark.MakeInt64(engine.ScxKickPreempt),
	}
	addClassesAbove(m)
	fn := func(name string, params []param, f func(k *engine.ScxKernel, a argv) (starlark.Value, error)) {
		addFn(p, m, name, params, f)
	}
	task, dsq, cpu := param{"p", argTask}, param{"dsq", argInt32}, param{"cpu", argInt32}
	fn("dsq_insert", []param{task, dsq, {"slice", argInt64}, {"enq_flags?", argInt32}}, func(k *engine.ScxKernel, a argv) (starlark.Value, error) {
		return starlark.None, k.DSQInsert(a[0].task().t, a[1].n, a[2].n, a[3].n)
	})
	fn("dsq_insert_vtime", []param{task, dsq, {"slice", argInt64}, {"vtime", argInt64}, {"enq_flags?", argInt32}}, func(k *engine.ScxKernel, a argv) (starlark.Value, error) {
		return starlark.None, k.DSQInsertVtime(a[0].task().t, a[1].n, a[2].n, a[3].n, a[4].n)
	})
	fn("dsq_move_to_local", []param{dsq}, func(k *engine.ScxKernel, a argv) (starlark.Value, error) {
		ok, err := k.DSQMoveToLocal(a[0].n)
		return starlark.Bool(ok), err
	})
	fn("dsq_move", []param{dsq, {"dst", argInt32}}, func(k *engine.ScxKernel, a argv) (starlark.Value, error) {
		ok, err := k.DSQMove(a[0].n, a[1].n)
		return starlark.Bool(ok), err
	})
	fn("create_dsq", []param{{"id", argInt32}}, func(k *engine.ScxKernel, a argv) (starlark.Value, error) {
		return starlark.None, k.CreateDSQ(a[0].n)
	})
	fn("dsq_peek", []param{dsq}, func(k *engine.ScxKernel, a argv) (starlark.Value, error) {
		t, err := k.DSQPeek(a[0].n)
		if err != nil {
			return nil, err
		}
		return p.task(t), nil
	})
	fn("dsq_nr_queued", []param{dsq}, func(k *engine.ScxKernel, a argv) (starlark.Value, error) {
		n, err := k.DSQNrQueued(a[0].n)
		return starlark.MakeInt(n), err
	})
	fn("select_cpu_dfl", []param{task, {"prev_cpu", argInt32}, {"wake_flags", argInt32}}, func(k *engine.ScxKernel, a argv) (starlark.Value, error) {
		cpu, idle, err := k.SelectCPUDfl(a[0].task().t, int(a[1].n), a[2].n)
		if err != nil {
			return nil, err
		}
		return p.cpuIdleTuple(cpu, idle), nil
	})
	fn("test_and_clear_cpu_idle", []param{cpu}, func(k *engine.ScxKernel, a argv) (starlark.Value, error) {
		ok, err := k.TestAndClearCPUIdle(int(a[0].n))
		return starlark.Bool(ok), err
	})
	fn("pick_idle_cpu", []param{task}, func(k *engine.ScxKernel, a argv) (starlark.Value, error) {
		cpu, err := k.PickIdleCPU(a[0].task().t)
		return starlark.MakeInt(cpu), err
	})
	fn("idle_cpumask_empty", nil, func(k *engine.ScxKernel, _ argv) (starlark.Value, error) {
		empty, err := k.IdleCPUMaskEmpty()
		return starlark.Bool(empty), err
	})
	fn("get_idle_cpumask", nil, func(k *engine.ScxKernel, _ argv) (starlark.Value, error) {
		cpus, err := k.IdleCPUs()
		if err != nil {
			return nil, err
		}
		return maskOf(cpus), nil
	})
	fn("kick_cpu", []param{cpu, {"flags?", argInt32}}, func(k *engine.ScxKernel, a argv) (starlark.Value, error) {
		return starlark.None, k.KickCPU(int(a[0].n), a[1].n)
	})
	fn("reenqueue_local", nil, func(k *engine.ScxKernel, _ argv) (starlark.Value, error) {
		n, err := k.ReenqueueLocal()
		return starlark.MakeInt(n), err
	})
	fn("this_cpu", nil, func(k *engine.ScxKernel, _ argv) (starlark.Value, error) { return starlark.MakeInt(k.ThisCPU()), nil })
	fn("nr_cpus", nil, func(k *engine.ScxKernel, _ argv) (starlark.Value, error) { return starlark.MakeInt(k.NrCPUs()), nil })
	fn("now", nil, func(k *engine.ScxKernel, _ argv) (starlark.Value, error) { return starlark.MakeInt64(k.NowNs()), nil })
	fn("task_cpu", []param{task}, func(k *engine.ScxKernel, a argv) (starlark.Value, error) {
		return starlark.MakeInt(a[0].task().t.CPU()), nil
	})
	fn("exit", []param{{"code", argInt64}, {"msg?", argString}}, func(k *engine.ScxKernel, a argv) (starlark.Value, error) {
		return nil, k.Exit(a[0].n, a[1].str())
	})
	fn("error", []param{{"msg", argString}}, func(k *engine.ScxKernel, a argv) (starlark.Value, error) {
		return nil, fmt.Errorf("scx.error: %s", a[0].str())
	})
	addTopo(p, m) // scx.PICK_IDLE_CORE and the topology helpers (topo.go)
	addAPI(p, m)  // cpumasks, topology queries, tasks and DSQ walks (api.go)
	// Per-node idle masks: OPS_BUILTIN_IDLE_PER_NODE and the _node helpers (nodeidle.go).
	addNodeIdle(p, m)
	// SLICE_DFL is sched.scx_slice_us (the kernel's is 20 ms, the default).
	m["SLICE_DFL"] = starlark.MakeInt64(sliceDflNs)
	return newScxModule("scx", m)
}

// addFn registers helper name in m with its parameters. The builtin is made
// once; a call unpacks its arguments (args.go) and runs f on the current
// core.
func addFn(p *Policy, m starlark.StringDict, name string, params []param, f func(k *engine.ScxKernel, a argv) (starlark.Value, error)) {
	sig := newSignature(name, params)
	m[name] = starlark.NewBuiltin(name, func(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if p.k == nil {
			return nil, fmt.Errorf("%s: called at the top level: call it from a callback (init for set-up)", name)
		}
		var a argv
		if err := sig.unpack(&a, args, kwargs); err != nil {
			return nil, err
		}
		return f(p.k, a)
	})
}

// cpuIdleTuple is select_cpu_dfl's (cpu, idle), the same tuple for the same
// answer (Policy.cpuIdle).
func (p *Policy) cpuIdleTuple(cpu int, idle bool) starlark.Value {
	if cpu < 0 || cpu >= maxCachedCPU {
		return starlark.Tuple{starlark.MakeInt(cpu), starlark.Bool(idle)}
	}
	for cpu >= len(p.cpuIdle) {
		c := len(p.cpuIdle)
		p.cpuIdle = append(p.cpuIdle, [2]starlark.Value{
			starlark.Tuple{starlark.MakeInt(c), starlark.False},
			starlark.Tuple{starlark.MakeInt(c), starlark.True},
		})
	}
	if idle {
		return p.cpuIdle[cpu][1]
	}
	return p.cpuIdle[cpu][0]
}

// maxCachedCPU bounds Policy.cpuIdle; the engine's CPUs are far fewer.
const maxCachedCPU = 1 << 12

package scxstar

import (
	"fmt"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"schedplay/engine"
)

// The module scx: the helpers (the scx_bpf_* kfuncs without their prefix) and
// constants of docs/policies.md. Each helper acts on the core of the callback
// running; called at the top level, it is an error naming it.

func newModule(p *Policy, sliceDflNs int64) *starlarkstruct.Module {
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
	fn := func(name string, f func(k *engine.ScxKernel, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error)) {
		m[name] = starlark.NewBuiltin(name, func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			if p.k == nil {
				return nil, fmt.Errorf("%s: called at the top level: call it from a callback (init for set-up)", name)
			}
			return f(p.k, args, kwargs)
		})
	}
	fn("dsq_insert", func(k *engine.ScxKernel, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
		var t *task
		var dsq, flags int32
		var slice int64
		if err := starlark.UnpackArgs("dsq_insert", args, kw, "p", &t, "dsq", &dsq, "slice", &slice, "enq_flags?", &flags); err != nil {
			return nil, err
		}
		return starlark.None, k.DSQInsert(t.t, int64(dsq), slice, int64(flags))
	})
	fn("dsq_insert_vtime", func(k *engine.ScxKernel, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
		var t *task
		var dsq, flags int32
		var slice, vtime int64
		if err := starlark.UnpackArgs("dsq_insert_vtime", args, kw, "p", &t, "dsq", &dsq, "slice", &slice, "vtime", &vtime, "enq_flags?", &flags); err != nil {
			return nil, err
		}
		return starlark.None, k.DSQInsertVtime(t.t, int64(dsq), slice, vtime, int64(flags))
	})
	fn("dsq_move_to_local", func(k *engine.ScxKernel, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
		var dsq int32
		if err := starlark.UnpackArgs("dsq_move_to_local", args, kw, "dsq", &dsq); err != nil {
			return nil, err
		}
		ok, err := k.DSQMoveToLocal(int64(dsq))
		return starlark.Bool(ok), err
	})
	fn("dsq_move", func(k *engine.ScxKernel, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
		var dsq, dst int32
		if err := starlark.UnpackArgs("dsq_move", args, kw, "dsq", &dsq, "dst", &dst); err != nil {
			return nil, err
		}
		ok, err := k.DSQMove(int64(dsq), int64(dst))
		return starlark.Bool(ok), err
	})
	fn("create_dsq", func(k *engine.ScxKernel, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
		var id int32
		if err := starlark.UnpackArgs("create_dsq", args, kw, "id", &id); err != nil {
			return nil, err
		}
		return starlark.None, k.CreateDSQ(int64(id))
	})
	fn("dsq_peek", func(k *engine.ScxKernel, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
		var dsq int32
		if err := starlark.UnpackArgs("dsq_peek", args, kw, "dsq", &dsq); err != nil {
			return nil, err
		}
		t, err := k.DSQPeek(int64(dsq))
		if err != nil {
			return nil, err
		}
		return p.task(k, t), nil
	})
	fn("dsq_nr_queued", func(k *engine.ScxKernel, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
		var dsq int32
		if err := starlark.UnpackArgs("dsq_nr_queued", args, kw, "dsq", &dsq); err != nil {
			return nil, err
		}
		n, err := k.DSQNrQueued(int64(dsq))
		return starlark.MakeInt(n), err
	})
	fn("select_cpu_dfl", func(k *engine.ScxKernel, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
		var t *task
		var prev, flags int32
		if err := starlark.UnpackArgs("select_cpu_dfl", args, kw, "p", &t, "prev_cpu", &prev, "wake_flags", &flags); err != nil {
			return nil, err
		}
		cpu, idle, err := k.SelectCPUDfl(t.t, int(prev), int64(flags))
		if err != nil {
			return nil, err
		}
		return starlark.Tuple{starlark.MakeInt(cpu), starlark.Bool(idle)}, nil
	})
	fn("test_and_clear_cpu_idle", func(k *engine.ScxKernel, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
		var cpu int32
		if err := starlark.UnpackArgs("test_and_clear_cpu_idle", args, kw, "cpu", &cpu); err != nil {
			return nil, err
		}
		ok, err := k.TestAndClearCPUIdle(int(cpu))
		return starlark.Bool(ok), err
	})
	fn("pick_idle_cpu", func(k *engine.ScxKernel, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
		var t *task
		if err := starlark.UnpackArgs("pick_idle_cpu", args, kw, "p", &t); err != nil {
			return nil, err
		}
		cpu, err := k.PickIdleCPU(t.t)
		return starlark.MakeInt(cpu), err
	})
	fn("idle_cpumask_empty", func(k *engine.ScxKernel, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
		if err := starlark.UnpackArgs("idle_cpumask_empty", args, kw); err != nil {
			return nil, err
		}
		empty, err := k.IdleCPUMaskEmpty()
		return starlark.Bool(empty), err
	})
	fn("get_idle_cpumask", func(k *engine.ScxKernel, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
		if err := starlark.UnpackArgs("get_idle_cpumask", args, kw); err != nil {
			return nil, err
		}
		cpus, err := k.IdleCPUs()
		if err != nil {
			return nil, err
		}
		l := make([]starlark.Value, len(cpus))
		for i, c := range cpus {
			l[i] = starlark.MakeInt(c)
		}
		return starlark.NewList(l), nil
	})
	fn("kick_cpu", func(k *engine.ScxKernel, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
		var cpu, flags int32
		if err := starlark.UnpackArgs("kick_cpu", args, kw, "cpu", &cpu, "flags?", &flags); err != nil {
			return nil, err
		}
		return starlark.None, k.KickCPU(int(cpu), int64(flags))
	})
	noArgs := func(name string, f func(k *engine.ScxKernel) starlark.Value) {
		fn(name, func(k *engine.ScxKernel, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
			if err := starlark.UnpackArgs(name, args, kw); err != nil {
				return nil, err
			}
			return f(k), nil
		})
	}
	fn("reenqueue_local", func(k *engine.ScxKernel, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
		if err := starlark.UnpackArgs("reenqueue_local", args, kw); err != nil {
			return nil, err
		}
		n, err := k.ReenqueueLocal()
		return starlark.MakeInt(n), err
	})
	noArgs("this_cpu", func(k *engine.ScxKernel) starlark.Value { return starlark.MakeInt(k.ThisCPU()) })
	noArgs("nr_cpus", func(k *engine.ScxKernel) starlark.Value { return starlark.MakeInt(k.NrCPUs()) })
	noArgs("now", func(k *engine.ScxKernel) starlark.Value { return starlark.MakeInt64(k.NowNs()) })
	fn("task_cpu", func(k *engine.ScxKernel, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
		var t *task
		if err := starlark.UnpackArgs("task_cpu", args, kw, "p", &t); err != nil {
			return nil, err
		}
		return starlark.MakeInt(t.t.CPU()), nil
	})
	fn("timer_start", func(k *engine.ScxKernel, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
		var ns int64
		if err := starlark.UnpackArgs("timer_start", args, kw, "ns", &ns); err != nil {
			return nil, err
		}
		return starlark.None, k.TimerStart(ns)
	})
	fn("exit", func(k *engine.ScxKernel, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
		var code int64
		var msg string
		if err := starlark.UnpackArgs("exit", args, kw, "code", &code, "msg?", &msg); err != nil {
			return nil, err
		}
		return nil, k.Exit(code, msg)
	})
	fn("error", func(k *engine.ScxKernel, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
		var msg string
		if err := starlark.UnpackArgs("error", args, kw, "msg", &msg); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("scx.error: %s", msg)
	})
	addTopo(p, m) // scx.PICK_IDLE_CORE and the topology helpers (topo.go)
	// SLICE_DFL is sched.scx_slice_us (the kernel's is 20 ms, the default).
	m["SLICE_DFL"] = starlark.MakeInt64(sliceDflNs)
	return &starlarkstruct.Module{Name: "scx", Members: m}
}

// task is a task as a policy sees it: p.pid, p.weight, p.cpu, p.slice and
// p.dsq_vtime (both writable), p.runtime, p.allowed(cpu).
type task struct {
	p *Policy
	t engine.ScxTask
}

func (t *task) String() string        { return fmt.Sprintf("task(pid=%d)", t.t.PID()) }
func (t *task) Type() string          { return "task" }
func (t *task) Freeze()               {}
func (t *task) Truth() starlark.Bool  { return true }
func (t *task) Hash() (uint32, error) { return uint32(t.t.PID()), nil }

func (t *task) Attr(name string) (starlark.Value, error) {
	switch name {
	case "pid":
		return starlark.MakeInt(t.t.PID()), nil
	case "name":
		return starlark.String(t.t.Name()), nil
	case "weight":
		return starlark.MakeInt64(t.t.Weight()), nil
	case "cpu":
		return starlark.MakeInt(t.t.CPU()), nil
	case "slice":
		return starlark.MakeInt64(t.t.Slice()), nil
	case "dsq_vtime":
		return starlark.MakeInt64(t.t.Vtime()), nil
	case "runtime":
		return starlark.MakeInt64(t.t.RuntimeNs()), nil
	case "allowed":
		return starlark.NewBuiltin("allowed", func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
			var cpu int32
			if err := starlark.UnpackArgs("allowed", args, kw, "cpu", &cpu); err != nil {
				return nil, err
			}
			return starlark.Bool(t.t.Allowed(int(cpu))), nil
		}), nil
	}
	return nil, nil
}

func (t *task) AttrNames() []string {
	return []string{"allowed", "cpu", "dsq_vtime", "name", "pid", "runtime", "slice", "weight"}
}

func (t *task) SetField(name string, v starlark.Value) error {
	var n int64
	if err := starlark.AsInt(v, &n); err != nil {
		return fmt.Errorf("task.%s: %v", name, err)
	}
	switch name {
	case "slice":
		t.t.SetSlice(n)
	case "dsq_vtime":
		t.t.SetVtime(n)
	default:
		return fmt.Errorf("task.%s cannot be set: only slice and dsq_vtime", name)
	}
	return nil
}

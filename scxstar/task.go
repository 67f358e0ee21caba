package scxstar

import (
	"fmt"

	"go.starlark.net/starlark"

	"schedplay/engine"
)

// task is a task as a policy sees it: p.pid, p.weight, p.cpu, p.slice and
// p.dsq_vtime (both writable), p.runtime, p.allowed(cpu). Its attributes
// read the engine's task when asked, never a copy, so a task value kept
// from an earlier callback is as current as a new one.
type task struct {
	t engine.ScxTask
	// allowed is p.allowed, made the first time it is asked for: a bound
	// builtin per attribute read would allocate on every p.allowed(cpu).
	allowed *starlark.Builtin
}

// maxCachedPID bounds Policy.tasks, which is indexed by pid: a task with a
// larger pid (none the engine makes) gets a value per call, as before.
const maxCachedPID = 1 << 20

// task is the policy's value for t, None for no task. A task has one value,
// made the first time a callback or helper hands it to the policy and kept
// in p.tasks by pid: a callback then allocates nothing for its task, and as
// the value reads the engine's task live (task), keeping it shows the
// policy nothing stale. The kept value is used only while it is for the
// same engine task, should a pid ever name another. One value per task also
// makes == between tasks mean the same task (a Starlark value without its
// own comparison is equal only to itself), where a value per call made two
// looks at one task unequal.
func (p *Policy) task(t engine.ScxTask) starlark.Value {
	if !t.Valid() {
		return starlark.None
	}
	pid := t.PID()
	if pid < 0 || pid >= maxCachedPID {
		return &task{t: t}
	}
	if pid >= len(p.tasks) {
		p.tasks = append(p.tasks, make([]*task, pid+1-len(p.tasks))...)
	}
	if v := p.tasks[pid]; v != nil && v.t == t {
		return v
	}
	v := &task{t: t}
	p.tasks[pid] = v
	return v
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
		if t.allowed == nil {
			t.allowed = starlark.NewBuiltin("allowed", t.allowedCPU)
		}
		return t.allowed, nil
	}
	return nil, nil
}

func (t *task) allowedCPU(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kw []starlark.Tuple) (starlark.Value, error) {
	var cpu int32
	if err := starlark.UnpackArgs("allowed", args, kw, "cpu", &cpu); err != nil {
		return nil, err
	}
	return starlark.Bool(t.t.Allowed(int(cpu))), nil
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

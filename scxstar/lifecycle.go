package scxstar

import (
	"go.starlark.net/starlark"

	"schedplay/engine"
)

// The task lifecycle callbacks (engine/scx_api.go says where the core calls
// each): init_task(p, fork) and set_weight(p, weight) at a task's first
// sight, around enable; exit_task(p) and dequeue(p, deq_flags), which this
// core never calls, may be defined so that a ported policy compiles as it
// is.

// InitTask is init_task(p, fork).
func (p *Policy) InitTask(k *engine.ScxKernel, t engine.ScxTask, fork bool) error {
	a := p.argsOf(engine.ScxOpInitTask)
	a[0], a[1] = p.task(t), starlark.Bool(fork)
	_, err := p.call(k, engine.ScxOpInitTask, 2)
	return err
}

// ExitTask is exit_task(p).
func (p *Policy) ExitTask(k *engine.ScxKernel, t engine.ScxTask) error {
	p.argsOf(engine.ScxOpExitTask)[0] = p.task(t)
	_, err := p.call(k, engine.ScxOpExitTask, 1)
	return err
}

// SetWeight is set_weight(p, weight).
func (p *Policy) SetWeight(k *engine.ScxKernel, t engine.ScxTask, weight int64) error {
	a := p.argsOf(engine.ScxOpSetWeight)
	a[0], a[1] = p.task(t), starlark.MakeInt64(weight)
	_, err := p.call(k, engine.ScxOpSetWeight, 2)
	return err
}

// Dequeue is dequeue(p, deq_flags).
func (p *Policy) Dequeue(k *engine.ScxKernel, t engine.ScxTask, deqFlags int64) error {
	a := p.argsOf(engine.ScxOpDequeue)
	a[0], a[1] = p.task(t), starlark.MakeInt64(deqFlags)
	_, err := p.call(k, engine.ScxOpDequeue, 2)
	return err
}

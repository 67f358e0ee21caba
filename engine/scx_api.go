package engine

import "fmt"

// The kfuncs real schedulers (scx_bpfland, scx_cosmos, scx_p2dq) call that
// the first set of helpers lacked (issue 34 item 5): what runs where
// (scx_bpf_cpu_curr, task_running), the waker (bpf_get_current_task_btf in
// select_cpu and runnable), DSQ iteration with a move of the task the
// iteration reached (bpf_iter_scx_dsq, scx_bpf_dsq_move[_vtime]),
// create_dsq's node, and the CPUs' capacity (scx_bpf_cpuperf_cap). None of
// them changes the core's flow; they read it, or move a task as
// scx_bpf_dsq_move does.

// Running reports whether the task is on a CPU (task_running: p->on_cpu).
func (p ScxTask) Running() bool { return p.t.state == ThreadRunning }

// CPUCurr is scx_bpf_cpu_curr: the task running on cpu (rq->curr), of any
// class; an invalid ScxTask when cpu runs its idle task.
func (k *ScxKernel) CPUCurr(cpu int) (ScxTask, error) {
	if cpu < 0 || cpu >= len(k.s.cpus) {
		return ScxTask{}, fmt.Errorf("cpu_curr: CPU %d out of range 0..%d", cpu, len(k.s.cpus)-1)
	}
	if t := k.s.cpus[cpu].cur; t != nil {
		return k.handle(t), nil
	}
	return ScxTask{}, nil
}

// Waker is bpf_get_current_task_btf in select_cpu, runnable and a wake's
// enqueue: the task running on the waker's CPU (rq->curr there, which
// try_to_wake_up runs in), an invalid ScxTask for a wake from outside the
// machine (a device, a timer) or from a CPU in its idle loop. Outside a wake
// it is an error: the kernel's current is then the task of whatever the
// callback interrupted, which the core does not model.
func (k *ScxKernel) Waker() (ScxTask, error) {
	if k.waking == nil {
		return ScxTask{}, fmt.Errorf("waker: called from %s outside a wake: only select_cpu, runnable and a wake's enqueue have a waker", k.in)
	}
	if k.wakeFrom < 0 {
		return ScxTask{}, nil
	}
	if t := k.s.cpus[k.wakeFrom].cur; t != nil && t != k.waking {
		return k.handle(t), nil
	}
	return ScxTask{}, nil
}

// DSQTasks is bpf_for_each(scx_dsq, p, dsq, 0): user DSQ dsq's tasks in the
// order it dispatches them, as of the call (bpf_iter_scx_dsq_new records the
// DSQ's sequence, and tasks queued after it are not visited). The global and
// local DSQs are refused, as bpf_iter_scx_dsq_new refuses a built-in id
// other than the global one here (a policy iterates its own DSQs).
func (k *ScxKernel) DSQTasks(dsq int64) ([]ScxTask, error) {
	if dsq == ScxDSQGlobal || dsq == ScxDSQLocal || dsq&^int64(0xffff) == ScxDSQLocalOn {
		return nil, fmt.Errorf("dsq_tasks: DSQ %d is built in: iterate a user DSQ", dsq)
	}
	d := k.userDSQ(dsq)
	if d == nil {
		return nil, fmt.Errorf("dsq_tasks: DSQ %d was never created (create_dsq)", dsq)
	}
	out := make([]ScxTask, len(d.q))
	for i, t := range d.q {
		out[i] = k.handle(t)
	}
	return out, nil
}

// DSQMoveTask is scx_bpf_dsq_move(it, p, dst, enq_flags) with p a task the
// iteration reached (DSQTasks): from dispatch or timer, move that task from
// the shared DSQ holding it to dst, a CPU's local DSQ (DSQ_LOCAL for the
// callback's CPU, DSQ_LOCAL_ON|cpu) or a shared one; byVtime is
// scx_bpf_dsq_move_vtime, into a user DSQ in the order of p's dsq_vtime (set
// it first, as scx_bpf_dsq_move_set_vtime does). False, and nothing done,
// when p is no longer queued on a shared DSQ ("did someone else get to it
// while we dropped the locks?" in scx_dsq_move). A local DSQ whose CPU p
// may not run on is the policy's error (move_task_between_dsqs,
// task_can_run_on_remote_rq with enforce).
func (k *ScxKernel) DSQMoveTask(p ScxTask, dst, enqFlags int64, byVtime bool) (bool, error) {
	what := "dsq_move_task"
	if byVtime {
		what = "dsq_move_vtime"
	}
	if k.in != ScxOpDispatch && k.in != ScxOpTimer {
		return false, fmt.Errorf("%s: called from %s: only dispatch and timer move tasks", what, k.in)
	}
	if !p.Valid() {
		return false, fmt.Errorf("%s: no task", what)
	}
	t := p.t
	st := k.task(t)
	if st.dsq == scxNoDSQ || t.state != ThreadQueued {
		return false, nil
	}
	src, err := k.sharedDSQ(st.dsq)
	if err != nil {
		return false, nil
	}
	if dst == ScxDSQLocal || dst&^int64(0xffff) == ScxDSQLocalOn {
		if byVtime {
			return false, fmt.Errorf("%s: a local DSQ is FIFO: vtime ordering is for user DSQs", what)
		}
		cpu := k.thisCPU
		if dst != ScxDSQLocal {
			cpu = int(dst & 0xffff)
		}
		if cpu < 0 {
			return false, fmt.Errorf("%s: DSQ_LOCAL outside a CPU's callback", what)
		}
		if err := k.checkCPU(t, cpu, "DSQ_LOCAL_ON |"); err != nil {
			return false, fmt.Errorf("%s: %v", what, err)
		}
		k.dsqRemove(src, t)
		st.dsq = scxNoDSQ
		t.state = ThreadBlocked // in transit: insertLocal queues it
		k.insertLocal(t, cpu, enqFlags)
		k.dispatched++
		return true, nil
	}
	to, err := k.sharedDSQ(dst)
	if err != nil {
		return false, fmt.Errorf("%s: %v", what, err)
	}
	// A move to the DSQ p is on is move_task_between_dsqs's
	// dispatch_dequeue then dispatch_enqueue: p goes to the tail (or its
	// vtime place).
	if byVtime && to.id == ScxDSQGlobal {
		return false, fmt.Errorf("%s: the global DSQ is FIFO: vtime ordering is for user DSQs", what)
	}
	k.dsqRemove(src, t)
	st.dsq = scxNoDSQ
	if len(to.q) == 0 {
		to.fifo, to.vtime = false, false
	}
	switch {
	case byVtime && to.fifo:
		return false, k.undoMove(src, t, fmt.Errorf("%s: DSQ %d holds FIFO-inserted tasks: a DSQ is FIFO or vtime-ordered while it holds tasks, not both", what, to.id))
	case !byVtime && to.vtime:
		return false, k.undoMove(src, t, fmt.Errorf("%s: DSQ %d holds vtime-ordered tasks: move with dsq_move_vtime while it does", what, to.id))
	}
	if byVtime {
		k.dsqPushVtime(to, t, st.slice, st.vtime)
	} else {
		k.dsqPush(to, t, st.slice, enqFlags)
	}
	k.dispatched++
	return true, nil
}

// undoMove puts t back on src after a refused move and returns err; the
// policy is ejected by it, so only the DSQ membership matters.
func (k *ScxKernel) undoMove(src *scxDSQ, t *thread, err error) error {
	if src.vtime {
		k.dsqPushVtime(src, t, k.task(t).slice, k.task(t).vtime)
	} else {
		k.dsqPush(src, t, k.task(t).slice, 0)
	}
	return err
}

// CreateDSQNode is scx_bpf_create_dsq(id, node): node is where the kernel
// allocates the DSQ (NUMA_NO_NODE, -1, for any), checked against the
// machine's nodes; the DSQ is the same wherever it is allocated.
func (k *ScxKernel) CreateDSQNode(id, node int64) error {
	if nodes := int64(k.s.topo.Shape().Nodes); node < -1 || node >= nodes {
		return fmt.Errorf("create_dsq: node %d: the machine has nodes 0..%d (-1 for any)", node, nodes-1)
	}
	return k.CreateDSQ(id)
}

// CPUPerfCap is scx_bpf_cpuperf_cap: cpu's capacity on the kernel's scale
// (SchedCapacityScale at full speed; machine.capacity).
func (k *ScxKernel) CPUPerfCap(cpu int) (int, error) {
	if cpu < 0 || cpu >= len(k.s.cpus) {
		return 0, fmt.Errorf("cpuperf_cap: CPU %d out of range 0..%d", cpu, len(k.s.cpus)-1)
	}
	return k.s.topo.CPU(cpu).Capacity, nil
}

// The task lifecycle callbacks, where the kernel calls them in this core's
// flow:
//   - init_task(p, fork): scx_init_task, before enable. Every task of a run
//     exists when the policy loads (init runs at time 0), as the tasks
//     scx_enable initialises in its loop over all tasks (fork false); the
//     core does it at the task's first sight, as it does enable.
//   - set_weight(p, weight): scx_enable_task calls it right after enable
//     with p->scx.weight, and reweight_task_scx when the nice changes. A
//     task's weight here never changes (an rt-app task's priority is fixed),
//     so it runs once, after enable.
//   - exit_task(p): scx_exit_task, when a task exits (sched_ext_free) or the
//     policy unloads. The engine's tasks never exit (a finished rt-app
//     thread blocks for good), and an ejection hands the tasks to the fair
//     class without calling the policy, so it is never called.
//   - dequeue(p, deq_flags): ops_dequeue calls it only for a task in the BPF
//     scheduler's custody (ops_state SCX_OPSS_QUEUED: enqueued and not
//     inserted into a DSQ). This core requires enqueue to insert the task
//     (do_enqueue_task's direct dispatch, which leaves ops_state
//     SCX_OPSS_NONE), so no task is ever in that state and, as in the
//     kernel for such a policy, it is never called.

// initTask calls init_task(p, false) (scx_init_task).
func (k *ScxKernel) initTask(t *thread) bool {
	return k.call(ScxOpInitTask, t.cpu, t, func() error { return k.ops.InitTask(k, k.handle(t), false) })
}

// setWeight calls set_weight(p, p's weight) (scx_enable_task).
func (k *ScxKernel) setWeight(t *thread) bool {
	return k.call(ScxOpSetWeight, t.cpu, t, func() error {
		p := k.handle(t)
		return k.ops.SetWeight(k, p, p.Weight())
	})
}

// TimerArmed is when the core's timer fires (-1: not armed) and its CPU.
func (k *ScxKernel) TimerArmed() (int64, int) { return k.timerAt, k.timerCPU }

// TimerArmAt arms the core's timer for time at (not before now) on cpu, as
// TimerStart does for now+ns on the callback's CPU: a binding that keeps
// several timers (scxstar) arms it for the earliest.
func (k *ScxKernel) TimerArmAt(at int64, cpu int) {
	k.timerGen++
	k.timerAt = max(at, k.s.now)
	k.timerCPU = min(max(cpu, 0), len(k.s.cpus)-1)
	k.s.at(k.timerAt, evScxTimer, k.timerCPU, 0, k.timerGen)
}

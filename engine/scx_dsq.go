package engine

import (
	"fmt"
	"slices"
)

// Dispatch queues of the sched_ext core (scx.go; kernel/sched/ext.c): the
// global DSQ (SCX_DSQ_GLOBAL), user DSQs (scx_bpf_create_dsq), and each CPU's
// local DSQ, which is the CPU's runqueue (FIFO under scx) with its incoming
// list. Insertion follows dispatch_enqueue: FIFO at the tail (or the head with
// ENQ_HEAD), or in dsq_vtime order, after tasks of equal vtime; a DSQ is one
// or the other, and the built-in ones are FIFO.

// scxDSQ is a global or user DSQ.
type scxDSQ struct {
	id    int64
	vtime bool      // vtime-ordered (a vtime insert made it so)
	fifo  bool      // a FIFO insert made it so
	q     []*thread // run order
}

// sharedDelta counts t in or out of the tasks waiting in shared DSQs that
// any CPU may run (idle_while_overloaded_frac): a pinned task waits for its
// own CPU only.
func (k *ScxKernel) sharedDelta(t *thread, delta int) {
	if !t.pinned {
		k.s.m.sharedWaiting(k.s, delta)
	}
}

// countShared is what sharedDelta keeps count of, from the DSQs.
func (k *ScxKernel) countShared() int {
	n := 0
	for _, t := range k.shared() {
		if !t.pinned {
			n++
		}
	}
	return n
}

// dsqPush queues t on d (FIFO), as an insert from the core itself.
func (k *ScxKernel) dsqPush(d *scxDSQ, t *thread, slice int64, flags int64) {
	k.sharedDelta(t, 1)
	k.task(t).slice, k.task(t).granted = slice, slice
	k.task(t).dsq = d.id
	t.state = ThreadQueued
	d.fifo = true
	if flags&(ScxEnqHead|ScxEnqPreempt) != 0 {
		d.q = slices.Insert(d.q, 0, t)
		return
	}
	d.q = append(d.q, t)
}

// dsqPushVtime queues t on d in vtime order, after tasks of equal vtime.
func (k *ScxKernel) dsqPushVtime(d *scxDSQ, t *thread, slice, vtime int64) {
	k.sharedDelta(t, 1)
	st := k.task(t)
	st.slice, st.granted, st.vtime, st.dsq = slice, slice, vtime, d.id
	t.state = ThreadQueued
	d.vtime = true
	i := len(d.q)
	d.q = append(d.q, t)
	for i > 0 && k.tasks[d.q[i-1].id].vtime > vtime {
		d.q[i] = d.q[i-1]
		i--
	}
	d.q[i] = t
}

// dsqRemove takes t off d.
func (k *ScxKernel) dsqRemove(d *scxDSQ, t *thread) {
	if i := slices.Index(d.q, t); i >= 0 {
		d.q = slices.Delete(d.q, i, i+1)
		k.sharedDelta(t, -1)
	}
}

// userDSQ finds a user DSQ by id, or nil.
func (k *ScxKernel) userDSQ(id int64) *scxDSQ {
	for i := range k.dsqs {
		if k.dsqs[i].id == id {
			return &k.dsqs[i]
		}
	}
	return nil
}

// sharedDSQ resolves a non-local DSQ id: the global DSQ or a created user one.
func (k *ScxKernel) sharedDSQ(id int64) (*scxDSQ, error) {
	if id == ScxDSQGlobal {
		return &k.global, nil
	}
	if d := k.userDSQ(id); d != nil {
		return d, nil
	}
	return nil, fmt.Errorf("DSQ %d was never created (create_dsq)", id)
}

// anyQueued reports whether a shared DSQ holds a task.
func (k *ScxKernel) anyQueued() bool {
	if len(k.global.q) > 0 {
		return true
	}
	for i := range k.dsqs {
		if len(k.dsqs[i].q) > 0 {
			return true
		}
	}
	return false
}

// unqueue takes t off whatever shared DSQ holds it.
func (k *ScxKernel) unqueue(t *thread) {
	st := k.task(t)
	if st.dsq == scxNoDSQ {
		return
	}
	if d, err := k.sharedDSQ(st.dsq); err == nil {
		k.dsqRemove(d, t)
	}
	st.dsq = scxNoDSQ
}

// moveToLocal moves d's first task that may run on c into c's local DSQ
// (consume_dispatch_q), and reports whether there was one.
func (k *ScxKernel) moveToLocal(d *scxDSQ, c *cpu) bool {
	for i, t := range d.q {
		if t.pinned && t.cpu != c.id {
			continue
		}
		d.q = slices.Delete(d.q, i, i+1)
		k.sharedDelta(t, -1)
		k.task(t).dsq = scxNoDSQ
		if t.lastCPU != c.id {
			k.s.migrateCount(t, t.lastCPU, c.id)
		}
		k.s.rqInsert(c, t)
		return true
	}
	return false
}

// insert is scx_bpf_dsq_insert and scx_bpf_dsq_insert_vtime.
func (k *ScxKernel) insert(p ScxTask, dsq, slice, vtime, flags int64, byVtime bool) error {
	what := "dsq_insert"
	if byVtime {
		what = "dsq_insert_vtime"
	}
	if k.fair != nil {
		return fmt.Errorf("%s: the policy was ejected", what)
	}
	if !p.Valid() {
		return fmt.Errorf("%s: no task", what)
	}
	t := p.t
	if k.in != ScxOpSelectCPU && k.in != ScxOpEnqueue && k.in != ScxOpDispatch {
		return fmt.Errorf("%s: called from %s: only select_cpu, enqueue and dispatch insert tasks", what, k.in)
	}
	if k.insertable != t {
		if st := k.task(t); st.dsq != scxNoDSQ || t.state != ThreadBlocked {
			return fmt.Errorf("%s: pid %d is already queued or running: a task is inserted once per enqueue (dispatching it twice); move a queued task with dsq_move", what, t.id)
		}
		return fmt.Errorf("%s: pid %d is not the task being woken or enqueued", what, t.id)
	}
	if slice < 0 {
		return fmt.Errorf("%s: slice %d is negative", what, slice)
	}
	if slice == 0 {
		// scx_dsq_insert_commit: a zero slice keeps the task's own, what is
		// left of it, or 1 ns when none is.
		slice = max(k.task(t).slice, 1)
	}
	local := -1
	switch {
	case dsq == ScxDSQLocal:
		local = wakeSelected
	case dsq&^int64(0xffff) == ScxDSQLocalOn:
		cpu := int(dsq & 0xffff)
		if err := k.checkCPU(t, cpu, "DSQ_LOCAL_ON |"); err != nil {
			return fmt.Errorf("%s: %v", what, err)
		}
		local = cpu
	}
	if local != -1 {
		if byVtime {
			return fmt.Errorf("%s: a local DSQ is FIFO: vtime ordering is for user DSQs", what)
		}
		k.insertable = nil
		k.task(t).slice, k.task(t).granted = slice, slice
		k.insertLocal(t, local, flags)
		return nil
	}
	d, err := k.sharedDSQ(dsq)
	if err != nil {
		return fmt.Errorf("%s: %v", what, err)
	}
	if len(d.q) == 0 {
		// dispatch_enqueue tests the tasks a DSQ holds: an empty one takes
		// either kind of insert.
		d.fifo, d.vtime = false, false
	}
	switch {
	case byVtime && d.id == ScxDSQGlobal:
		return fmt.Errorf("%s: the global DSQ is FIFO: vtime ordering is for user DSQs", what)
	case byVtime && d.fifo:
		return fmt.Errorf("%s: DSQ %d holds FIFO-inserted tasks: a DSQ is FIFO or vtime-ordered while it holds tasks, not both", what, d.id)
	case !byVtime && d.vtime:
		return fmt.Errorf("%s: DSQ %d holds vtime-ordered tasks: insert with dsq_insert_vtime while it does", what, d.id)
	}
	k.insertable = nil
	if byVtime {
		k.dsqPushVtime(d, t, slice, vtime)
	} else {
		k.dsqPush(d, t, slice, flags)
	}
	return nil
}

// insertLocal puts t on a CPU's local DSQ (wakeSelected: the CPU the waking
// task's select_cpu returns). During a wake the engine's wake path does it
// (placeWake); otherwise the callback's own CPU takes it at once, another
// through its incoming list with the kick rule of wakeIPI, unless it goes to
// the head (ENQ_HEAD, or ENQ_PREEMPT, which dispatch_enqueue also puts
// first), which it does at once. Then local_dsq_post_enq: ENQ_PREEMPT
// preempts the CPU's task, and an idle CPU is rescheduled.
func (k *ScxKernel) insertLocal(t *thread, cpu int, flags int64) {
	s := k.s
	if k.waking == t {
		k.wakeLocal, k.wakeEnq = cpu, flags
		return
	}
	if cpu == wakeSelected {
		cpu = k.thisCPU
	}
	c := s.cpus[cpu]
	head := flags&(ScxEnqHead|ScxEnqPreempt) != 0
	if cpu != k.thisCPU && !head {
		if t.lastCPU != cpu {
			s.migrateCount(t, t.lastCPU, cpu)
		}
		s.enqueueRemote(c, t, k.thisCPU, remoteWake)
		return
	}
	if t.lastCPU != cpu {
		s.migrateCount(t, t.lastCPU, cpu)
	}
	k.localPut(c, t, head)
	if k.in == ScxOpDispatch && cpu == k.thisCPU {
		return // in balance: the CPU is already looking for its next task
	}
	k.postEnq(c, t, flags, k.thisCPU)
}

// localPut queues t on c's local DSQ, at its head or its tail.
func (k *ScxKernel) localPut(c *cpu, t *thread, head bool) {
	k.s.rqInsert(c, t)
	if head {
		copy(c.rq[1:], c.rq[:len(c.rq)-1])
		c.rq[0] = t
	}
}

// postEnq is local_dsq_post_enq for t, just queued on c's local DSQ by CPU
// from: ENQ_PREEMPT zeroes the running task's slice and reschedules c; an
// idle c is rescheduled.
func (k *ScxKernel) postEnq(c *cpu, t *thread, flags int64, from int) {
	if flags&ScxEnqPreempt != 0 && c.cur != nil && c.cur != t {
		k.kickFrom(c, ScxKickPreempt, from)
		return
	}
	if c.cur == nil {
		k.reschedIdle(c, from, t)
	}
}

// checkCPU says what is wrong with t going to cpu, or nil.
func (k *ScxKernel) checkCPU(t *thread, cpu int, what string) error {
	if cpu < 0 || cpu >= len(k.s.cpus) {
		return fmt.Errorf("%s CPU %d for pid %d: out of range 0..%d", what, cpu, t.id, len(k.s.cpus)-1)
	}
	if t.pinned && cpu != t.cpu {
		return fmt.Errorf("%s CPU %d for pid %d: not allowed (the task is pinned to CPU %d)", what, cpu, t.id, t.cpu)
	}
	return nil
}

// eject ends the policy (scx_error then scx_disable): its queued tasks go to
// their CPUs' runqueues under the fair class, idle CPUs with work are kicked,
// and the exit is recorded.
func (k *ScxKernel) eject(reason string) {
	if k.fair != nil {
		return
	}
	s := k.s
	const maxReason = 2000
	if len(reason) > maxReason {
		reason = reason[:maxReason] + "..."
	}
	k.exitNs, k.exit = s.now, reason
	k.fair = newLinuxPolicy(s)
	s.fifo = false
	s.enableFair()
	s.decide(DecPolicyExit, max(k.thisCPU, 0), -1, -1, "policy ejected: "+reason, 0)
	for _, t := range k.shared() {
		if t != k.waking && t.state == ThreadQueued {
			k.task(t).dsq = scxNoDSQ
			s.rqInsert(s.cpus[t.cpu], t)
		}
	}
	for _, c := range s.cpus {
		// The RT and DL tasks sched_ext's classes kept on hiq join the
		// fair class's queue, where the linux policy orders every class.
		hi := c.hiq
		c.hiq = nil
		for _, t := range hi {
			s.linuxInsert(c, t)
		}
	}
	k.global.q = nil
	k.dsqs = nil
	s.m.sharedWaiting(s, -s.m.nSharedWaiting)
	for _, c := range s.cpus {
		if len(c.rq) > 0 && c.cur == nil && !c.wakePending && (c.state == CPUHalted || c.state == CPUSpinning) {
			c.wakePending = true
			s.sendIPI(-1, c, IPIWakeup, -1)
		}
	}
}

// takeBack removes t from wherever a failed callback left it (a shared DSQ,
// a runqueue or an incoming list), so the fair class can place it once.
func (k *ScxKernel) takeBack(t *thread) {
	k.unqueue(t)
	for _, c := range k.s.cpus {
		if slices.Contains(c.rq, t) {
			k.s.rqRemove(c, t)
		}
		if i := slices.Index(c.incoming, t); i >= 0 {
			c.incoming = slices.Delete(c.incoming, i, i+1)
			k.s.m.queueChanged(k.s, c)
		}
	}
}

package engine

// The Linux reference policy (docs/mechanisms.md, The Linux reference;
// kernel/sched/fair.c, Linux 6.12-6.18), for comparing sched_ext's rules with
// what the default scheduler does on the same workload.
//
// Run order is the fair class's EEVDF (fair.go): weights, vruntime, lag,
// eligibility, virtual deadlines, RUN_TO_PARITY, PREEMPT_SHORT, wakeup
// preemption and DELAY_DEQUEUE, with a periodic tick (tick.go) where a spent
// slice is noticed.
//
// Wake placement is wake-affine (a sync wakeup from a CPU running only the
// waker targets the waker's CPU; an idle waker CPU or idle previous CPU is
// preferred), then select_idle_sibling (target if idle, previous CPU if idle,
// else the first idle CPU after the target in its LLC, a whole idle core
// first on an SMT machine); fork placement walks the sched domains
// (find_idlest_group). Both are in linux_topo.go.
// Balancing is newidle balancing (a CPU about to go idle pulls the tail of the
// busiest runqueue, with no IPI) and the periodic and NOHZ idle balancers.
//
// The real-time and deadline classes, and the class order, are rt.go,
// rtpush.go and dl.go.
//
// The periodic and NOHZ idle balancers are linux_lb.go's.
//
// Simplified away: wake_affine_weight and the rest of placement
// docs/mechanisms.md lists.

// linuxPolicy is Linux's classes; their state is the CPUs' queues (cfs, RT
// throttling) and the threads' entities (fair, rt, dl).
type linuxPolicy struct{}

func newLinuxPolicy(s *Sim) *linuxPolicy { return &linuxPolicy{} }

// linuxBaseSliceNs is sysctl_sched_base_slice scaled as the kernel scales it
// by default (SCHED_TUNABLESCALING_LOG in kernel/sched/fair.c's
// get_update_sysctl_factor: 1 + ilog2(min(online CPUs, 8))).
func linuxBaseSliceNs(sc Scenario) int64 {
	factor := int64(1)
	for n := min(sc.Machine.VCPUs, 8); n > 1; n >>= 1 {
		factor++
	}
	return sc.Sched.BaseSliceUs * 1000 * factor
}

// linuxIdle is idle_cpu() (kernel/sched/core.c): running the idle task
// (rq->curr == rq->idle, an interrupt taken in the idle loop included), with
// nothing queued (nr_running) and no wake on its way (ttwu_pending, the
// engine's incoming list). A CPU still spending the overhead of the task
// that left it (payDebt) is not idle yet.
func linuxIdle(c *cpu) bool {
	return c.cur == nil && c.state != CPURunning && len(c.rq) == 0 && len(c.incoming) == 0
}

func (p *linuxPolicy) placeWake(s *Sim, t *thread, from int, sync bool) placement {
	prev := t.cpu
	if t.fair.delayed {
		// try_to_wake_up finds it still queued (ttwu_runnable): no CPU is chosen.
		return placement{cpu: prev, reason: "delayed dequeue: still on its CPU's queue, requeued there (ttwu_runnable)"}
	}
	if t.class != classFair {
		return s.placeRT(t)
	}
	target := prev
	if from >= 0 && !t.pinned && s.wakeAffine(from, prev) {
		switch wc := s.cpus[from]; {
		case linuxIdle(wc) && s.sameLLC(from, prev):
			// wake_affine_idle: an interrupt on an idle CPU of the LLC;
			// an idle previous CPU is kept, for its cache.
			if !linuxIdle(s.cpus[prev]) {
				target = from
			}
		case sync && wc.cur != nil && len(wc.rq)+len(wc.incoming) == 0:
			target = from // wake_affine_idle: the waker is about to sleep
		}
	}
	if t.pinned {
		return placement{cpu: prev, reason: "pinned"}
	}
	if cpu, why := s.selectIdleSibling(prev, target); cpu >= 0 {
		return placement{cpu: cpu, reason: why}
	}
	if target == from {
		return placement{cpu: target, reason: "wake-affine: sync wakeup queued behind the waker (run to parity)"}
	}
	return placement{cpu: target, reason: "no idle CPU: the previous CPU"}
}

// wakeIPI: an idle target is woken (a busy one is not asked: wakeBusyFair
// queues the task there and checks wakeup preemption).
func (p *linuxPolicy) wakeIPI(s *Sim, c *cpu, pending, spinning bool) (bool, string) {
	if spinning {
		return false, "target CPU is in its idle loop and will see the task"
	}
	if c.wakePending {
		return false, "a reschedule IPI is already pending on the target"
	}
	return true, "wake the idle target CPU"
}

// yieldAtStepEnd: at a reschedule point the fair class picks again only if
// update_curr or a wakeup asked for it (need_resched); the running task
// yields when pick_eevdf prefers another.
func (p *linuxPolicy) yieldAtStepEnd(s *Sim, c *cpu) bool {
	if !c.cfs.resched {
		return false
	}
	c.cfs.resched = false
	return s.linuxNext(c) != c.cur
}

func (p *linuxPolicy) timeSlices() bool { return false }

func (p *linuxPolicy) preemptReason() string {
	return "EEVDF: a queued task is eligible with an earlier virtual deadline (pick_eevdf)"
}

// requeue is put_prev_task: a preempted RT task keeps the head of its
// priority, one whose RR timeslice ran out goes behind its equals.
func (p *linuxPolicy) requeue(s *Sim, c *cpu, t *thread) { s.putPrevRunnable(c, t) }

// putPrevRunnable is put_prev_task for t, leaving c runnable: a preempted RT
// task keeps the head of its priority, one whose RR timeslice ran out goes
// behind its equals.
func (s *Sim) putPrevRunnable(c *cpu, t *thread) {
	t.rt.head = t.class == classRT && !t.rt.expired
	t.rt.expired = false
	s.rqInsert(c, t)
}

// pick is pick_next_task: the classes in order, the fair class's pick last.
// A CPU whose last task was real-time or deadline first pulls the most urgent
// such task waiting elsewhere (balance_rt, balance_dl); one that still has
// such a task waiting after its pick pushes it (set_next_task_rt's
// queue_push_tasks).
func (p *linuxPolicy) pick(s *Sim, c *cpu) *thread {
	if s.nrRT > 0 && queuedHead(c) == nil && c.prevThread != nil && c.prevThread.class != classFair {
		s.pullRT(c)
	}
	t := s.linuxNext(c)
	if t != nil {
		s.rqRemove(c, t)
		if t.fair.grp != nil && t.class == classFair {
			s.fairSetNext(c, t)
		}
	}
	if s.nrRT > 0 && t != nil && t.class != classFair {
		if h := queuedHead(c); h != nil {
			c.cur = t // what runs now, for the push's comparison
			s.pushRT(c, h)
			c.cur = nil
		}
	}
	return t
}

// idleEnter is newidle balancing: pull the busiest runqueue's tail.
func (p *linuxPolicy) idleEnter(s *Sim, c *cpu) bool {
	var busiest *cpu
	var t *thread
	// sched_balance_newidle walks c's sched domains from the lowest and
	// stops at the first that pulls a task: a core's threads, its LLC, its
	// node, the machine (each when it spans more than the one below).
	for _, span := range s.newidleSpans() {
		first := c.id - c.id%span
		busiest = nil
		for _, o := range s.cpus[first : first+span] {
			if o != c && len(o.rq) > 0 && (busiest == nil || len(o.rq) > len(busiest.rq)) {
				busiest = o
			}
		}
		if busiest == nil {
			continue
		}
		// newidle balancing is the fair class's: the last fair task that
		// may move (RT and deadline tasks move by their own push and pull).
		for i := len(busiest.rq) - 1; i >= 0 && t == nil; i-- {
			if x := busiest.rq[i]; !x.pinned && x.class == classFair && !throttledPair(x, busiest, c) {
				t = x
			}
		}
		if t != nil {
			break
		}
	}
	if t == nil {
		s.updateIdleCore(c)
		return false
	}
	s.fairDetach(busiest, t)
	s.migrateCount(t, busiest.id, c.id)
	s.decide(DecNewidlePull, c.id, busiest.id, t.id, "newidle balance: pulled the busiest runqueue's tail before sleeping", int64(len(busiest.rq)+1))
	c.debtNs += s.sc.Machine.Costs.NewidleBalanceNs
	s.rqInsert(c, t)
	return true
}

// servePull handles a pull IPI: a NOHZ idle balance kick or an active
// balance's stopper (linux_lb.go).
func (p *linuxPolicy) servePull(s *Sim, c *cpu) { s.servePullLinux(c) }

func (p *linuxPolicy) shared() []*thread { return nil }

// blocked is dequeue_task(DEQUEUE_SLEEP) for the task that just blocked.
func (p *linuxPolicy) blocked(s *Sim, c *cpu, t *thread) {
	switch t.class {
	case classFair:
		s.fairDequeueSleep(c, t)
	case classDL:
		dlBlocked(t, s.now)
	}
}

// forkPlacement is wake_up_new_task's select_task_rq(WF_FORK) for a new fair
// task forked on CPU parent: sched_balance_find_dst_cpu walks the sched
// domains from the highest with SD_BALANCE_FORK down, and at each takes the
// idlest group (find_idlest_group, linux_topo.go) and in it a CPU
// (find_idlest_group_cpu), or stays in the parent's group. On the flat
// machine that is an idle CPU (the parent's if it is idle, else the first
// after it), else the least loaded one (the fewest runnable tasks; the
// parent's on a tie).
func (s *Sim) forkPlacement(t *thread, parent int) placement {
	cpu := parent
	levels := s.forkLevels()
	numa := s.topo.shape.Nodes > 1 && s.maxNodeDistance() <= reclaimDistance
	for i, lv := range levels {
		g := s.findIdlestGroup(lv, cpu, numa && i == 0)
		if g < 0 {
			continue
		}
		cpu = s.findIdlestGroupCPU(g, lv.groupSize, cpu)
	}
	if linuxIdle(s.cpus[cpu]) {
		return placement{cpu: cpu, reason: "wake_up_new_task: an idle CPU (find_idlest_cpu)"}
	}
	return placement{cpu: cpu, reason: "wake_up_new_task: the least loaded CPU (find_idlest_cpu)"}
}

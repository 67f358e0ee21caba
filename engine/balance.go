package engine

// Per-CPU kernel threads: OSv's load_balance thread and the guest's own wake
// sources (timers, device and housekeeping interrupts).
//
// load_balance (docs/mechanisms.md, Baseline; OSv's cpu::load_balance()): a pinned
// thread per CPU, started at boot (smp_launch), that sleeps BalanceIntervalMs from
// the end of each pass and then competes like any woken thread, so the load it sees
// counts the thread it preempted. If the least loaded CPU (std::min_element: the
// first with the smallest load, ties to the lowest id) has a load below this CPU's
// load minus one, it pushes one migratable thread (the runqueue's tail) there: at
// most one migration per CPU per interval, judged on an instantaneous sample.

const (
	progBalancer = iota + 1000
	progHousekeeping
)

func (s *Sim) startKernelThreads() {
	interval := s.sc.Sched.BalanceIntervalMs * 1e6
	if s.sc.Sched.Policy != "osv" {
		interval = 0 // load_balance is OSv's; the other policies balance their own way
	}
	rate := s.sc.Workload.WakeSourcesPerS
	for _, c := range s.cpus {
		if interval > 0 {
			t := s.newThread("load_balance", RoleBalancer, c.id, true)
			t.prog = progBalancer
			c.kthreads = append(c.kthreads, t)
			// All balancers start at boot (smp_launch) and re-arm after each
			// pass, so they fire nearly in lockstep.
			s.at(interval, evTimer, c.id, t.id, 0)
		}
		if rate > 0 {
			t := s.newThread("housekeeping", RoleKernel, c.id, true)
			t.prog = progHousekeeping
			c.kthreads = append(c.kthreads, t)
			s.at(s.drawExp(1e9/rate)+1, evTimer, c.id, t.id, 0)
		}
	}
}

// timerFire raises the timer interrupt of kernel thread t and re-arms it.
func (s *Sim) timerFire(t *thread) {
	c := s.cpus[t.cpu]
	switch t.prog {
	case progBalancer:
		// load_balance re-arms its timer when its pass is over (kernelNext).
	case progHousekeeping:
		s.at(s.now+s.drawExp(1e9/s.sc.Workload.WakeSourcesPerS)+1, evTimer, c.id, t.id, 0)
	}
	s.raiseIRQ(c, t, irqTimer)
}

// kernelNext is the step logic of the kernel threads (called by the workload).
func (s *Sim) kernelNext(t *thread) (int64, bool) {
	if t.arg == 0 {
		t.arg = 1
		if t.prog == progBalancer {
			return s.sc.Machine.Costs.BalancePassNs, false
		}
		return s.sc.Workload.HousekeepingNs, false
	}
	t.arg = 0
	if t.prog == progBalancer {
		s.loadBalance(s.cpus[t.cpu])
		// tmr.set(now + 100_ms) at the top of load_balance's loop: the period
		// counts from the end of a pass, so balancers drift by their wake latency.
		s.at(s.now+s.sc.Sched.BalanceIntervalMs*1e6, evTimer, t.cpu, t.id, 0)
	}
	return 0, true
}

// loadBalance is one pass of cpu::load_balance() on c (its balancer thread is
// running). c.load() counts the threads queued, plus one for the idle thread that
// sits in OSv's runqueue while the balancer runs: OSv's runqueue.size().
func (s *Sim) loadBalance(c *cpu) {
	mine := c.load()
	least := s.cpus[0]
	for _, o := range s.cpus[1:] {
		if o.load() < least.load() {
			least = o
		}
	}
	if least.load() >= mine-1 {
		return
	}
	t := c.rqTailMigratable()
	if t == nil {
		return
	}
	s.rqRemove(c, t)
	s.migrateCount(t, c.id, least.id)
	s.decide(DecBalancePush, c.id, least.id, t.id, "load_balance: least loaded CPU is below this load minus one", int64(mine))
	s.enqueueRemote(least, t, c.id, remoteBalance)
}

// migrateCount shows a thread being moved to another CPU (its new home). The
// migration itself is counted when the thread first runs there (switchTo).
func (s *Sim) migrateCount(t *thread, from, to int) {
	if from == to {
		return
	}
	s.vis.add(s.now, VisMigrate, 0, from, to, t.id, 0)
}

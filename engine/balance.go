package engine

// Per-CPU kernel threads: OSv's load_balance thread and the guest's own wake
// sources (timers, device and housekeeping interrupts).
//
// load_balance (docs/mechanisms.md, Baseline; OSv's cpu::load_balance()): a pinned
// thread per CPU that sleeps BalanceIntervalMs from the end of each pass and then
// competes like any woken thread, so the load it sees counts the thread it
// preempted. The balancers do not start together: the boot CPU's is started by
// smp_launch(), each other CPU's by ap_bringup() once that CPU is up
// (arch/x64/smp.cc; balancerStartNs). A stock pass: if the least loaded CPU
// (std::min_element: the first with the smallest load, ties to the lowest id) has a
// load below this CPU's load minus one, push one migratable thread (the runqueue's
// tail) there: at most one migration per CPU per interval, judged on an
// instantaneous sample. A drain pass (OSv pull request 1464) repeats the push,
// choosing the least loaded CPU by effective load (load plus the threads this pass
// already sent it), until that test fails, nothing migratable is left, or the
// pass has moved 8 threads per CPU.

// kernelKind is which per-CPU kernel thread a kernel thread is.
type kernelKind uint8

const (
	kernelBalancer     kernelKind = iota // load_balance
	kernelHousekeeping                   // one of the guest's own wake sources
)

// kernelThread is a per-CPU kernel thread's state (thread.local indexes
// Sim.kthreads).
type kernelThread struct {
	kind   kernelKind
	inPass bool // its step is under way (the balancer's pass, the housekeeping work)
	// pending counts, by CPU, the threads a drain pass has pushed there: they sit
	// in that CPU's incoming list, which its load does not count yet.
	pending []int
}

// newKernelThread creates a pinned kernel thread of kind on c.
func (s *Sim) newKernelThread(c *cpu, kind kernelKind) *thread {
	name, role := "load_balance", RoleBalancer
	if kind == kernelHousekeeping {
		name, role = "housekeeping", RoleKernel
	}
	t := s.newThread(name, role, c.id, true)
	t.local = len(s.kthreads)
	s.kthreads = append(s.kthreads, kernelThread{kind: kind})
	return t
}

func (s *Sim) startKernelThreads() {
	interval := s.sc.Sched.BalanceIntervalMs * 1e6
	if s.sc.Sched.Policy != "osv" {
		interval = 0 // load_balance is OSv's; the other policies balance their own way
	}
	rate := s.sc.Workload.WakeSourcesPerS
	for _, c := range s.cpus {
		if interval > 0 {
			t := s.newKernelThread(c, kernelBalancer)
			if s.sc.Sched.Balancer == "drain" {
				s.kthreads[t.local].pending = make([]int, len(s.cpus))
			}
			// load_balance's first tmr.set(now + interval) is made when the
			// thread starts; it re-arms after each pass.
			s.at(s.balancerStartNs(c.id)+interval, evTimer, c.id, t.id, 0)
		}
		if rate > 0 {
			t := s.newKernelThread(c, kernelHousekeeping)
			s.at(s.drawExp(1e9/rate)+1, evTimer, c.id, t.id, 0)
		}
	}
}

// balancerStartNs is when CPU id's load_balance thread starts, time 0 being
// smp_launch() (arch/x64/smp.cc). The boot CPU (0) starts its own balancer there,
// before any other CPU is started; a new thread that has run nothing wins the
// boot CPU at once, so it starts at 0. smp_launch then starts the other CPUs one
// after another, each with three ICR writes (INIT, SIPI, SIPI: IPISendNs each;
// the loop's two thread constructions are not priced), without waiting for any of
// them; each runs load_balance() from ap_bringup() once it is up, APBringupUs
// after its start IPIs.
func (s *Sim) balancerStartNs(id int) int64 {
	if id == 0 {
		return 0
	}
	return int64(id)*3*s.sc.Machine.Costs.IPISendNs + s.sc.Sched.APBringupUs*1000
}

// timerFire raises the timer interrupt of kernel thread t and re-arms it.
func (s *Sim) timerFire(t *thread) {
	c := s.cpus[t.cpu]
	switch s.kthreads[t.local].kind {
	case kernelBalancer:
		// load_balance re-arms its timer when its pass is over (kernelNext).
	case kernelHousekeeping:
		s.at(s.now+s.drawExp(1e9/s.sc.Workload.WakeSourcesPerS)+1, evTimer, c.id, t.id, 0)
	}
	s.raiseIRQ(c, t, irqTimer)
}

// kernelNext is the step logic of the kernel threads (called by the workload).
func (s *Sim) kernelNext(t *thread) (int64, bool) {
	k := &s.kthreads[t.local]
	if !k.inPass {
		k.inPass = true
		if k.kind == kernelBalancer {
			return s.sc.Machine.Costs.BalancePassNs, false
		}
		return s.sc.Workload.HousekeepingNs, false
	}
	k.inPass = false
	if k.kind == kernelBalancer {
		s.loadBalance(s.cpus[t.cpu], k)
		// tmr.set(now + 100_ms) at the top of load_balance's loop: the period
		// counts from the end of a pass, so balancers drift by their wake latency.
		s.at(s.now+s.sc.Sched.BalanceIntervalMs*1e6, evTimer, t.cpu, t.id, 0)
	}
	return 0, true
}

// loadBalance is one pass of cpu::load_balance() on c (its balancer thread k is
// running). c.load() counts the threads queued, plus one for the idle thread that
// sits in OSv's runqueue while the balancer runs: OSv's runqueue.size().
func (s *Sim) loadBalance(c *cpu, k *kernelThread) {
	if k.pending != nil {
		s.loadBalanceDrain(c, k.pending)
		return
	}
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
	s.balancePush(c, least, t, "load_balance: least loaded CPU is below this load minus one", mine)
}

// loadBalanceDrain is one pass of pull request 1464's cpu::load_balance(): while
// fewer than 8 threads per CPU have moved, take the least loaded CPU by
// effective load (load() plus pending[cpu], the threads this pass queued there;
// std::min_element, so the first of equals); stop if that is this CPU or its
// effective load is not below this CPU's load minus one (the load difference is
// the terminator), or if the runqueue has no migratable thread; else push the
// migratable tail there, as the stock pass does.
func (s *Sim) loadBalanceDrain(c *cpu, pending []int) {
	clear(pending)
	bound := 8 * len(s.cpus) // max_migrations_per_pass = cpus.size() * 8
	for moved := range bound {
		least := s.cpus[0]
		for _, o := range s.cpus[1:] {
			if o.load()+pending[o.id] < least.load()+pending[least.id] {
				least = o
			}
		}
		mine := c.load()
		if least == c || least.load()+pending[least.id] >= mine-1 {
			return
		}
		t := c.rqTailMigratable()
		if t == nil {
			return
		}
		if moved > 0 {
			// Each further round is another min_element and migration: one more
			// balance_pass_ns, owed by this CPU after the pass.
			c.debtNs += s.sc.Machine.Costs.BalancePassNs
		}
		s.balancePush(c, least, t, "load_balance (drain): least effective load is below this load minus one", mine)
		pending[least.id]++
	}
}

// balancePush moves queued thread t from c to least with load_balance's
// bookkeeping: onto least's incoming list, then send_wakeup_ipi() (no test of
// the incoming mask).
func (s *Sim) balancePush(c, least *cpu, t *thread, reason string, mine int) {
	s.rqRemove(c, t)
	s.migrateCount(t, c.id, least.id)
	s.decide(DecBalancePush, c.id, least.id, t.id, reason, int64(mine))
	s.enqueueRemote(least, t, c.id, remoteBalance)
}

// migrateCount shows a thread being moved to another CPU (its new home). The
// migration itself is counted when the thread first runs there (switchTo).
func (s *Sim) migrateCount(t *thread, from, to int) {
	if from == to {
		return
	}
	s.vis.add(VisEvent{AtNs: s.now, Kind: VisMigrate, CPU: int32(from), Other: int32(to), Thread: int32(t.id)})
}

package engine

// Idle-CPU pull (docs/mechanisms.md, Idle-CPU pull; OSv pull request 1472:
// cpu::try_pull_from_busiest() and cpu::donate_to_puller()).
//
// Problem: with one waker fanning out to more workers than vCPUs, workers pile up on
// a few home CPUs while the rest halt, and the 100 ms push balancer rarely sees a
// queue. Rule: a CPU entering its idle loop with an empty runqueue finds the CPU with
// the largest load (at least 2), claims that victim's single request slot
// (pull_donate_to, compare-and-swap from empty) and sends it a pull IPI. The victim,
// in its interrupt handler, clears the slot and, unless its runqueue now holds
// fewer than 2 (it keeps its last runnable thread), donates its runqueue's
// migratable tail to the puller, then sends the puller a wakeup IPI
// unconditionally.
//
// Invariants: a victim has at most one outstanding pull request (its slot); only
// idle CPUs ask, so the pull IPI rate is bounded by the idle CPUs, not the wake rate.

// idleEnter is cpu::try_pull_from_busiest, called once per pass of do_idle's loop
// before it spins. The victim is the other CPU with the largest load of at least
// wake_pull_min_depth (2); the scan keeps the last of equals (`d >= best`).
func (osvPolicy) idleEnter(s *Sim, c *cpu) bool {
	if !s.sc.Sched.WakePull || len(c.rq) > 0 {
		return false
	}
	victim, best := -1, pullMinDepth
	for _, v := range s.cpus {
		if v == c {
			continue
		}
		if l := v.load(); l >= best {
			victim, best = v.id, l
		}
	}
	if victim < 0 {
		return false
	}
	v := s.cpus[victim]
	if v.pullSlot >= 0 {
		s.decide(DecPullRefused, c.id, victim, -1, "the busiest CPU's pull slot is already taken", int64(best))
		return false
	}
	v.pullSlot = c.id
	s.decide(DecPullRequest, c.id, victim, -1, "idle with an empty runqueue; asked the busiest CPU to donate", int64(best))
	s.sendIPI(c.id, v, IPIPull, -1)
	return false // the donation arrives later, by IPI
}

// pullMinDepth is wake_pull_min_depth: a victim must run a thread and have
// another queued.
const pullMinDepth = 2

// servePull is cpu::donate_to_puller, run in the victim's pull-IPI handler before
// the interrupt's exit drains the incoming list: only threads already in the
// runqueue can be donated, the migratable tail first, and only while the
// runqueue holds at least wake_pull_min_depth (runqueue.size(), OSv's load with
// the idle thread: a victim running its last runnable thread keeps it).
func (osvPolicy) servePull(s *Sim, c *cpu) {
	puller := c.pullSlot
	c.pullSlot = -1
	if puller < 0 {
		return
	}
	if l := c.load(); l < pullMinDepth {
		s.decide(DecDonateNone, c.id, puller, -1, "its runqueue holds fewer than 2 (no queued work beyond the running thread)", int64(l))
		return
	}
	t := c.rqTailMigratable()
	if t == nil {
		s.decide(DecDonateNone, c.id, puller, -1, "nothing migratable queued (only pinned threads or none)", int64(c.load()))
		return
	}
	s.rqRemove(c, t)
	s.migrateCount(t, c.id, puller)
	s.decide(DecDonate, c.id, puller, t.id, "donated the runqueue's migratable tail to the idle CPU", int64(c.load()))
	s.enqueueRemote(s.cpus[puller], t, c.id, remoteDonate)
}

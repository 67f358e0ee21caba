package engine

import (
	"fmt"
	"math"
)

// The deadline class as kernel/sched/deadline.c runs it (Linux 6.18), under
// the linux policy (docs/mechanisms.md, The Linux reference).
//
// A SCHED_DEADLINE task reserves runtime R every period P, to be done within
// its relative deadline D (R <= D <= P). It runs by EDF, before every RT and
// fair task: the earliest absolute deadline first. CBS keeps it to its
// reservation: at a wakeup it gets a fresh deadline now+D and runtime R
// unless what is left of its current ones still fits its bandwidth
// (update_dl_entity, dl_entity_overflow); its runtime is charged as it runs
// (update_curr_dl), and when it runs out the task is throttled until its
// next period, when replenish_dl_entity gives it R again with its deadline
// one period on. Across CPUs it is global EDF: a woken task that cannot
// preempt its CPU's goes to a CPU with no DL task or the latest deadline
// (find_later_rq), and the push/pull of rt.go moves queued ones the same way.
//
// Admission control (sched_dl_overflow) refuses a reservation that would
// bring the root domain's total bandwidth over its CPUs times
// sched_rt_runtime_us/sched_rt_period_us (95%), less the fair servers'
// reservations (50 ms of every 1 s on each CPU since 6.12): 1.8 CPUs of 2 on
// this project's machines, as sched_setattr answers there (two 0.9 tasks are
// admitted, a third of 0.01 is not). GRUB reclaiming (SCHED_FLAG_RECLAIM)
// is not modelled: rt-app never asks for it.

// dlEntity is a task's sched_dl_entity, with its results.
type dlEntity struct {
	runtime, deadline int64 // what is left of this period's runtime; the absolute deadline
	dlRuntime         int64 // R, D and P, in ns
	dlDeadline        int64
	dlPeriod          int64
	throttled         bool  // dl_throttled: out of runtime until replenishAt
	replenishAt       int64 // the dl_timer's expiry while throttled
	jobDeadline       int64 // the deadline of the activation under way (a miss is a block after it)
	misses, throttles int64
	woken             bool // its next enqueue is a wakeup (ENQUEUE_WAKEUP), not a requeue or a move
}

// fairServerBW is the fair servers' bandwidth, per CPU, that admission
// control counts (fair_server_init: 50 ms every 1000 ms).
const fairServerBW = 50.0 / 1000.0

// dlAdmit is sched_dl_overflow over a machine of ncpu CPUs: reservations
// (runtime, period in µs) are admitted in order; it returns the index of the
// first refused and why, or -1.
func dlAdmit(ncpu int, rtRuntimeUs, rtPeriodUs int64, res [][2]int64) (int, string) {
	if rtRuntimeUs < 0 {
		return -1, "" // sched_rt_runtime_us = -1: no limit
	}
	capacity := float64(ncpu) * (float64(rtRuntimeUs)/float64(rtPeriodUs) - fairServerBW)
	total := 0.0
	for i, r := range res {
		total += float64(r[0]) / float64(r[1])
		if total > capacity+1e-9 {
			return i, fmt.Sprintf("SCHED_DEADLINE admission control (sched_dl_overflow) refuses it: the reservations would total %.2f CPUs, over the %.2f the root domain allows (%d CPUs × (sched_rt_runtime_us/sched_rt_period_us %.0f%% − the fair server's %.0f%%))",
				total, capacity, ncpu, 100*float64(rtRuntimeUs)/float64(rtPeriodUs), 100*fairServerBW)
		}
	}
	return -1, ""
}

// setDLPolicy makes t a SCHED_DEADLINE task of runtime, deadline and period
// (ns).
func (s *Sim) setDLPolicy(t *thread, runtime, deadline, period int64) {
	t.class = classDL
	t.dl = dlEntity{dlRuntime: runtime, dlDeadline: deadline, dlPeriod: period, woken: true}
	s.nrRT++
}

// dlEnqueue is enqueue_dl_entity for t on c: a task waking after a block
// gets a new deadline and full runtime unless its old ones still fit
// (update_dl_entity); a throttled one waits for its replenishment.
func (s *Sim) dlEnqueue(c *cpu, t *thread) {
	if c.cur != nil {
		s.chargeRuntime(c)
	}
	d := &t.dl
	if d.woken && !d.throttled && (d.deadline <= s.now || dlOverflow(d, s.now)) {
		d.deadline = s.now + d.dlDeadline
		d.runtime = d.dlRuntime
	}
	if d.woken {
		d.jobDeadline = d.deadline
	}
	d.woken = false
	s.linuxInsert(c, t)
}

// dlOverflow is dl_entity_overflow: the runtime left would run at more than
// the reserved bandwidth before the deadline left.
func dlOverflow(d *dlEntity, now int64) bool {
	left := float64(d.deadline - now)
	return float64(d.runtime)*float64(d.dlPeriod) > left*float64(d.dlRuntime)
}

// updateCurrDL is update_curr_dl for ran ns of c's running DL task: when its
// runtime runs out it is throttled until its next period (start_dl_timer at
// dl_next_period) and the CPU picks again.
func (s *Sim) updateCurrDL(c *cpu, ran int64) {
	t := c.cur
	d := &t.dl
	d.runtime -= ran
	if d.runtime > 0 || d.throttled {
		return
	}
	d.throttles++
	c.cfs.resched = true
	if at := d.deadline - d.dlDeadline + d.dlPeriod; at > s.now {
		d.throttled = true
		d.replenishAt = at
		s.at(at, evDLTimer, c.id, t.id, 0)
		return
	}
	// start_dl_timer finds the next period already begun: replenish now.
	replenish(d, s.now)
	d.missedBy(s.now)
}

// missedBy counts a miss when the activation under way is still running at
// or after its deadline (a replenishment past it: a task that never blocks
// misses each time), and makes the replenished deadline the one it is
// judged by next.
func (d *dlEntity) missedBy(now int64) {
	if d.jobDeadline > 0 && now >= d.jobDeadline {
		d.misses++
		d.jobDeadline = d.deadline
	}
}

// replenish is replenish_dl_entity: runtime R more and the deadline a
// period on until the runtime is positive; a deadline left in the past
// starts a new period from now.
func replenish(d *dlEntity, now int64) {
	for d.runtime <= 0 {
		d.deadline += d.dlPeriod
		d.runtime += d.dlRuntime
	}
	if d.deadline <= now {
		d.deadline, d.runtime = now+d.dlDeadline, d.dlRuntime
	}
}

// dlTimer is the dl_timer of a throttled task: replenish_dl_entity (runtime
// R more, the deadline a period on, until the runtime is positive), and the
// task runs again where it is, preempting a later deadline.
func (s *Sim) dlTimer(t *thread) {
	d := &t.dl
	if !d.throttled || s.now != d.replenishAt {
		return
	}
	d.throttled = false
	replenish(d, s.now)
	if t.state != ThreadBlocked {
		d.missedBy(s.now)
	}
	c := s.cpus[t.cpu]
	switch {
	case c.cur == t:
		c.cfs.resched = true // it ran on while throttled only until the resched
	case t.state == ThreadQueued && s.wakePreempt(c, t):
		s.reschedRemote(c, -1, t, "deadline class: a replenished task has the earliest deadline")
	case t.state == ThreadQueued && c.cur == nil:
		s.reschedRemote(c, -1, t, "deadline class: a replenished task can run on the idle CPU")
	}
}

// dlRunnable says whether t, a DL task on its CPU's queue, may be picked.
func dlRunnable(t *thread) bool { return !t.dl.throttled }

// dlBlocked counts a miss when a DL task's activation ends after its
// deadline.
func dlBlocked(t *thread, now int64) {
	if t.dl.jobDeadline > 0 && now > t.dl.jobDeadline {
		t.dl.misses++
	}
	t.dl.woken = true
}

// dlUtil is a reservation's bandwidth, for the explain text.
func dlUtil(d *dlEntity) float64 {
	return math.Round(1000*float64(d.dlRuntime)/float64(d.dlPeriod)) / 10
}

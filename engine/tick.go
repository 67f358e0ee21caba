package engine

// The periodic scheduler tick and timer slack of the Linux policies
// (docs/mechanisms.md, The Linux reference).
//
// A CPU running a task takes a timer interrupt every 1/HZ (sched.hz; the
// default is CONFIG_HZ=250 of the kernel the reference models, Debian's and
// this project's machines' 6.18). Its handler is sched_tick: the running
// class's task_tick (task_tick_fair: update_curr, which gives a spent slice a
// new deadline and asks for a pick), and its exit reschedules if that asked.
// The ticks fall on the jiffies grid, every CPU's at the same moments. An idle
// CPU stops its tick (CONFIG_NO_HZ_IDLE) and starts it again when it runs a
// task (tick_nohz_idle_exit).

// startTick restarts c's tick when c starts running a task.
func (s *Sim) startTick(c *cpu) {
	if c.cfs.tickAt >= 0 {
		return
	}
	c.cfs.tickAt = (s.now/s.tickNs + 1) * s.tickNs
	s.at(c.cfs.tickAt, evTick, c.id, 0, 0)
}

// tick is c's tick interrupt, or the moment an idle c stops its tick.
func (s *Sim) tick(c *cpu) {
	if s.now != c.cfs.tickAt {
		return // replaced (the tick stopped and started again)
	}
	if c.cur == nil {
		c.cfs.tickAt = -1
		return
	}
	if k, ok := s.pol.(*ScxKernel); ok && c.cur.class == classFair {
		k.tick(c) // task_tick_scx (scx_flow.go)
	}
	c.cfs.tickAt = s.now + s.tickNs
	s.at(c.cfs.tickAt, evTick, c.id, 0, 0)
	s.rrTick(c)
	if len(s.groups) > 0 {
		s.fairTickGroups(c)
	}
	s.balanceTick(c) // sched_balance_trigger (linux_lb.go)
	// irqEnd charges the run time (update_curr) and reschedules.
	s.irqArrive(c, irqTick)
}

// timerSlackNs is how late t's sleeps and timers expire: a SCHED_OTHER
// task's hrtimers get its timer_slack_ns (hrtimer_set_expires_range_ns, from
// current->timer_slack_ns; 50 µs by default, sched.timer_slack_us), which on
// a quiet CPU means the hard expiry at the end of the range. Real-time and
// deadline tasks get none (rt_or_dl_task_policy in hrtimer_nanosleep). OSv
// has no timer slack. An earlier expiry, when another interrupt on that CPU
// runs the hrtimer queue inside the range, is not modelled.
func (s *Sim) timerSlackNs(t *thread) int64 {
	if s.sc.Sched.Policy == "osv" || t.class != classFair {
		return 0
	}
	return s.sc.Sched.TimerSlackUs * 1000
}

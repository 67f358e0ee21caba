package engine

import (
	"cmp"
	"slices"
	"strings"
)

// Task groups made, tasks moved between them, and their results
// (fairgroup.go has the scheduling).

// taskGroup is the group at path, made (with its ancestors) the first time
// a task names it; nil for the root. Its settings are sched.groups' entry
// for path, else the rt-app description's ("taskgroups"), else cgroup v2's
// defaults: cpu.weight 100, cpu.max "max 100000".
func (s *Sim) taskGroup(path string) *taskGroup {
	if path == "" || path == "/" {
		return nil
	}
	for _, g := range s.groups {
		if g.path == path {
			return g
		}
	}
	parent := s.taskGroup(path[:strings.LastIndexByte(path, '/')])
	tg := &taskGroup{index: len(s.groups), path: path, parent: parent, weight: 100, quotaNs: -1, periodNs: 100_000_000, periodAt: -1}
	for _, spec := range append(s.groupSettings[:len(s.groupSettings):len(s.groupSettings)], s.sc.Sched.Groups...) {
		if spec.Path == path {
			tg.weight = cmp.Or(spec.Weight, 100)
			if spec.MaxUs > 0 {
				tg.quotaNs = spec.MaxUs * 1000
			}
			tg.periodNs = cmp.Or(spec.PeriodUs, 100_000) * 1000
		}
	}
	// sched_weight_from_cgroup: DIV_ROUND_CLOSEST(weight·1024, 100).
	tg.shares = (tg.weight*nice0Load + 50) / 100
	tg.pool = max(tg.quotaNs, 0)
	for _, c := range s.cpus {
		q := &fairRQ{}
		parentQ := &c.cfs
		if parent != nil {
			parentQ = parent.rqs[c.id]
		}
		// init_tg_cfs_entry: the entity starts at NICE_0_LOAD.
		se := &fairEntity{weight: nice0Load, slice: s.baseSliceNs, custom: true, place: placeWake, my: q}
		q.grq = &groupRQ{tg: tg, cpu: c.id, parent: parentQ, se: se}
		tg.rqs = append(tg.rqs, q)
	}
	s.groups = append(s.groups, tg)
	return tg
}

// moveTaskGroup is sched_move_task for c's running task t: it leaves its
// group's queue as a dequeue that saves its lag and relative deadline (its
// old groups' entities above go back in their trees or leave them,
// put_prev_task), joins g's queue as curr (set_next_task), and the CPU
// picks again.
func (s *Sim) moveTaskGroup(c *cpu, t *thread, g *taskGroup) {
	s.chargeRuntime(c)
	q, f := taskRQ(c, t), &t.fair
	s.saveLag(q, f, f)
	f.deadline -= f.vruntime
	f.place = placeMigrate
	c.cur = nil
	if q.grq != nil {
		s.groupPutPrev(c, q, false)
	}
	f.grp = g
	s.fairBecomeCurr(c, t)
	c.cfs.resched = true
}

// throttledPair is throttled_lb_pair: a task whose group is throttled on
// either CPU does not move between them.
func throttledPair(t *thread, src, dst *cpu) bool {
	for tg := t.fair.grp; tg != nil; tg = tg.parent {
		if tg.rqs[src.id].grq.throttled || tg.rqs[dst.id].grq.throttled {
			return true
		}
	}
	return false
}

// taskGroupResults is every task group's result, by path.
func (s *Sim) taskGroupResults() []TaskGroupResult {
	var out []TaskGroupResult
	for _, tg := range s.groups {
		thr := tg.throttledNs
		for _, q := range tg.rqs {
			if q.grq.throttled {
				thr += s.now - q.grq.throttledAt
			}
		}
		r := TaskGroupResult{Path: tg.path, Weight: tg.weight, PeriodUs: tg.periodNs / 1000,
			CPUMs: float64(tg.usageNs) / 1e6, NrPeriods: tg.nrPeriods, NrThrottled: tg.nrThrottled, ThrottledMs: float64(thr) / 1e6}
		if tg.quotaNs >= 0 {
			r.MaxUs = tg.quotaNs / 1000
		}
		if s.now > 0 {
			r.CPUFrac = float64(tg.usageNs) / float64(s.now)
		}
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b TaskGroupResult) int { return strings.Compare(a.Path, b.Path) })
	return out
}

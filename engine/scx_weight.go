package engine

// Nice values as sched_ext weights: what a policy reads as p.weight.

// niceToWeight is kernel/sched/core.c's sched_prio_to_weight, the load
// weight of nice -20 to 19 (nice 0 is 1024; each step is about 1.25x).
func niceToWeight() [40]int64 {
	return [40]int64{
		88761, 71755, 56483, 46273, 36291,
		29154, 23254, 18705, 14949, 11916,
		9548, 7620, 6100, 4904, 3906,
		3121, 2501, 1991, 1586, 1277,
		1024, 820, 655, 526, 423,
		335, 272, 215, 172, 137,
		110, 87, 70, 56, 45,
		36, 29, 23, 18, 15,
	}
}

// ScxWeightOfNice is the sched_ext weight of a task at nice: its load weight
// scaled so nice 0 is 100 (sched_weight_to_cgroup in kernel/sched/sched.h:
// DIV_ROUND_CLOSEST(weight * CGROUP_WEIGHT_DFL, 1024), within 1..10000).
// A nice outside -20..19 is clamped, as the kernel's set_user_nice does.
func ScxWeightOfNice(nice int) int64 {
	w := niceToWeight()[min(max(nice, -20), 19)+20]
	return min(max((w*100+512)/1024, 1), 10000)
}

// scxWeight gives an rt-app thread its task's weight (ScxTask.Weight).
func (w *rtappWorkload) scxWeight(t *thread) int64 {
	if t.role == RoleWorker && t.local >= 0 && t.local < len(w.thr) {
		return w.tasks[w.thr[t.local].task].scxWeight
	}
	return 100
}

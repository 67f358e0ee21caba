package engine

// WAKE_SYNC migration in sched_ext (docs/mechanisms.md, WAKE_SYNC): scx_simple
// (tools/sched_ext/scx_simple.bpf.c, scx_simple.go) on the sched_ext core
// (scx.go) with one of three WAKE_SYNC rules of scx_select_cpu_dfl
// (kernel/sched/ext_idle.c; ScxKernel.selectCPUDfl in scx_kfuncs.go): the old
// one, the one first proposed to fix it, and the new one that was merged.
//
// scx_simple keeps a FIFO local queue per CPU (the CPU's runqueue here) and one
// shared queue in vtime order. A woken task for which select_cpu finds an idle
// CPU is inserted straight into that CPU's local queue with a 20 ms slice;
// otherwise it goes on the shared queue, and that insertion kicks no idle CPU.
// There is no wakeup preemption, and an idle CPU consumes only the shared queue,
// never another CPU's local queue.
//
// select_cpu_dfl, in the published order: if the wake carries WAKE_SYNC and the
// wakee may run on the waker's CPU, it goes to the waker's CPU when
//   - old: some CPU is idle;
//   - proposed (sched_ext pull request 167 as first posted, "scx: Update
//     conditions for WAKE_SYNC migration"): the waker CPU's local queue is empty,
//     the idle test removed;
//   - new (merged): both. The reviewer asked to keep the idle test for fairness: on
//     a saturated machine the wakee would skip the shared queue it should join at
//     the end; the merged code's comment says so ("checking only for an empty
//     local DSQ is insufficient as it could give the wakee an unfair advantage
//     when the system is oversaturated").
// Then: the previous CPU if idle, any idle CPU, else the previous CPU as "not
// found" (shared queue). Idle CPUs found by the later steps are claimed (their
// idle bit cleared) so two wakes do not pick the same one; the WAKE_SYNC branch
// claims nothing.
//
// Why the old rule never recovers (all four are modelled): the WAKE_SYNC branch
// does not claim the idle CPU it saw; the shared queue kicks no idle CPU; idle CPUs
// never take from a local queue; and hackbench tasks block long before their 20 ms
// slice ends. So while any CPU is idle, sync wakes stay on the waker's CPU.

// syncRule is which WAKE_SYNC rule select_cpu_dfl applies (sched.wake_sync).
type syncRule uint8

const (
	syncOld      syncRule = iota // some CPU is idle
	syncProposed                 // the waker CPU's local queue is empty
	syncNew                      // both
)

func parseSyncRule(name string) syncRule {
	switch name {
	case "old":
		return syncOld
	case "proposed":
		return syncProposed
	}
	return syncNew
}

// Package engine is schedplay's deterministic discrete-event simulator of a
// multi-vCPU guest scheduler. It imports no UI, JS or network code: the CLI, the
// browser playground (in wasm) and the share server all run this same package, and
// one scenario plus seed gives byte-identical results on every platform.
//
// # Vocabulary
//
// A CPU (a vCPU under KVM) runs one thread at a time and has a runqueue of queued
// runnable threads in decayed-runtime order, plus an incoming list where other CPUs
// put threads they wake or donate. Its load is OSv's: queued threads plus one while
// a thread runs (the idle thread sits in the runqueue), so 0 when idle and 1 with
// one thread alone. An IPI is an inter-processor interrupt: wakeup, pull request or
// donation. The platform (native or kvm) prices everything in Costs; under KVM a
// halt is a VM exit and waking a halted vCPU costs the host scheduling it back in,
// unless the host catches the wake while it halt-polls.
//
// # Time
//
// Sim owns the clock and a typed binary heap of events ordered by (time in integer
// nanoseconds, sequence number), so same-time events run in insertion order. The
// clock moves only in Step (RunUntil and StepN are loops over it). Threads run in
// steps: the workload (workload.go) decides at the end of each step what the thread
// does and how long its next step is; the end of a step is a reschedule point.
// Interrupts pause the running step. Nothing reads the wall clock; all randomness
// comes from one PCG seeded by the scenario, and transcendental functions are the
// deterministic ones in detmath.go, because math.Exp differs between amd64 and wasm.
//
// # Mechanisms (MECHANISMS.md)
//
// Baseline (cpu.go, wake.go, balance.go, idle.go): a woken thread goes to its home
// CPU; a remote wake sends an IPI only if the target is not spinning, its load is at
// most 1 and no wake is pending (three suppression conditions, each recorded as a
// decision). The push balancer runs every 100 ms as a pinned thread that preempts
// like any wakee, so it counts the thread it preempted. Why this collapses: workers
// homed on the waker's CPU preempt the pinned waker, so that CPU's queue holds only
// the waker and nothing is migratable; the state is absorbing.
//
// Idle pull (idlepull.go): an idle CPU claims the busiest CPU's single request slot
// and asks it by IPI to donate its migratable tail. Rejected alternative: waiting for
// the balancer (one migration per 100 ms, judged on a sample that rarely sees a
// queue). Invariant: a victim has at most one outstanding request, so the pull IPI
// rate is bounded by idle CPUs, not by the wake rate.
//
// Adaptive idle spin (idle.go): each CPU's spin window snaps to the cap on a wake
// caught while spinning and halves toward the floor after K consecutive halts.
// Invariant: floor <= window <= cap. The gain comes only from avoiding VM exits, so
// it depends on host contention cutting host halt polls short (Machine).
//
// The policy interface (policy.go) is the seam for other schedulers.
package engine

// Package engine is schedplay's deterministic discrete-event simulator of a
// multi-vCPU guest scheduler. It imports no UI, JS or network code: the CLI, the
// browser playground (in wasm) and the share server all run this same package, and
// one scenario plus seed gives byte-identical results on every platform.
//
// docs/mechanisms.md is the specification: every rule below names the source
// function it follows there, and every cost its unit and source.
//
// # Vocabulary
//
// A CPU (a vCPU under KVM) runs one thread at a time and has a runqueue of queued
// runnable threads in decayed-runtime order, plus an incoming list where other CPUs
// put threads they wake or donate. Its load is OSv's cpu::load(): queued threads
// plus one while a thread runs (OSv's idle thread sits in the runqueue then), so 0
// when idle and 1 with one thread alone. An IPI is an inter-processor interrupt:
// wakeup, pull request or donation. The platform (native or kvm) prices everything
// in Costs; under KVM a halt is a VM exit and waking a halted vCPU costs the host
// scheduling it back in, unless the host catches the wake while it halt-polls.
// The machine's topology (topology.go: NUMA nodes, LLCs, cores, SMT threads, each
// CPU's capacity, node distances) is flat by default and, so far, data only: no
// rule reads it yet (issue 34).
//
// # Time
//
// Sim owns the clock and a typed binary heap of events ordered by (time in integer
// nanoseconds, sequence number), so same-time events run in insertion order. The
// clock moves only in stepBefore and advanceTo (Step, StepN and RunUntil are loops
// over it). Threads run in steps: the workload (workload.go) decides at the end of
// each step what the thread does and how long its next step is. The end of a step
// and the exit of every interrupt are reschedule points (OSv's interrupt() calls
// sched::preempt()). Nothing reads the wall clock; all randomness comes from one PCG
// seeded by the scenario, and transcendental functions are the deterministic ones
// in detmath.go, because math.Exp differs between amd64 and wasm.
//
// # Mechanisms
//
// Baseline (cpu.go, wake.go, balance.go, idle.go), OSv's core/sched.cc: threads run
// in decayed-runtime order with a 5 ms hysteresis and a preemption timer; a woken
// thread goes to its home CPU, through that CPU's incoming list even when the waker
// runs there; a remote wake sends an IPI only if the target's incoming list was
// empty, it is not spinning, and its load is at most 1 (three suppression
// conditions, each recorded as a decision); a load_balance thread per CPU, started
// as OSv brings that CPU up (smp_launch, ap_bringup), pushes one migratable thread
// per 100 ms to the first least-loaded CPU. Only the per-CPU kernel threads are
// pinned: the workloads' wakers (virtio-net's RX thread, whose interrupt follows it,
// the spawner, the log-commit thread) move like any thread (workload.go). Why one
// waker fanning out to many workers collapses onto few CPUs, and what the model
// finds of it, is in docs/model-notes.md.
//
// Idle pull (idlepull.go), OSv pull request 1472: an idle CPU claims the busiest
// CPU's single request slot and asks it by IPI to donate its migratable tail, which
// it does while its runqueue holds at least 2. Rejected alternative: waiting for the
// balancer (one migration per 100 ms, judged on a sample that rarely sees a queue).
// Invariant: a victim has at most one outstanding request, so the pull IPI rate is
// bounded by idle CPUs, not the wake rate.
//
// The faster balancer (balance.go, sched.balancer=drain), OSv pull request 1464: a
// pass keeps pushing its migratable tail to the least loaded CPU by effective load
// (load plus this pass's arrivals) until the load difference is at most one, at
// most 8 threads per CPU in one pass; its period is 10 ms (balance_interval_ms).
//
// Multiqueue receive (nic.go, workload.rx_queues and workload.rss), OSv pull
// requests 1463 and 1470: min(advertised, vCPUs, 96) RX queues, queue i's RX
// thread pinned to vCPU i; with RSS each connection is hashed onto a queue
// through a round-robin indirection table, without it every packet lands on
// queue 0. It spreads the RX work, not the threads the RX threads wake, which
// still go to their home CPUs. The thread_per_conn workload (threadconn.go) is
// the server pull request 1464 was measured on: a worker per connection,
// started on the acceptor's CPU.
//
// Adaptive idle spin (idle.go; OSv pull request 1511, over the fixed count that
// pull request 1476 made tunable): each CPU's spin window snaps to the cap on a wake
// caught while spinning and halves toward the floor after K consecutive halts (the
// published, asymmetric rule); the symmetric alternative its author measured
// doubles it on a caught wake and halves it on every halt. Invariant: floor <=
// window <= cap. Its gain comes only from avoiding VM exits, so it depends on how
// often host halt polling misses a wake (Machine).
//
// TPC-B row locks (rowlock.go, workload.tpcb_scale), PostgreSQL's under pgbench's
// tpcb-like script: a transaction's UPDATEs of a teller and a branch row hold their
// locks until its commit is durable; a second updater sleeps until the holder's
// commit wakes it through the ordinary wake. Not a scheduler mechanism: it decides
// what a backend that waits for a CPU while holding a row costs the others.
//
// rt-app descriptions (workload.kind=rtapp; rtapp_scenario.go checks them,
// rtapp_workload.go runs them as rt-app's thread_body and run_event do):
// threads that run, sleep, wait for periodic timers, and meet on mutexes,
// condition variables, barriers and semaphores; a deadlock among them ends the
// run and is reported with what each waits for (rtapp_sync.go), and the
// results are rt-app's per-task wu_lat, slack, c_duration and c_period
// (rtapp_results.go).
//
// Recorded Linux traces (workload.kind=trace; trace_scenario.go checks the
// model kerneltrace builds, trace_workload.go replays it): each thread runs
// its recorded segments, wakeups by other threads released at the waker's
// progress and counted, the others timed sleeps; the results set each
// thread's and process's recorded figures beside the replayed ones
// (trace_results.go).
//
// WAKE_SYNC (wakesync.go), sched_ext's scx_select_cpu_dfl under scx_simple, with
// the rule it replaced (old), the one first proposed (proposed) and the merged one
// (new); linux.go and fair.go, rt.go, dl.go are Linux's classes. The policy interface (policy.go) is the seam between
// the scheduler core and these policies.
package engine

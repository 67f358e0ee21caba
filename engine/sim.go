package engine

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Sim is one running simulation: the clock, the event queue, the CPUs, the threads,
// the policy, the workload and the metrics. It is not safe for concurrent use.
//
// Time moves only in stepBefore (it pops the earliest event) and advanceTo. Handlers
// schedule new events through s.at; nothing reads the wall clock, and every random
// draw comes from s.rng, seeded from the scenario.
type Sim struct {
	sc  Scenario
	now int64
	end int64
	q   eventQueue
	rng *rand.Rand
	// pcg is rng's source, kept so a checkpoint can save its state (checkpoint.go).
	pcg *rand.PCG

	cpus []*cpu
	// topo is the machine's topology table (topology.go), built from the
	// scenario; llcIdleCores is each LLC's has_idle_cores hint
	// (linux_topo.go).
	topo         *TopoTable
	llcIdleCores []bool
	// The fair class's periodic and NOHZ idle balancers (linux_lb.go): the
	// sched domains, each CPU's balancing state, and nohz.next_balance.
	lbLv     []lbLevel
	lb       []cpuLB
	nohzNext int64
	threads  []*thread
	kthreads []kernelThread // by thread.local of the per-CPU kernel threads
	pol      policy
	wl       workload

	// Decayed runtime (OSv's thread_runtime, core/sched.cc): running from t0 to t1
	// adds prio*tau*(S(t1)-S(t0)) to a thread's vr, where S(t) = e^((t-base)/tau)
	// plays the part of OSv's per-CPU normalisation constant c. Stored values never
	// decay; S grows instead, so a thread that sleeps falls behind the ones that run
	// without anyone touching it (update_after_sleep). decayScale caches S(decayAt).
	decayBase  int64
	decayTauNs float64
	decayAt    int64
	decayScale float64
	// hystFactor and penaltyFactor turn S(now) into the runtime OSv's
	// hysteresis_run_start borrows (tau*(1-e^(-thyst/tau))) and
	// add_context_switch_penalty charges (tau*(e^(penalty/tau)-1)).
	hystFactor, penaltyFactor float64

	m        metrics
	vis      visRing
	dec      decisionRing
	inflight inflight

	events  int64
	spinCap int64
	// symSpin: the adaptive window follows the symmetric rule (idle.go).
	symSpin bool
	fifo    bool // runqueues are FIFO (scx local DSQs), not decayed-runtime order
	// timeSlices is the policy's timeSlices(): a running thread is preempted by
	// timer when a queued one catches up with it.
	timeSlices bool
	// finishedNs is when a finite workload (hackbench) completed, or -1.
	finishedNs int64
	// scxOps are sched.policy=scx's callbacks, made from sched.scx.source.
	scxOps ScxOps
	// fair: the linux policy's fair class (fair.go) keeps each CPU's queue in
	// virtual-deadline order and the sched_entity sums; baseSliceNs is its
	// sysctl_sched_base_slice (scaled), tickNs the period of its tick (1/HZ).
	fair                bool
	baseSliceNs, tickNs int64
	// nrRT counts the real-time and deadline tasks (rt.go, dl.go): without
	// any, no CPU looks for one to pull. rtPeriodAt is when the RT period
	// timer fires next, -1 before the first RT task is queued.
	nrRT int
	// groups are the task groups, in the order they were first named
	// (fairgroup.go); none without them, the fair class flat.
	groups []*taskGroup
	// groupSettings are the rt-app description's task group settings (its
	// root "taskgroups"), which sched.groups' entries override.
	groupSettings []TaskGroup
	rtPeriodAt    int64
	// yielding is a thread whose program just called sched_yield (the
	// rtapp workload's yield): the reschedule that follows its step's end
	// gives its CPU to the next queued thread. nil otherwise.
	yielding *thread
}

// NewSim validates sc and builds the machine and workload at time 0. A
// scenario with a sched_ext policy's source (sched.scx.source) needs
// NewSimScx.
func NewSim(sc Scenario) (*Sim, error) { return NewSimScx(sc, nil) }

// NewSimScx is NewSim with the compiler of sched.scx.source (the Starlark
// binding's), which the engine does not link itself.
func NewSimScx(sc Scenario, compile ScxCompiler) (*Sim, error) {
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	ops, err := scxOpsFor(sc, compile)
	if err != nil {
		return nil, err
	}
	s := newSimBase(sc, ops)
	if k, ok := s.pol.(*ScxKernel); ok {
		k.start()
	}
	s.startKernelThreads()
	switch sc.Workload.Kind {
	case WorkloadRequestServer:
		s.wl = newRequestServer(s)
	case WorkloadCommit:
		s.wl = newCommitWorkload(s)
	case WorkloadHackbench:
		s.wl = newHackbench(s)
	case WorkloadSchbench:
		s.wl = newSchbench(s)
	case WorkloadSyncPairs:
		s.wl = newSyncPairs(s)
	case WorkloadThreadPerConn:
		s.wl = newThreadPerConn(s)
	case WorkloadRTApp:
		s.wl = newRTAppWorkload(s)
	case WorkloadTrace:
		s.wl = newTraceWorkload(s)
	default:
		s.wl = idleWorkload{}
	}
	// Every CPU starts idle; ones that got work at time 0 dispatch it.
	for _, c := range s.cpus {
		if k, ok := s.pol.(*ScxKernel); ok {
			k.boot(c) // sched_ext: its first schedule runs dispatch (scx_resched.go)
			continue
		}
		s.enterIdle(c)
	}
	return s, nil
}

// newSimBase builds what follows from a valid sc alone: the clock at 0, the
// empty queue and rings, the metrics, idle CPUs and the policy, but no thread,
// no event and no workload. NewSim starts the run on it; Resume (checkpoint.go)
// loads a saved state into it.
func newSimBase(sc Scenario, ops ScxOps) *Sim {
	s := &Sim{
		sc:         sc,
		scxOps:     ops,
		end:        sc.DurationMs * 1e6,
		pcg:        rand.NewPCG(sc.Seed, sc.Seed^0x5ced_91a7_d3c1_0b2f),
		decayTauNs: float64(sc.Sched.DecayTauMs) * 1e6,
		decayAt:    -1,
		spinCap:    sc.Sched.IdleSpin.Cap,
		symSpin:    sc.Sched.IdleSpin.Rule == SpinSymmetric,
		finishedNs: -1,
	}
	s.rng = rand.New(s.pcg)
	s.tickNs = 1_000_000_000 / sc.Sched.HZ
	s.baseSliceNs = linuxBaseSliceNs(sc)
	s.fair = sc.Sched.Policy == "linux"
	s.rtPeriodAt = -1
	tau := s.decayTauNs
	s.hystFactor = tau * (1 - detExp(-float64(sc.Sched.HysteresisUs)*1000/tau))
	if sc.Sched.Policy == "osv" {
		// add_context_switch_penalty is OSv's (core/sched.cc); the other policies
		// charge a thread that preempts another nothing (the knob applies to osv).
		s.penaltyFactor = tau * (detExp(float64(sc.Sched.SwitchPenaltyUs)*1000/tau) - 1)
	}
	pending := 64 + 4*sc.Machine.VCPUs + 2*sc.Workload.Clients
	s.q.h = make([]heapEntry, 0, pending)
	s.q.slab = make([]payload, 0, pending)
	s.q.free = make([]uint32, 0, pending)
	s.vis.init(4096)
	s.dec.init(1024)
	s.m.init(s)
	s.topo = mustTopoTable(sc.Machine)
	s.llcIdleCores = make([]bool, s.topo.shape.LLCs)
	for i := range s.llcIdleCores {
		s.llcIdleCores[i] = true // every core is idle at boot
	}
	for i := range sc.Machine.VCPUs {
		s.cpus = append(s.cpus, newCPU(s, i))
	}
	s.initBalancer()
	s.pol = newPolicy(s)
	s.timeSlices = s.pol.timeSlices() // asked once per step otherwise
	return s
}

// Topology is the machine's topology table: each CPU's node, LLC, core, SMT
// siblings and capacity, and the node distances. It never changes during a
// run, and its methods only read it.
func (s *Sim) Topology() *TopoTable { return s.topo }

// Scenario returns the scenario the simulation runs.
func (s *Sim) Scenario() Scenario { return s.sc }

// NowNs is the simulated time in nanoseconds.
func (s *Sim) NowNs() int64 { return s.now }

// EndNs is the simulated horizon.
func (s *Sim) EndNs() int64 { return s.end }

// Done reports whether the horizon has been reached.
func (s *Sim) Done() bool { return s.now >= s.end || s.finishedNs >= 0 }

// Events is the number of events processed so far.
func (s *Sim) Events() int64 { return s.events }

// Step processes one event; it returns false when the run is done.
func (s *Sim) Step() bool {
	if s.Done() {
		return false
	}
	if !s.stepBefore(s.end) {
		s.advanceTo(s.end)
		return false
	}
	return true
}

// stepBefore processes the earliest event if it is due before t; it reports
// whether it did. Time moves only here and in advanceTo.
func (s *Sim) stepBefore(t int64) bool {
	if at, ok := s.q.peekAt(); !ok || at >= t {
		return false
	}
	at, p := s.q.take()
	s.advanceTo(at)
	s.events++
	s.dispatch(p)
	s.q.settle()
	return true
}

// StepN processes up to n events and returns how many it processed.
func (s *Sim) StepN(n int) int {
	done := 0
	for done < n && s.Step() {
		done++
	}
	return done
}

// RunUntil processes every event due before tNs (capped at the horizon) and moves
// the clock to tNs.
func (s *Sim) RunUntil(tNs int64) { s.RunUntilN(tNs, math.MaxInt) }

// Run runs to the horizon and returns the results.
func (s *Sim) Run() Results {
	s.RunUntil(s.end)
	return s.Results()
}

// Run simulates sc to its horizon and returns the results.
func Run(sc Scenario) (Results, error) {
	s, err := NewSim(sc)
	if err != nil {
		return Results{}, err
	}
	s.SetVisual(false)
	return s.Run(), nil
}

// Window is a measured time range [FromMs, ToMs) of simulated time.
type Window struct{ FromMs, ToMs int64 }

// RunWindows simulates sc to its horizon once and returns its results over each
// window (clipped to the horizon), each with the run's whole series.
func RunWindows(sc Scenario, windows []Window) ([]Results, error) {
	s, err := NewSim(sc)
	if err != nil {
		return nil, err
	}
	idx := make([]int, len(windows))
	for i, w := range windows {
		if w.FromMs < 0 || w.ToMs <= w.FromMs {
			return nil, fmt.Errorf("engine.RunWindows: window %d is [%d, %d) ms: it must start at 0 or later and end after it starts", i, w.FromMs, w.ToMs)
		}
		idx[i] = s.AddWindow(w.FromMs, w.ToMs)
	}
	s.SetVisual(false)
	s.RunUntil(s.end)
	out := make([]Results, len(windows))
	for i := range windows {
		out[i] = s.ResultsWindow(idx[i])
	}
	return out, nil
}

// advanceTo moves the clock to t, accounting the metrics for the time passed. It
// runs once per event, so it is kept small enough to inline: a call costs the
// wasm build far more than it does natively.
func (s *Sim) advanceTo(t int64) {
	if t <= s.now || t > s.m.deferTo { // else the metrics defer it (metrics.owedFrom)
		s.m.advance(s, t) // panics if t is before now
	}
	s.now = t
}

// at schedules an event of kind k on cpu c at time t.
func (s *Sim) at(t int64, k evKind, c int, arg int, gen uint32) {
	s.q.push(t, payload{kind: k, cpu: int32(c), arg: int32(arg), gen: gen})
}

// dispatch runs the handler of the event that is due now (its payload p: a
// copy, as the event's slot is free for the handler's pushes).
func (s *Sim) dispatch(e payload) {
	switch e.kind {
	case evStepEnd, evIRQEnd, evSpinEnd, evSpinNotice, evWakeDone, evPreemptTimer, evDebtPaid:
		// CPU events carry the CPU's generation: a stale one (its step was paused,
		// its spin was cut short) is dropped here instead of being dug out of the heap.
		c := s.cpus[e.cpu]
		if e.gen != c.gen {
			return
		}
		switch e.kind {
		case evStepEnd:
			s.stepEnd(c)
		case evIRQEnd:
			s.irqEnd(c)
		case evSpinEnd:
			s.spinEnd(c)
		case evSpinNotice:
			s.spinNotice(c)
		case evPreemptTimer:
			// OSv's preemption_timer is an ordinary timer interrupt; its exit
			// reschedules (cpu::timer_fired does nothing itself).
			s.irqArrive(c, irqTimer)
		case evDebtPaid:
			s.pickNext(c) // wakes may have reached it meanwhile
		default:
			s.wakeDone(c)
		}
	case evIRQ:
		s.irqArrive(s.cpus[e.cpu], irqSource(e.arg))
	case evTick:
		s.tick(s.cpus[e.cpu])
	case evRTPeriod:
		s.rtPeriod()
	case evCFSPeriod:
		s.cfsPeriod(s.groups[e.arg])
	case evDLTimer:
		s.dlTimer(s.threads[e.arg])
	case evTimer:
		s.timerFire(s.threads[e.arg])
	case evScxTimer:
		s.pol.(*ScxKernel).timerFire(e.gen)
	case evScxWatchdog:
		s.pol.(*ScxKernel).watchdog()
	default:
		s.wl.event(s, event{at: s.now, kind: e.kind, cpu: e.cpu, arg: e.arg, gen: e.gen})
	}
}

// decayScaleNow returns e^((now-base)/tau), renormalizing every thread's stored
// runtime when the exponent grows large, so values stay far from overflow.
func (s *Sim) decayScaleNow() float64 {
	if s.decayAt == s.now {
		return s.decayScale // most calls: several per event, all at one time
	}
	return s.decayScaleAt()
}

// decayScaleAt computes decayScaleNow's value for a new now.
func (s *Sim) decayScaleAt() float64 {
	x := float64(s.now-s.decayBase) / s.decayTauNs
	if x > 20 {
		// OSv renormalises when c passes 2^63; here every stored value in S units
		// is rescaled at once, which keeps comparisons exact.
		f := detExp(-x)
		for _, t := range s.threads {
			t.vr = float64(t.vr * f)
		}
		for _, c := range s.cpus {
			c.segScale = float64(c.segScale * f)
			c.hystCredit = float64(c.hystCredit * f)
		}
		s.decayBase = s.now
		x = 0
	}
	s.decayAt = s.now
	s.decayScale = detExp(x)
	return s.decayScale
}

// drawExp draws an exponential duration with the given mean, in ns.
func (s *Sim) drawExp(meanNs float64) int64 {
	u := s.rng.Float64()
	return int64(-meanNs * detLog(1-u))
}

// drawDist draws a duration from d, in ns (at least 1).
func (s *Sim) drawDist(d Dist) int64 {
	mean := d.MeanUs * 1000
	var v float64
	switch d.Dist {
	case "fixed":
		v = mean
	case "exp":
		v = float64(s.drawExp(mean))
	case "uniform":
		half := float64(mean*d.CV) * 1.7320508075688772
		v = mean - half + float64(2*half*s.rng.Float64())
	case "lognormal":
		// sigma^2 = ln(1+cv^2); mu = ln(mean) - sigma^2/2; Box-Muller for the normal.
		s2 := detLog(1 + float64(d.CV*d.CV))
		sigma := sqrt(s2)
		u1, u2 := 1-s.rng.Float64(), s.rng.Float64()
		z := sqrt(-2*detLog(u1)) * cos2pi(u2)
		v = detExp(float64(detLog(mean)-s2/2) + float64(sigma*z))
	}
	if v < 1 {
		v = 1
	}
	return int64(v)
}

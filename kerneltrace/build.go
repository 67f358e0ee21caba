package kerneltrace

// Build: one pass over the events in time order, keeping per thread its
// state (Perfetto's thread_state rules: switch-out opens prev_state, a
// waking makes a blocked thread runnable, a new task is runnable) and the
// segment under construction. Which rule of TRACES.md section 3 each case
// follows is said where it is handled.

import (
	"fmt"
)

type runState uint8

const (
	stNone     runState = iota // not seen yet in a state: its past is outside the trace
	stRunning                  // on a CPU since runStart
	stRunnable                 // woken or preempted, waiting for a CPU since readySince
	stBlocked                  // switched out blocked at blockTs
	stDead                     // exited, or freed
)

// live is a thread's state during the walk.
type live struct {
	id    ThreadID
	state runState
	cpu   int32 // last CPU it ran on, -1 before
	// modeled: the current segment is part of the model. A thread whose past
	// is outside the trace is not modeled until its first wakeup (unless
	// Options.KeepCut).
	modeled bool
	cur     Segment // the segment under construction
	// tgidLater: the thread's Tgid is the trace's map's (Trace.Tgid), read
	// when needed (tgidNow) or at the end, since a stream may give it later.
	tgidLater bool
	fresh     bool // created by a new-task event and not run yet
	exiting   bool // sched_process_exit seen: its switch-out ends it

	runStart, readySince, wokenAt, blockTs int64
	blockIO                                bool

	lat                []int64 // wake-to-run latencies, ns
	cpuNs, runnableNs  int64
	migrations, wakeup int
}

type builder struct {
	// tr holds what the trace says outside events (Tgid, Comm,
	// ValidFromNs). While a stream is read, its maps may still be filling:
	// the lookups made are kept in seen for a check once it is whole.
	tr    *Trace
	opts  Options
	m     *Model
	start int64
	end   int64
	// begun: the first event was seen (it sets the window's start); last is
	// the latest event's time, the window's end when EndNs is 0.
	begun bool
	last  int64
	live  map[int32]*live // the current generation of each tid
	st    []*live         // per ThreadID
	// hasWaking says whether the trace holds sched_waking; asked the first
	// time a sched_wakeup needs it, and kept.
	hasWaking   func() bool
	wakingAsked int8 // 0: not asked yet, 1: no, 2: yes
	// onCPU is the thread each CPU last switched to (nil: idle): a switch
	// there from another thread means its switch-out was lost.
	onCPU map[int32]*live
	// seen records, when non-nil, what the walk read of tr before tr was
	// whole (a streamed first pass), so that it can be checked after.
	seen *seenFacts
}

// Build turns a trace into a replay model (see model.go). It never fails on
// what a decoder returned; an error means the options are wrong.
func Build(tr *Trace, opts Options) (*Model, error) {
	if tr == nil {
		return nil, fmt.Errorf("kerneltrace: Build: no trace")
	}
	hasWaking := false
	for i := range tr.Events {
		if tr.Events[i].Kind == KindWaking && !tr.Events[i].WakeupOnly {
			hasWaking = true
			break
		}
	}
	b, err := newBuilder(tr, opts, func() bool { return hasWaking })
	if err != nil {
		return nil, err
	}
	for i := range tr.Events {
		b.add(&tr.Events[i])
	}
	return b.done(), nil
}

// newBuilder starts a model; events come through add in (Ts, CPU) order.
func newBuilder(tr *Trace, opts Options, hasWaking func() bool) (*builder, error) {
	if opts.StartNs < 0 || opts.EndNs < 0 || (opts.EndNs > 0 && opts.EndNs <= opts.StartNs) {
		return nil, fmt.Errorf("kerneltrace: Options: window [%d, %d) is empty or negative", opts.StartNs, opts.EndNs)
	}
	if opts.CPUs < 0 || opts.CPUs > MaxCPUs {
		return nil, fmt.Errorf("kerneltrace: Options.CPUs: %d is outside [0, %d]", opts.CPUs, MaxCPUs)
	}
	return &builder{tr: tr, opts: opts, m: &Model{}, live: make(map[int32]*live), onCPU: make(map[int32]*live),
		hasWaking: hasWaking, start: opts.StartNs, end: opts.EndNs}, nil
}

// begin settles the window at the first event.
func (b *builder) begin(first int64) {
	b.begun = true
	if b.opts.FromFirst {
		b.start += first
		if b.opts.EndNs > 0 {
			b.end += first
		}
	} else if b.start == 0 {
		b.start = first
	}
	// Events lost before ValidFromNs: the window starts after (TRACES.md 3, pitfall 4).
	if b.seen != nil {
		b.seen.start, b.seen.validFrom = b.start, b.tr.ValidFromNs
	}
	b.start = max(b.start, b.tr.ValidFromNs)
}

// add walks one event; events must come in the order Trace.Events holds them.
func (b *builder) add(e *Event) {
	if !b.begun {
		b.begin(e.Ts)
	}
	b.last = e.Ts
	if e.Ts < b.start || e.Ts >= b.end && b.opts.EndNs > 0 {
		return
	}
	b.m.Counts.Events++
	b.event(e)
}

// done closes the walk and returns the model.
func (b *builder) done() *Model {
	if !b.begun {
		b.start = max(b.start, b.tr.ValidFromNs)
	} else if b.opts.EndNs == 0 {
		b.end = b.last
	}
	if b.end < b.start {
		b.end = b.start
	}
	b.m.CPUs = b.tr.CPUs
	if b.opts.CPUs > 0 {
		b.m.CPUs = b.opts.CPUs
	}
	b.m.StartNs, b.m.EndNs = b.start, b.end
	b.settleTgids()
	b.finish()
	kept := filter(b.m, b.opts)
	lat := make([][]int64, len(b.m.Threads))
	for i := range lat {
		old := ThreadID(i)
		if kept != nil {
			old = kept[i]
		}
		lat[i] = b.st[old].lat
	}
	processes(b.m, lat, b.tr.Comm)
	return b.m
}

// get returns tid's current thread, creating it (state stNone) if new.
func (b *builder) get(tid int32, comm string, prio int32) *live {
	if l := b.live[tid]; l != nil {
		return l
	}
	return b.create(tid, comm, prio)
}

// create starts a new generation of tid.
func (b *builder) create(tid int32, comm string, prio int32) *live {
	gen := int32(0)
	if old := b.live[tid]; old != nil {
		gen = b.m.Threads[old.id].Gen + 1
	}
	if comm == "" {
		comm = b.commOf(tid)
	}
	id := ThreadID(len(b.m.Threads))
	b.m.Threads = append(b.m.Threads, Thread{Tid: tid, Gen: gen, Names: []string{comm},
		Prio: prio, PinnedCPU: pinnedCPU(comm)})
	l := &live{id: id, cpu: -1, wokenAt: -1, tgidLater: true}
	b.live[tid] = l
	b.st = append(b.st, l)
	return l
}

func (b *builder) thread(l *live) *Thread { return &b.m.Threads[l.id] }

// flush moves a running thread's run time up to ts into its counters and
// its current segment.
func (b *builder) flush(l *live, ts int64) {
	if l.state != stRunning || ts < l.runStart {
		return
	}
	run := ts - l.runStart
	l.cpuNs += run
	if l.modeled {
		l.cur.RunNs += run
	}
	l.runStart = ts
}

// push ends l's current segment with end and starts the next.
func (b *builder) push(l *live, end End) {
	t := b.thread(l)
	l.cur.End = end
	t.Segments = append(t.Segments, l.cur)
	l.cur = Segment{}
	switch end.Kind {
	case EndExit:
		b.m.Counts.Exits++
	case EndSpawn:
		b.m.Counts.Spawns++
	}
}

// seg is l's current segment index.
func (b *builder) seg(l *live) int32 { return int32(len(b.thread(l).Segments)) }

func (b *builder) event(e *Event) {
	switch e.Kind {
	case KindSwitch:
		b.switchOut(e)
		b.switchIn(e)
	case KindWaking:
		// A trace with sched_waking has sched_wakeup as a second, later
		// report of the same wakeups (perfetto docs, cpu-scheduling.md).
		if e.Target > 0 && !(e.WakeupOnly && b.traceHasWaking()) {
			b.waking(e)
		}
	case KindNew:
		if e.Target > 0 {
			b.newTask(e)
		}
	case KindRename:
		if l := b.live[e.Target]; l != nil && e.Comm != "" {
			t := b.thread(l)
			t.Names = append(t.Names, e.Comm)
			t.PinnedCPU = pinnedCPU(e.Comm)
		}
	case KindExit:
		if l := b.live[e.Target]; l != nil {
			l.exiting = true
			if e.Tgid > 0 {
				b.thread(l).Tgid, l.tgidLater = e.Tgid, false
			}
		}
	case KindFree:
		if l := b.live[e.Target]; l != nil && l.state != stDead {
			b.flush(l, e.Ts)
			if l.modeled && l.state != stNone {
				b.push(l, End{Kind: EndExit, AtTs: e.Ts})
			}
			l.state = stDead
		}
	}
}

func (b *builder) switchOut(e *Event) {
	if c := b.onCPU[e.CPU]; c != nil && c.state == stRunning && c.cpu == e.CPU && (e.PrevPid <= 0 || b.live[e.PrevPid] != c) {
		// The CPU switches from another thread than the one it last
		// switched to: that one's switch-out was lost (a tracefs text
		// trace can miss one). It ran until now at most; take it as
		// preempted, not as running to the trace's end.
		b.flush(c, e.Ts)
		c.state, c.readySince, c.wokenAt = stRunnable, e.Ts, -1
		b.m.Counts.LostSwitches++
	}
	delete(b.onCPU, e.CPU)
	if e.PrevPid <= 0 { // idle (swapper), or unknown (a compact first switch)
		return
	}
	p := b.get(e.PrevPid, e.PrevComm, e.PrevPrio)
	switch p.state {
	case stRunning:
		b.flush(p, e.Ts)
	case stNone, stDead:
		if p.state == stDead {
			p = b.create(e.PrevPid, e.PrevComm, e.PrevPrio)
		}
		// Running when the window opened: its run so far is seen from the
		// window's start, its past before is not (pitfall 3).
		b.censoredStart(p)
		p.state, p.runStart = stRunning, b.start
		b.flush(p, e.Ts)
	default:
		// Switched out while we thought it runnable or blocked: an event was
		// lost. Its run since is unknown; take none.
	}
	p.cpu = e.CPU
	switch {
	case p.exiting || e.PrevState.Dead():
		if p.modeled {
			b.push(p, End{Kind: EndExit, AtTs: e.Ts})
		}
		p.state = stDead
	case e.PrevState.Runnable(): // preempted: the segment goes on
		p.state, p.readySince, p.wokenAt = stRunnable, e.Ts, -1
	default:
		p.state, p.blockTs, p.blockIO = stBlocked, e.Ts, e.PrevState.IOWait()
	}
}

// censoredStart marks a thread whose past lies before the window.
func (b *builder) censoredStart(l *live) {
	t := b.thread(l)
	t.CutFirst = true
	b.m.Counts.CutFirst++
	if b.opts.KeepCut {
		l.modeled = true
		t.Start = End{Kind: EndTimer, AtTs: b.start}
	}
}

func (b *builder) switchIn(e *Event) {
	if e.NextPid <= 0 {
		return
	}
	n := b.get(e.NextPid, e.NextComm, e.NextPrio)
	switch n.state {
	case stNone, stDead:
		if n.state == stDead {
			n = b.create(e.NextPid, e.NextComm, e.NextPrio)
		}
		// Runnable when the window opened, without a wakeup seen (pitfall 3).
		b.censoredStart(n)
		n.runnableNs += e.Ts - b.start
	case stRunnable:
		n.runnableNs += e.Ts - n.readySince
		if n.wokenAt >= 0 {
			n.lat = append(n.lat, e.Ts-n.wokenAt)
		}
	case stBlocked:
		// Switched in with no wakeup seen (lost, or not traced): a timed sleep.
		b.m.Counts.TimerUnknownWaker++
		b.wake(n, End{Kind: EndTimer, SleepNs: e.Ts - n.blockTs, AtTs: e.Ts}, e.Ts)
	case stRunning:
		b.flush(n, e.Ts) // on two CPUs at once: a switch-out was lost
	}
	if n.cpu >= 0 && n.cpu != e.CPU {
		n.migrations++
	}
	n.fresh = false
	n.cpu, n.state, n.runStart, n.wokenAt = e.CPU, stRunning, e.Ts, -1
	b.onCPU[e.CPU] = n
}

func (b *builder) waking(e *Event) {
	w := b.get(e.Target, e.Comm, e.Prio)
	switch w.state {
	case stRunning, stRunnable, stDead:
		// Spurious: the target is not blocked (Perfetto thread_state_tracker
		// ignores these the same way; pitfall 2).
		b.m.Counts.Spurious++
		return
	case stNone:
		// Asleep since before the window: nothing of it is cut, its first
		// segment starts at this wakeup.
		w.blockTs = b.start
	}
	end := b.wakeEnd(e, w)
	b.wake(w, end, e.Ts)
}

// wakeEnd decides whether a wakeup is a dependency on its waker or a timed
// sleep (TRACES.md 3, Block), and records the edge on the waker's side.
func (b *builder) wakeEnd(e *Event, w *live) End {
	timer := End{Kind: EndTimer, SleepNs: e.Ts - w.blockTs, AtTs: e.Ts}
	c := &b.m.Counts
	switch {
	case b.opts.AllTimed:
		return timer
	case e.Pid == 0:
		c.TimerIdle++
		return timer
	case e.IRQ:
		c.TimerIRQ++
		return timer
	case w.blockIO:
		c.TimerIOWait++
		return timer
	case e.Pid < 0, e.WakeupOnly && !b.opts.TrustWakeup:
		c.TimerUnknownWaker++
		return timer
	}
	k := b.live[e.Pid]
	if k != nil && kernelWaker(b.thread(k).Name()) {
		c.TimerKernel++
		return timer
	}
	if k == nil || k.state != stRunning || !k.modeled || k == w {
		c.TimerUnknownWaker++
		return timer
	}
	b.flush(k, e.Ts)
	wakeeSeg := b.seg(w)
	if !w.modeled {
		wakeeSeg = -1
	}
	k.cur.Wakes = append(k.cur.Wakes, Wake{Wakee: w.id, WakeeSeg: wakeeSeg, AtNs: k.cur.RunNs})
	return End{Kind: EndWakeBy, Waker: k.id, WakerSeg: b.seg(k), AtNs: k.cur.RunNs, SleepNs: timer.SleepNs, AtTs: e.Ts}
}

// wake makes a blocked (or never seen) thread runnable with end closing
// its segment, or starting it.
func (b *builder) wake(w *live, end End, ts int64) {
	if end.Kind == EndWakeBy {
		b.m.Counts.WakeEdges++
	} else {
		b.m.Counts.Timers++
	}
	if w.modeled {
		b.push(w, end)
	} else {
		// The first segment of the model starts here: as a Start, a timer
		// counts from the window's start.
		if end.Kind == EndTimer {
			end.SleepNs = ts - b.start
		}
		b.thread(w).Start = end
		w.modeled = true
	}
	w.wakeup++
	w.state, w.readySince, w.wokenAt = stRunnable, ts, ts
}

func (b *builder) newTask(e *Event) {
	if c := b.live[e.Target]; c != nil && c.fresh {
		return // task_newtask, then sched_process_fork or sched_wakeup_new: one child
	}
	c := b.create(e.Target, e.Comm, e.Prio)
	ct := b.thread(c)
	parent := b.live[e.Pid]
	if parent != nil && e.CloneFlags&cloneThread != 0 {
		// A thread joins its parent's process: the parent's group, or the
		// parent itself when the trace gives none.
		ct.Tgid, c.tgidLater = b.thread(parent).Tid, false
		if g := b.tgidNow(parent); g != 0 {
			ct.Tgid = g
		}
	}
	// Otherwise the child's group is the trace's, or (finish) its own tid: a
	// new process.
	c.fresh, c.modeled = true, true
	c.state, c.readySince, c.wokenAt = stRunnable, e.Ts, e.Ts
	if parent != nil && parent.state == stRunning && parent.modeled && !b.opts.AllTimed && e.Pid > 0 {
		b.flush(parent, e.Ts)
		ct.Start = End{Kind: EndSpawned, Waker: parent.id, WakerSeg: b.seg(parent), AtNs: parent.cur.RunNs, AtTs: e.Ts}
		b.push(parent, End{Kind: EndSpawn, Child: c.id, AtTs: e.Ts})
		return
	}
	ct.Start = End{Kind: EndTimer, SleepNs: e.Ts - b.start, AtTs: e.Ts}
}

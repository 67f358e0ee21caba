package trace

// Perfetto's own format: WritePerfetto writes a run as protobuf with ftrace
// sched events and a process tree, the way a Linux recording looks, so that
// Perfetto's CPU scheduling tracks, thread states and waker links, and
// trace_processor's sched tables (sched_slice, thread_state), work on a
// simulated run; and kerneltrace reads it back (the round trip of issue 35).
//
// What maps to what:
//
//   - a CPU that starts running a thread (VisRun, or VisState running): a
//     sched_switch from the thread it ran (or swapper/N, pid 0 when idle) to
//     it; prev_state is S when the previous thread blocked (VisBlock), R+
//     (0x100, Linux 4.14+'s preempted bit) when it was preempted;
//   - a thread blocking: a sched_switch to swapper/N with prev_state S,
//     unless the CPU switches to another thread at the same instant (then one
//     switch, as Linux writes it);
//   - a wake (VisWake): a sched_waking on the waker's CPU whose pid (the
//     event's common_pid) is the thread running there: the waker, or 0 when
//     an interrupt or the idle loop wakes it (common_flags then marks
//     hardirq). A wake from outside the machine goes on the target CPU from
//     pid 0;
//   - the scheduler's decisions (unless Options.NoDecisions): track events,
//     instants named by the decision's kind on one track per deciding CPU,
//     with the reason, target, thread and value as debug annotations.
//
// Threads are tid 1000+id of one process, pid 1000 "schedplay"; each thread's
// prio is its class's and nice's (kernelPrio), 120 for a nice 0 fair task.
// The engine's threads exist from the start and never exit, and it reports
// no creation: no task_newtask, sched_wakeup_new or sched_process_exit is
// written (kerneltrace reads a thread first seen woken as asleep since
// before the trace, which is what it was).
//
// Events are buffered per CPU and written as one FtraceEventBundle per CPU
// every bundleEvents events (and at the end), as traced_probes does; only the
// order within a CPU matters to readers, which merge CPUs by timestamp.

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"

	"google.golang.org/protobuf/encoding/protowire"

	"schedplay/engine"
)

// Perfetto thread and process ids of a simulated run.
const (
	pfPid     = 1000
	pfTidBase = 1000
	pfPrio    = 120
	// bundleEvents is how many events a CPU buffers before its bundle is
	// written: bundles of a few hundred events keep memory small.
	bundleEvents = 512
	// pfSeqID is the packet sequence of the track events (ftrace packets
	// need none).
	pfSeqID = 1
)

// pfCPU is a CPU's state as the writer sees it.
type pfCPU struct {
	cur int32 // running thread, -1 when idle
	irq bool  // in an interrupt handler
	// blocked is the thread that blocked at blockedAt and whose switch-out is
	// not written yet (-1: none): a run at the same instant makes one switch.
	blocked   int32
	blockedAt int64
	buf       []byte // encoded FtraceEvent fields of the bundle being filled
	n         int
}

type pfWriter struct {
	bw           *bufio.Writer
	sim          *engine.Sim
	opts         Options
	start, until int64
	begun        bool
	stopped      bool
	stopNs       int64
	err          error
	cpus         []pfCPU
	names        []string // per thread
	prios        []int64  // per thread: its kernel prio (kernelPrio)
	decTracks    []bool   // per CPU (+1: external): descriptor written
	seqStarted   bool
	stats        Stats
}

// WritePerfetto runs sim from its current time to opts.UntilNs (or its
// horizon) and writes the window [opts.StartNs, opts.UntilNs) to w as a
// Perfetto protobuf trace. Options are those of Write (CompletionBucketNs and
// NoMigrations have no effect here). It takes over sim.Observe for the call.
func WritePerfetto(w io.Writer, sim *engine.Sim, opts Options) (Stats, error) {
	start, until, err := window(sim, opts)
	if err != nil {
		return Stats{}, err
	}
	pw := &pfWriter{bw: bufio.NewWriterSize(w, 64<<10), sim: sim, opts: opts, start: start, until: until}
	var snap engine.Snapshot
	sim.Snapshot(&snap)
	pw.cpus = make([]pfCPU, sim.NumCPUs())
	for i := range pw.cpus {
		c := &pw.cpus[i]
		c.cur, c.blocked = -1, -1
		if st := snap.CPUs[i]; st.State == engine.CPURunning && st.Running >= 0 {
			c.cur = int32(st.Running)
		}
	}
	pw.decTracks = make([]bool, len(pw.cpus)+1)
	for _, t := range snap.Threads {
		for t.ID >= len(pw.names) {
			pw.names = append(pw.names, "")
			pw.prios = append(pw.prios, pfPrio)
		}
		pw.names[t.ID] = t.Name
		pw.prios[t.ID] = kernelPrio(t)
	}
	sim.Observe(pw.observe)
	defer sim.Observe(nil)
	pw.header()
	runChunks(sim, until, opts.Progress, &pw.stopped)
	end := sim.NowNs()
	if pw.stopped && pw.stopNs > 0 {
		end = pw.stopNs
	}
	for i := range pw.cpus {
		pw.flushBlock(int32(i), end+1)
		pw.flushBundle(int32(i))
	}
	pw.stats.StartNs, pw.stats.EndNs = start, end
	if err := pw.bw.Flush(); err != nil && pw.err == nil {
		pw.err = fmt.Errorf("trace: writing: %w", err)
	}
	return pw.stats, pw.err
}

// packet writes one Trace.packet.
func (pw *pfWriter) packet(body []byte) {
	if pw.err != nil {
		return
	}
	b := protowire.AppendTag(pw.bw.AvailableBuffer(), 1, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(len(body)))
	n1, err1 := pw.bw.Write(b)
	n2, err2 := pw.bw.Write(body)
	pw.stats.Bytes += int64(n1 + n2)
	if err := errors.Join(err1, err2); err != nil {
		pw.err = fmt.Errorf("trace: writing: %w", err)
		pw.stopped = true
	}
	if pw.opts.MaxBytes > 0 && pw.stats.Bytes > pw.opts.MaxBytes && !pw.stopped {
		pw.stopped, pw.stats.Truncated = true, true
		pw.stopNs = pw.sim.NowNs()
	}
}

// header writes the system info (Linux 4.14+ prev_state layout) and the
// process tree, with every thread's name.
func (pw *pfWriter) header() {
	uts := appendStr(appendStr(nil, 1, "Linux"), 3, "6.18.0-schedplay")
	pw.packet(appendMsg(nil, 45, appendMsg(nil, 1, uts))) // system_info.utsname
	tree := appendMsg(nil, 1, appendStr(appendVarint(nil, 1, pfPid), 3, "schedplay"))
	for id, name := range pw.names {
		th := appendVarint(nil, 1, uint64(pfTidBase+id))
		th = appendStr(th, 2, name+" #"+strconv.Itoa(id))
		th = appendVarint(th, 3, pfPid)
		tree = appendMsg(tree, 2, th)
	}
	pw.packet(appendMsg(nil, 2, tree)) // process_tree
}

func (pw *pfWriter) tid(thread int32) int32 {
	if thread < 0 {
		return 0
	}
	return pfTidBase + thread
}

// kernelPrio is the prio a sched_switch shows for t (task_struct.prio):
// 120 + nice for a fair task (a SCHED_IDLE one's nice is 0), 99 - its RT
// priority for a real-time one, -1 for a deadline one. Outside the linux
// policy every thread is a nice 0 fair task.
func kernelPrio(t engine.ThreadSnap) int64 {
	switch {
	case t.Class == engine.ClassDL:
		return -1
	case t.Class == engine.ClassRT:
		return 99 - int64(t.RTPrio)
	case t.Weight > 0 && t.Weight != engine.WeightIdlePrio:
		return 120 + int64(engine.NiceOfWeight(t.Weight))
	}
	return pfPrio
}

// prio is thread's prio as the wire carries an int32 (negative ones as
// ten-byte varints); a thread started after the trace began has nice 0's.
func (pw *pfWriter) prio(thread int32) uint64 {
	if thread >= 0 && int(thread) < len(pw.prios) {
		return uint64(pw.prios[thread])
	}
	return pfPrio
}

func (pw *pfWriter) comm(thread int32, cpu int) string {
	if thread < 0 {
		return "swapper/" + strconv.Itoa(cpu)
	}
	if int(thread) < len(pw.names) {
		return pw.names[thread] + " #" + strconv.Itoa(int(thread))
	}
	return "thread #" + strconv.Itoa(int(thread))
}

func (pw *pfWriter) observe(e engine.VisEvent) {
	if pw.stopped {
		return
	}
	if !pw.begun && e.AtNs >= pw.start {
		pw.begun = true
	}
	cpu := e.CPU
	valid := cpu >= 0 && int(cpu) < len(pw.cpus)
	switch e.Kind {
	case engine.VisRun:
		if valid {
			pw.run(cpu, e.Thread, e.AtNs)
		}
	case engine.VisState:
		if !valid {
			return
		}
		c := &pw.cpus[cpu]
		c.irq = engine.CPUState(e.Arg) == engine.CPUIRQ
		switch {
		case engine.CPUState(e.Arg) == engine.CPURunning && e.Thread >= 0:
			pw.run(cpu, e.Thread, e.AtNs)
		case e.Thread < 0 && c.cur >= 0:
			// The running thread left without blocking: preempted to idle.
			pw.switchTo(cpu, -1, 0x100, e.AtNs)
		}
	case engine.VisBlock:
		if valid && pw.cpus[cpu].cur == e.Thread {
			pw.flushBlock(cpu, e.AtNs)
			c := &pw.cpus[cpu]
			c.blocked, c.blockedAt, c.cur = e.Thread, e.AtNs, -1
		}
	case engine.VisWake:
		pw.waking(e)
	case engine.VisDecision:
		if pw.begun && !pw.opts.NoDecisions {
			pw.decision(pw.sim.DecisionAt(int(e.Arg)))
		}
	}
}

// run: CPU cpu runs thread from at.
func (pw *pfWriter) run(cpu, thread int32, at int64) {
	c := &pw.cpus[cpu]
	if c.blocked >= 0 && c.blockedAt == at {
		// Blocked and replaced at one instant: one switch, prev_state S.
		c.cur = c.blocked
		c.blocked = -1
		pw.switchTo(cpu, thread, 1, at)
		return
	}
	pw.flushBlock(cpu, at)
	if c.cur == thread {
		return
	}
	pw.switchTo(cpu, thread, 0x100, at)
}

// flushBlock writes a pending block's switch to idle unless a run at the
// same instant may still merge with it (at equal to its time).
func (pw *pfWriter) flushBlock(cpu int32, at int64) {
	c := &pw.cpus[cpu]
	if c.blocked < 0 || at == c.blockedAt {
		return
	}
	b := c.blocked
	c.blocked, c.cur = -1, b
	pw.switchTo(cpu, -1, 1, c.blockedAt)
}

// switchTo writes a sched_switch from the CPU's current thread to next.
func (pw *pfWriter) switchTo(cpu, next int32, prevState int64, at int64) {
	c := &pw.cpus[cpu]
	prev := c.cur
	c.cur = next
	if prev < 0 {
		prevState = 0 // the idle task is always runnable
	}
	if !pw.begun || at < pw.start || prev == next {
		return
	}
	sw := appendStr(nil, 1, pw.comm(prev, int(cpu)))
	sw = appendVarint(sw, 2, uint64(pw.tid(prev)))
	sw = appendVarint(sw, 3, pw.prio(prev))
	sw = appendVarint(sw, 4, uint64(prevState))
	sw = appendStr(sw, 5, pw.comm(next, int(cpu)))
	sw = appendVarint(sw, 6, uint64(pw.tid(next)))
	sw = appendVarint(sw, 7, pw.prio(next))
	pw.ftrace(cpu, at, pw.tid(prev), 0, 4, sw) // FtraceEvent.sched_switch
}

// waking writes a sched_waking in the waker's context.
func (pw *pfWriter) waking(e engine.VisEvent) {
	cpu, waker, flags := e.Other, int32(-1), uint64(0)
	if cpu >= 0 && int(cpu) < len(pw.cpus) {
		c := &pw.cpus[cpu]
		pw.flushBlock(cpu, e.AtNs)
		waker = c.cur
		if c.irq {
			waker, flags = -1, 0x08 // TRACE_FLAG_HARDIRQ
		}
	} else {
		cpu = max(e.CPU, 0)
		if int(cpu) >= len(pw.cpus) {
			return
		}
	}
	target := max(e.CPU, 0)
	wk := appendStr(nil, 1, pw.comm(e.Thread, 0))
	wk = appendVarint(wk, 2, uint64(pw.tid(e.Thread)))
	wk = appendVarint(wk, 3, pw.prio(e.Thread))
	wk = appendVarint(wk, 4, 1)
	wk = appendVarint(wk, 5, uint64(target))
	if pw.begun && e.AtNs >= pw.start {
		pw.ftrace(cpu, e.AtNs, pw.tid(waker), flags, 20, wk) // FtraceEvent.sched_waking
	}
}

// ftrace appends one FtraceEvent to the CPU's bundle.
func (pw *pfWriter) ftrace(cpu int32, at int64, pid int32, flags uint64, payloadField protowire.Number, payload []byte) {
	c := &pw.cpus[cpu]
	ev := appendVarint(nil, 1, uint64(at))
	ev = appendVarint(ev, 2, uint64(pid))
	if flags != 0 {
		ev = appendVarint(ev, 5, flags)
	}
	ev = appendMsg(ev, payloadField, payload)
	c.buf = appendMsg(c.buf, 2, ev) // FtraceEventBundle.event
	c.n++
	pw.stats.Events++
	if c.n >= bundleEvents {
		pw.flushBundle(cpu)
	}
}

// flushBundle writes the CPU's buffered events as one ftrace_events packet.
func (pw *pfWriter) flushBundle(cpu int32) {
	c := &pw.cpus[cpu]
	if c.n == 0 {
		return
	}
	bundle := appendVarint(nil, 1, uint64(cpu)) // FtraceEventBundle.cpu
	bundle = append(bundle, c.buf...)
	pw.packet(appendMsg(nil, 1, bundle)) // TracePacket.ftrace_events
	c.buf, c.n = c.buf[:0], 0
}

func appendVarint(b []byte, num protowire.Number, v uint64) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func appendStr(b []byte, num protowire.Number, s string) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func appendMsg(b []byte, num protowire.Number, m []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, m)
}

package kerneltrace

// The end of Build: cutting what the window's end leaves open, the recorded
// figures, the process filter and the per-process figures.

import (
	"slices"
	"strings"
)

// finish closes every thread at the window's end.
func (b *builder) finish() {
	for _, l := range b.st {
		t := b.thread(l)
		switch l.state {
		case stRunning:
			b.flush(l, b.end)
		case stRunnable:
			l.runnableNs += b.end - l.readySince
		}
		if t.Tgid == 0 {
			t.Tgid = t.Tid
		}
		if l.modeled && l.state != stDead {
			// Right-censored (pitfall 3): the trace ended inside this segment.
			t.CutLast = true
			b.m.Counts.CutLast++
			// A blocked thread's last run was seen whole; only the wakeup is
			// past the end. A running or runnable one's run is censored.
			if b.opts.KeepCut || l.state == stBlocked {
				b.push(l, End{Kind: EndCut, AtTs: b.end})
			} else {
				b.dropCur(l)
			}
		} else if !l.modeled && l.state != stNone && l.state != stDead && !t.CutLast {
			t.CutLast = true
			b.m.Counts.CutLast++
		}
		t.Recorded = Figures{
			CPUMs:        float64(l.cpuNs) / 1e6,
			RunnableMs:   float64(l.runnableNs) / 1e6,
			Migrations:   l.migrations,
			Wakeups:      l.wakeup,
			WakeLatP50Us: PercentileUs(l.lat, 50),
			WakeLatP99Us: PercentileUs(l.lat, 99),
		}
	}
}

// dropCur drops a cut last segment; the wakeups it made become timers of
// their recorded length, since their waker's segment is not in the model.
func (b *builder) dropCur(l *live) {
	for _, w := range l.cur.Wakes {
		wt := &b.m.Threads[w.Wakee]
		end := &wt.Start
		if w.WakeeSeg >= 0 && int(w.WakeeSeg) < len(wt.Segments) {
			end = &wt.Segments[w.WakeeSeg].End
		}
		if end.Kind != EndWakeBy || end.Waker != l.id {
			continue
		}
		sleep := end.SleepNs
		if w.WakeeSeg < 0 {
			sleep = end.AtTs - b.start
		}
		*end = End{Kind: EndTimer, SleepNs: sleep, AtTs: end.AtTs}
		b.m.Counts.WakeEdges--
		b.m.Counts.Timers++
		b.m.Counts.TimerUnknownWaker++
	}
	l.cur = Segment{}
}

// percentileUs is the nearest-rank percentile of ns samples, in µs (0 if none).
func PercentileUs(ns []int64, p int) float64 {
	if len(ns) == 0 {
		return 0
	}
	s := slices.Clone(ns)
	slices.Sort(s)
	i := (p*len(s)+99)/100 - 1
	return float64(s[max(i, 0)]) / 1000
}

// pinnedCPU reads a per-CPU kernel thread's CPU from its name: the digits
// after the last '/', alone or before ':' (ksoftirqd/3, migration/3,
// cpuhp/3, kworker/3:1, kworker/3:1H). kworker/u8:2 (unbound) and
// irq/45-eth0 are not per-CPU.
func pinnedCPU(name string) int32 {
	i := strings.LastIndexByte(name, '/')
	if i < 0 {
		return -1
	}
	d := leadingDigits(name[i+1:])
	rest := name[i+1+len(d):]
	if d == "" || (rest != "" && rest[0] != ':') || len(d) > 5 {
		return -1
	}
	return atoi32(d)
}

// kernelWaker says a waker is the kernel acting for an interrupt or a
// deferred job, not a task of the workload (TRACES.md 3: ksoftirqd, kworker
// and rcu wakers are external; threaded IRQ handlers too).
func kernelWaker(name string) bool {
	for _, p := range []string{"kworker/", "ksoftirqd/", "rcu", "irq/", "migration/"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// processes groups the model's threads by tgid; lat holds each thread's
// wake-to-run latencies (ns) by ThreadID. A process is named by its leader
// thread, or the trace's name for its pid, or its first thread.
func processes(m *Model, lat [][]int64, comm map[int32]string) {
	byPid := make(map[int32]int)
	for i := range m.Threads {
		t := &m.Threads[i]
		k, ok := byPid[t.Tgid]
		if !ok {
			k = len(m.Processes)
			byPid[t.Tgid] = k
			m.Processes = append(m.Processes, Process{Pid: t.Tgid, Name: comm[t.Tgid]})
		}
		p := &m.Processes[k]
		p.Threads = append(p.Threads, ThreadID(i))
		if t.Tid == t.Tgid || p.Name == "" {
			p.Name = t.Name()
		}
	}
	for k := range m.Processes {
		p := &m.Processes[k]
		var all []int64
		f := &p.Recorded
		for _, id := range p.Threads {
			r := m.Threads[id].Recorded
			f.CPUMs += r.CPUMs
			f.RunnableMs += r.RunnableMs
			f.Migrations += r.Migrations
			f.Wakeups += r.Wakeups
			all = append(all, lat[id]...)
		}
		f.WakeLatP50Us, f.WakeLatP99Us = PercentileUs(all, 50), PercentileUs(all, 99)
	}
}

package kerneltrace

import (
	"math"
	"testing"
)

func threadByTid(t *testing.T, m *Model, tid int32, gen int32) *Thread {
	t.Helper()
	for i := range m.Threads {
		if m.Threads[i].Tid == tid && m.Threads[i].Gen == gen {
			return &m.Threads[i]
		}
	}
	t.Fatalf("no thread %d gen %d", tid, gen)
	return nil
}

// The ping-pong trace (encode_test.go) replays as a chain of wake edges at
// the recorded progress points.
func TestBuildPingPong(t *testing.T) {
	tr, err := Read(pingPong())
	if err != nil {
		t.Fatal(err)
	}
	m, err := Build(tr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	const us = 1000
	a, b := threadByTid(t, m, 101, 0), threadByTid(t, m, 102, 0)
	idA, idB := ThreadID(0), ThreadID(1)
	if a.Tgid != 100 || b.Tgid != 100 || a.Name() != "A" {
		t.Errorf("tgid %d %d name %q", a.Tgid, b.Tgid, a.Name())
	}
	if a.Start.Kind != EndTimer || a.Start.SleepNs != 0 || b.Start.Kind != EndTimer {
		t.Errorf("starts %+v %+v", a.Start, b.Start)
	}
	// A: three runs of 1.5 ms, each ended by B at 2 ms of B's segment r.
	if len(a.Segments) != 3 {
		t.Fatalf("A: %d segments: %+v", len(a.Segments), a.Segments)
	}
	for r, s := range a.Segments {
		want := End{Kind: EndWakeBy, Waker: idB, WakerSeg: int32(r), AtNs: 2000 * us, SleepNs: 1510 * us, AtTs: s.End.AtTs}
		if s.RunNs != 1500*us || s.End != want {
			t.Errorf("A seg %d: run %d end %+v, want %+v", r, s.RunNs, s.End, want)
		}
	}
	// A's first waking of B is spurious (B is new, runnable); then A wakes B
	// at 1 ms of its segments 1 and 2.
	if len(a.Segments[0].Wakes) != 0 || len(a.Segments[1].Wakes) != 1 || a.Segments[1].Wakes[0] != (Wake{Wakee: idB, WakeeSeg: 0, AtNs: 1000 * us}) {
		t.Errorf("A wakes: %+v %+v", a.Segments[0].Wakes, a.Segments[1].Wakes)
	}
	if len(b.Segments) != 3 || b.Segments[0].End.Kind != EndWakeBy || b.Segments[0].End.Waker != idA ||
		b.Segments[0].End.WakerSeg != 1 || b.Segments[0].End.AtNs != 1000*us || b.Segments[2].End.Kind != EndCut {
		t.Errorf("B segments %+v", b.Segments)
	}
	if b.Segments[0].RunNs != 2010*us {
		t.Errorf("B run %d", b.Segments[0].RunNs)
	}
	c := m.Counts
	if c.Spurious != 1 || c.WakeEdges != 5 || c.CutLast != 2 || c.CutFirst != 0 {
		t.Errorf("counts %+v", c)
	}
	// Recorded figures.
	if a.Recorded.CPUMs != 4.5 || b.Recorded.CPUMs != 6.03 {
		t.Errorf("cpu ms %v %v", a.Recorded.CPUMs, b.Recorded.CPUMs)
	}
	if a.Recorded.WakeLatP50Us != 1990 || a.Recorded.WakeLatP99Us != 1990 || b.Recorded.WakeLatP50Us != 10 || b.Recorded.WakeLatP99Us != 1010 {
		t.Errorf("latency A %+v B %+v", a.Recorded, b.Recorded)
	}
	if a.Recorded.RunnableMs != (0+1990+1990+10)/1000.0 || a.Recorded.Migrations != 0 {
		t.Errorf("A runnable %v migrations %d", a.Recorded.RunnableMs, a.Recorded.Migrations)
	}
	if p := m.Processes; len(p) != 1 || p[0].Pid != 100 || p[0].Name != "pingpong" || math.Abs(p[0].Recorded.CPUMs-10.53) > 1e-9 ||
		p[0].Recorded.WakeLatP50Us != 10 || p[0].Recorded.WakeLatP99Us != 1990 {
		t.Errorf("processes %+v", m.Processes)
	}
	if m.CPUs != 2 {
		t.Errorf("CPUs %d", m.CPUs)
	}
}

// With sched_waking in the trace, sched_wakeup repeats the same wakeups:
// it is not read again (no spurious wakeups from it).
func TestBuildWakingAndWakeup(t *testing.T) {
	b := newTB(2)
	b.sw(0, 0, 0, 0, 5, "a").sw(10, 0, 5, StateInterruptible, 6, "b").wake(20, 0, 6, 5, false)
	b.add(Event{Ts: 21, CPU: 1, Kind: KindWaking, WakeupOnly: true, Pid: 0, Target: 5})
	b.sw(30, 0, 6, 0, 5, "a")
	m := b.build(t, Options{KeepCut: true})
	if a := threadByTid(t, m, 5, 0); m.Counts.Spurious != 0 || len(a.Segments) != 2 || a.Segments[0].End.Kind != EndWakeBy {
		t.Errorf("counts %+v, segments %+v", m.Counts, a.Segments)
	}
}

func TestBuildAllTimed(t *testing.T) {
	tr, _ := Read(pingPong())
	m, err := Build(tr, Options{AllTimed: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, th := range m.Threads {
		for _, s := range th.Segments {
			if s.End.Kind == EndWakeBy || len(s.Wakes) > 0 {
				t.Fatalf("all-timed has an edge: %+v", s)
			}
		}
	}
	if m.Counts.WakeEdges != 0 || m.Counts.Timers != 5 {
		t.Errorf("counts %+v", m.Counts)
	}
}

// tb builds a trace from events, for the rules one at a time.
type tb struct{ tr *Trace }

func newTB(cpus int) *tb { t := newTrace(FormatText); t.CPUs = cpus; return &tb{t} }

func (b *tb) sw(ts int64, cpu int32, prev int32, st State, next int32, nextComm string) *tb {
	b.tr.Events = append(b.tr.Events, Event{Ts: ts, CPU: cpu, Kind: KindSwitch, Pid: prev, PrevPid: prev, PrevState: st,
		PrevComm: "p", NextPid: next, NextComm: nextComm})
	return b
}

func (b *tb) wake(ts int64, cpu int32, waker, target int32, irq bool) *tb {
	b.tr.Events = append(b.tr.Events, Event{Ts: ts, CPU: cpu, Kind: KindWaking, Pid: waker, Target: target, IRQ: irq, Comm: "t"})
	return b
}

func (b *tb) add(e Event) *tb { b.tr.Events = append(b.tr.Events, e); return b }

func (b *tb) build(t *testing.T, o Options) *Model {
	t.Helper()
	b.tr.finish()
	m, err := Build(b.tr, o)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestBuildRules(t *testing.T) {
	const S, D = StateInterruptible, StateUninterruptible
	t.Run("timer from idle, irq, kworker and D", func(t *testing.T) {
		b := newTB(2)
		// 5 blocks four times; woken by idle, by 6 in irq, by a kworker, and after D by 6.
		b.add(Event{Ts: 0, Kind: KindNew, Pid: 1, Target: 5, Comm: "w"}).add(Event{Ts: 0, Kind: KindNew, Pid: 1, Target: 6, Comm: "x"})
		b.sw(1, 0, 0, 0, 5, "w").sw(10, 0, 5, S, 6, "x").wake(20, 0, 0, 5, false)
		b.sw(21, 0, 6, 0, 5, "w").sw(30, 0, 5, S, 6, "x").wake(40, 0, 6, 5, true)
		b.sw(41, 0, 6, 0, 5, "w").sw(45, 0, 5, S, 6, "x")
		b.add(Event{Ts: 46, CPU: 1, Kind: KindSwitch, PrevPid: 0, NextPid: 7, NextComm: "kworker/1:0"}).wake(55, 1, 7, 5, false)
		b.sw(60, 0, 6, 0, 5, "w").sw(61, 0, 5, D, 6, "x").wake(71, 0, 6, 5, false)
		b.sw(80, 0, 6, 0, 5, "w")
		m := b.build(t, Options{})
		w := threadByTid(t, m, 5, 0)
		if len(w.Segments) != 4 {
			t.Fatalf("%+v", w.Segments)
		}
		for i, run := range []int64{9, 9, 4, 1} {
			if s := w.Segments[i]; s.End.Kind != EndTimer || s.End.SleepNs != 10 || s.RunNs != run {
				t.Errorf("segment %d: %+v, want run %d then timer 10", i, s, run)
			}
		}
		c := m.Counts
		if c.TimerIdle != 1 || c.TimerIRQ != 1 || c.TimerKernel != 1 || c.TimerIOWait != 1 {
			t.Errorf("counts %+v", c)
		}
		if k := threadByTid(t, m, 7, 0); k.PinnedCPU != 1 || !k.CutFirst {
			t.Errorf("kworker/1:0 %+v", k)
		}
	})
	t.Run("spawn and exit, pid reuse, rename", func(t *testing.T) {
		b := newTB(1)
		b.add(Event{Ts: 0, Kind: KindNew, Pid: 1, Target: 5, Comm: "sh"})
		b.sw(0, 0, 0, 0, 5, "sh")
		b.add(Event{Ts: 30, Kind: KindNew, Pid: 5, Target: 9, Comm: "sh", CloneFlags: 0x11}) // a process
		b.sw(40, 0, 5, S, 9, "sh")
		b.add(Event{Ts: 45, Kind: KindRename, Pid: 9, Target: 9, Comm: "cat"})
		b.add(Event{Ts: 50, Kind: KindExit, Pid: 9, Target: 9})
		b.wake(55, 0, 9, 5, false).sw(55, 0, 9, StateDead, 0, "swapper/0")
		b.add(Event{Ts: 60, Kind: KindFree, Pid: 0, Target: 9})
		b.sw(60, 0, 0, 0, 5, "sh")
		b.add(Event{Ts: 70, Kind: KindNew, Pid: 5, Target: 9, Comm: "again", CloneFlags: cloneThread})
		b.sw(80, 0, 5, S, 9, "again").sw(90, 0, 9, S, 0, "swapper/0")
		m := b.build(t, Options{})
		sh, c1, c2 := threadByTid(t, m, 5, 0), threadByTid(t, m, 9, 0), threadByTid(t, m, 9, 1)
		if len(sh.Segments) < 2 || sh.Segments[0].End != (End{Kind: EndSpawn, Child: 1, AtTs: 30}) || sh.Segments[0].RunNs != 30 {
			t.Fatalf("sh: %+v", sh.Segments)
		}
		if c1.Start != (End{Kind: EndSpawned, Waker: 0, WakerSeg: 0, AtNs: 30, AtTs: 30}) || c1.Tgid != 9 {
			t.Errorf("child start %+v tgid %d", c1.Start, c1.Tgid)
		}
		if len(c1.Segments) != 1 || c1.Segments[0].End.Kind != EndExit || c1.Segments[0].RunNs != 15 || len(c1.Names) != 2 || c1.Name() != "cat" {
			t.Errorf("child %+v", c1)
		}
		// The exiting child woke its parent: a wake edge at 15 ns of its last segment.
		if e := sh.Segments[1].End; e.Kind != EndWakeBy || e.Waker != 1 || e.AtNs != 15 {
			t.Errorf("parent woken by %+v", e)
		}
		if c2.Name() != "again" || c2.Tgid != 5 || c2.Start.Kind != EndSpawned {
			t.Errorf("reused pid %+v", c2)
		}
		if len(m.Processes) != 2 {
			t.Errorf("processes %+v", m.Processes)
		}
	})
	t.Run("censored first and early waker", func(t *testing.T) {
		b := newTB(2)
		// 5 runs before the trace; 6 sleeps before it; 5 wakes 6 and blocks.
		b.sw(100, 0, 5, S, 0, "swapper/0").wake(150, 1, 0, 5, false)
		b.sw(160, 0, 0, 0, 5, "a").wake(170, 0, 5, 6, false).sw(180, 0, 5, S, 0, "swapper/0")
		m := b.build(t, Options{StartNs: 1})
		a, w := threadByTid(t, m, 5, 0), threadByTid(t, m, 6, 0)
		if !a.CutFirst || a.Start.Kind != EndTimer || a.Start.SleepNs != 149 {
			t.Errorf("5: %+v", a)
		}
		if a.Recorded.CPUMs*1e6 != 99+20 {
			t.Errorf("5 cpu %v ms", a.Recorded.CPUMs)
		}
		if w.Start.Kind != EndWakeBy || w.Start.Waker != 0 || w.Start.AtNs != 10 || a.Segments[0].Wakes[0].WakeeSeg != -1 {
			t.Errorf("6 start %+v, 5 wakes %+v", w.Start, a.Segments[0].Wakes)
		}
	})
	t.Run("keep cut", func(t *testing.T) {
		b := newTB(1)
		b.sw(100, 0, 5, 0, 6, "b").sw(200, 0, 6, 0, 5, "a").sw(300, 0, 5, 0, 6, "b")
		m := b.build(t, Options{KeepCut: true, StartNs: 50})
		a := threadByTid(t, m, 5, 0)
		if len(a.Segments) != 1 || a.Segments[0].RunNs != 150 || a.Segments[0].End.Kind != EndCut || a.Start.Kind != EndTimer {
			t.Errorf("%+v", a)
		}
		m = b.build(t, Options{StartNs: 50})
		if a := threadByTid(t, m, 5, 0); len(a.Segments) != 0 || !a.CutFirst || !a.CutLast || a.Recorded.CPUMs*1e6 != 150 {
			t.Errorf("without KeepCut: %+v", a)
		}
	})
}

func TestBuildFilter(t *testing.T) {
	tr, _ := Read(pingPong())
	tr.Tgid[102] = 200 // B in a process of its own
	m, err := Build(tr, Options{Pids: []int32{100}})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Threads) != 1 || m.Counts.Dropped != 1 || m.Threads[0].Tid != 101 {
		t.Fatalf("%+v", m.Threads)
	}
	for i, s := range m.Threads[0].Segments {
		if s.End.Kind != EndTimer || s.End.SleepNs != 1_510_000 || len(s.Wakes) != 0 {
			t.Errorf("segment %d %+v", i, s)
		}
	}
	m, _ = Build(tr, Options{Names: []string{"B"}})
	if len(m.Threads) != 1 || m.Threads[0].Tid != 102 || len(m.Processes) != 1 || m.Processes[0].Pid != 200 {
		t.Errorf("by name: %+v", m.Threads)
	}
	if _, err := Build(tr, Options{StartNs: 10, EndNs: 5}); err == nil {
		t.Error("an empty window is accepted")
	}
}

func TestPinnedCPU(t *testing.T) {
	for name, want := range map[string]int32{"ksoftirqd/3": 3, "kworker/3:1H": 3, "kworker/u8:2": -1, "irq/45-eth0": -1,
		"migration/12": 12, "bash": -1, "cpuhp/0": 0, "a/b/7": 7} {
		if got := pinnedCPU(name); got != want {
			t.Errorf("pinnedCPU(%q) = %d, want %d", name, got, want)
		}
	}
}

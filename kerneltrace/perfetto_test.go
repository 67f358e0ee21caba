package kerneltrace

import (
	"strings"
	"testing"
)

func TestPerfettoFull(t *testing.T) {
	tr, err := Read(pingPong())
	if err != nil {
		t.Fatal(err)
	}
	if tr.Format != FormatPerfetto || tr.CPUs != 2 || tr.KernelRelease != "6.18.0" {
		t.Fatalf("format %q cpus %d release %q", tr.Format, tr.CPUs, tr.KernelRelease)
	}
	if tr.Tgid[101] != 100 || tr.Comm[100] != "pingpong" || tr.Comm[102] != "B" {
		t.Errorf("process tree: tgid %v comm %v", tr.Tgid, tr.Comm)
	}
	// 2 newtask + 3 rounds of (2 switches + 1 waking) on each of 2 CPUs.
	if len(tr.Events) != 2+3*6 {
		t.Fatalf("%d events", len(tr.Events))
	}
	for i := 1; i < len(tr.Events); i++ {
		if tr.Events[i].Ts < tr.Events[i-1].Ts {
			t.Fatalf("events out of order at %d", i)
		}
	}
	var sw, wk *Event
	for i := range tr.Events {
		e := &tr.Events[i]
		if e.Kind == KindSwitch && e.PrevPid == 101 && sw == nil {
			sw = e
		}
		if e.Kind == KindWaking && e.Target == 101 && wk == nil {
			wk = e
		}
	}
	if sw == nil || sw.PrevComm != "A" || sw.PrevState != StateInterruptible || sw.NextPid != 0 || sw.CPU != 0 {
		t.Errorf("switch out of A: %+v", sw)
	}
	if wk == nil || wk.Pid != 102 || wk.CPU != 1 || wk.Comm != "A" || wk.TargetCPU != 0 || wk.WakeupOnly {
		t.Errorf("waking of A: %+v", wk)
	}
}

func TestPerfettoZlibSameAsPlain(t *testing.T) {
	plain, err := Read(pingPong())
	if err != nil {
		t.Fatal(err)
	}
	packed, err := Read(zlibPacket(pingPong()))
	if err != nil {
		t.Fatal(err)
	}
	if len(packed.Events) != len(plain.Events) || packed.KernelRelease != plain.KernelRelease {
		t.Fatalf("compressed: %d events, plain %d", len(packed.Events), len(plain.Events))
	}
	for i := range plain.Events {
		if packed.Events[i] != plain.Events[i] {
			t.Fatalf("event %d: %+v != %+v", i, packed.Events[i], plain.Events[i])
		}
	}
}

// compactBundle: CPU 2 switches idle→X(7)→Y(8)→idle, with X waking Z(9) and
// an interrupt waking W(10) while Y runs.
func compactBundle() []byte {
	cs := pb{}.s(5, "X").s(5, "Y").s(5, "swapper/2").s(5, "Z").s(5, "W").
		packed(1, 1000, 100, 200). // absolute, then deltas: 1000, 1100, 1300
		packed(2, 0, 1, 0x100).    // prev states: (unknown prev), X blocked S, Y preempted R+
		packed(3, 7, 8, 0).
		packed(4, 120, 120, 120).
		packed(6, 0, 1, 2).
		packed(7, 1050, 150). // 1050, 1200
		packed(8, 9, 10).     // wakees
		packed(9, 3, 2).      // target cpus
		packed(10, 120, 100). // prio
		packed(11, 3, 4).     // comms
		packed(12, 0, 0x08)   // the second in hardirq
	return cat(ftracePacket(pb{}.u(fBundleCPU, 2).m(fBundleCompact, cs)))
}

func TestPerfettoCompact(t *testing.T) {
	tr, err := Read(compactBundle())
	if err != nil {
		t.Fatal(err)
	}
	want := []Event{
		{Ts: 1000, CPU: 2, Kind: KindSwitch, PrevPid: -1, NextPid: 7, NextComm: "X", NextPrio: 120},
		{Ts: 1050, CPU: 2, Kind: KindWaking, Pid: 7, Target: 9, Comm: "Z", TargetCPU: 3, Prio: 120},
		{Ts: 1100, CPU: 2, Kind: KindSwitch, Pid: 7, PrevPid: 7, PrevComm: "X", PrevPrio: 120, PrevState: StateInterruptible,
			NextPid: 8, NextComm: "Y", NextPrio: 120, rawState: 1},
		{Ts: 1200, CPU: 2, Kind: KindWaking, Pid: 8, Target: 10, Comm: "W", TargetCPU: 2, Prio: 100, IRQ: true},
		{Ts: 1300, CPU: 2, Kind: KindSwitch, Pid: 8, PrevPid: 8, PrevComm: "Y", PrevPrio: 120, PrevState: StatePreempted,
			NextPid: 0, NextComm: "swapper/2", NextPrio: 120, rawState: 0x100},
	}
	if len(tr.Events) != len(want) {
		t.Fatalf("%d events: %+v", len(tr.Events), tr.Events)
	}
	for i := range want {
		if tr.Events[i] != want[i] {
			t.Errorf("event %d:\n got %+v\nwant %+v", i, tr.Events[i], want[i])
		}
	}
	if tr.CPUs != 3 {
		t.Errorf("CPUs %d, want 3 (CPU 2 seen)", tr.CPUs)
	}
}

// Lost events: the trace is valid from the first event of the bundle that
// says so, or from the previous read's end when it has no events.
func TestPerfettoLostEvents(t *testing.T) {
	lost := cat(
		ftracePacket(bundle(0, swEv(100, "a", 5, 1, "b", 6), swEv(200, "b", 6, 1, "a", 5))),
		ftracePacket(pb(bundle(1, swEv(500, "c", 7, 1, "d", 8), swEv(600, "d", 8, 1, "c", 7))).u(fBundleLost, 1)),
		ftracePacket(pb{}.u(fBundleCPU, 2).u(fBundleLost, 1).u(fBundlePrevEnd, 450)))
	tr, err := Read(lost)
	if err != nil {
		t.Fatal(err)
	}
	if tr.LostEvents != 2 || tr.ValidFromNs != 500 || tr.CPUs != 3 {
		t.Errorf("lost %d, valid from %d, CPUs %d", tr.LostEvents, tr.ValidFromNs, tr.CPUs)
	}
	m, _ := Build(tr, Options{})
	if m.StartNs != 500 || m.Counts.Events != 2 {
		t.Errorf("model starts at %d with %d events", m.StartNs, m.Counts.Events)
	}
}

func TestPerfettoErrors(t *testing.T) {
	good := pingPong()
	badCompact := cat(ftracePacket(pb{}.u(fBundleCPU, 0).m(fBundleCompact, pb{}.s(5, "a").packed(1, 5, 6).packed(2, 0).packed(3, 1, 2).packed(4, 1, 2).packed(6, 0, 0))))
	badIntern := cat(ftracePacket(pb{}.u(fBundleCPU, 0).m(fBundleCompact, pb{}.s(5, "a").packed(1, 5).packed(2, 0).packed(3, 1).packed(4, 1).packed(6, 3))))
	tests := []struct {
		desc string
		data []byte
		want string
	}{
		{"truncated in a packet", good[:len(good)-3], "runs past the end"},
		{"zstd", cat(packet(pb{}.m(fPktZstd, pb("x")))), "zstd"},
		{"bundle cpu as bytes", cat(ftracePacket(pb{}.s(fBundleCPU, "x"))), "FtraceEventBundle.cpu: wire type"},
		{"timestamp as bytes", cat(ftracePacket(bundle(0, pb{}.s(fEvTs, "x").m(fEvSwitch, pb{})))), "FtraceEvent.timestamp"},
		{"compact lengths differ", badCompact, "field 2 has 1 entries, switch_timestamp 2"},
		{"compact intern index", badIntern, "index 3 outside the intern table"},
		{"bad zlib", cat(packet(pb{}.m(fPktZlib, pb("not zlib")))), "compressed_packets"},
		{"nested zlib", zlibPacket(zlibPacket(good)), "inside compressed packets"},
		{"cpu too high", cat(ftracePacket(pb{}.u(fBundleCPU, 1<<20))), "above"},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			_, err := readPerfetto(tc.data)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			if !strings.Contains(err.Error(), "offset") {
				t.Errorf("error %v names no offset", err)
			}
		})
	}
}

func TestStateFromRaw(t *testing.T) {
	tests := []struct {
		raw  int64
		old  bool
		want State
	}{
		{0, false, 0},
		{1, false, StateInterruptible},
		{2, false, StateUninterruptible},
		{0x100, false, StatePreempted},
		{0x80, false, StateIdle},
		{0x40, false, StateParked},
		{0x40, true, StateDead},
		{0x1000, true, StatePreempted},
		{4096, false, StatePreempted}, // LISA's trace.txt, an old kernel read as new
		{0x10, false, StateDead},
	}
	for _, tc := range tests {
		if got := stateFromRaw(tc.raw, tc.old); got != tc.want {
			t.Errorf("stateFromRaw(%#x, old=%v) = %#x, want %#x", tc.raw, tc.old, got, tc.want)
		}
	}
	if !kernelBefore414("4.9.118-android") || kernelBefore414("4.14.0") || kernelBefore414("6.18.0") || kernelBefore414("") {
		t.Error("kernelBefore414")
	}
}

package kerneltrace

import (
	"encoding/binary"
	"strings"
	"testing"
)

// datCPUs is two CPUs of pages: on CPU 0, A (7) runs, wakes B (8) and
// blocks; on CPU 1, B runs after a gap of seconds (a time extend) and an
// interrupt wakes A.
func datCPUs(d datEnc) [][]byte {
	cpu0 := d.page(1_000_000, []rec{
		{0, d.switchRec(0, "swapper/0", 0, 7, "task A")},
		{500, d.wakingRec(7, false, "B", 8, 1)},
		{100, d.switchRec(7, "task A", 1, 0, "swapper/0")},
	})
	cpu1 := d.page(1_000_000, []rec{
		{700, d.switchRec(0, "swapper/1", 0, 8, "B")},
		{3_000_000_000, d.wakingRec(0, true, "task A", 7, 0)},
		{50, d.switchRec(8, "B", 0x100, 0, "swapper/1")},
	})
	// A second page on CPU 0, empty: only padding.
	return [][]byte{append(cpu0, d.page(5_000_000_000, nil)...), cpu1}
}

func wantDat() []Event {
	return []Event{
		{Ts: 1_000_000, CPU: 0, Kind: KindSwitch, Pid: 0, PrevComm: "swapper/0", PrevPrio: 120, NextPid: 7, NextComm: "task A", NextPrio: 120},
		{Ts: 1_000_500, CPU: 0, Kind: KindWaking, Pid: 7, Target: 8, Comm: "B", Prio: 120, TargetCPU: 1},
		{Ts: 1_000_600, CPU: 0, Kind: KindSwitch, Pid: 7, PrevPid: 7, PrevComm: "task A", PrevPrio: 120, PrevState: StateInterruptible,
			NextPid: 0, NextComm: "swapper/0", NextPrio: 120},
		{Ts: 1_000_700, CPU: 1, Kind: KindSwitch, Pid: 0, PrevComm: "swapper/1", PrevPrio: 120, NextPid: 8, NextComm: "B", NextPrio: 120},
		{Ts: 3_001_000_700, CPU: 1, Kind: KindWaking, Pid: 0, IRQ: true, Target: 7, Comm: "task A", Prio: 120, TargetCPU: 0},
		{Ts: 3_001_000_750, CPU: 1, Kind: KindSwitch, Pid: 8, PrevPid: 8, PrevComm: "B", PrevPrio: 120, PrevState: StatePreempted,
			NextPid: 0, NextComm: "swapper/1", NextPrio: 120},
	}
}

func TestTraceDat(t *testing.T) {
	le := datEnc{bo: binary.LittleEndian, ps: 4096}
	be := datEnc{bo: binary.BigEndian, ps: 4096}
	const cmd = "7 task A\n8 B\n"
	for _, tc := range []struct {
		desc string
		data []byte
	}{
		{"v6", le.v6(datCPUs(le), cmd)},
		{"v6 big endian", be.v6(datCPUs(be), cmd)},
		{"v7", le.v7(datCPUs(le), cmd, false)},
		{"v7 zlib", le.v7(datCPUs(le), cmd, true)},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			if f := Detect(tc.data); f != FormatTraceDat {
				t.Fatalf("Detect = %q", f)
			}
			tr, err := Read(tc.data)
			if err != nil {
				t.Fatal(err)
			}
			want := wantDat()
			if len(tr.Events) != len(want) {
				t.Fatalf("%d events: %+v", len(tr.Events), tr.Events)
			}
			for i := range want {
				if tr.Events[i] != want[i] {
					t.Errorf("event %d:\n got %+v\nwant %+v", i, tr.Events[i], want[i])
				}
			}
			if tr.CPUs != 2 || tr.Comm[7] != "task A" || tr.Format != FormatTraceDat {
				t.Errorf("CPUs %d comm %v", tr.CPUs, tr.Comm)
			}
			if strings.HasPrefix(tc.desc, "v6") && tr.KernelRelease != "6.18.0" {
				t.Errorf("release %q", tr.KernelRelease)
			}
		})
	}
}

func TestTraceDatErrors(t *testing.T) {
	d := datEnc{bo: binary.LittleEndian, ps: 4096}
	good := d.v6(datCPUs(d), "")
	hdrEnd := len(d.start("6"))
	bigRec := d.v6([][]byte{d.page(0, []rec{{0, d.switchRec(1, "a", 0, 2, "b")}})}, "")
	// Corrupt the first record's type_len to claim 28 words (112 bytes) past the commit.
	pageAt := len(bigRec) - 4096
	corrupt := append([]byte(nil), bigRec...)
	d.bo.PutUint64(corrupt[pageAt+8:], 8)
	zstd := append(d.start("7"), "zstd\x001.5.4\x00"...)
	tests := []struct {
		desc string
		data []byte
		want string
	}{
		{"truncated header", good[:hdrEnd+5], "header_page"},
		{"truncated flyrecord", good[:len(good)-100], "runs past the end of the file"},
		{"bad version", append([]byte(traceDatMagic), "5\x00\x00\x08\x00\x10\x00\x00"...), `version "5"`},
		{"event past the page", corrupt, "runs past the page"},
		{"zstd", zstd, "zstd-compressed trace.dat files are not supported"},
		{"bad endianness", append([]byte(traceDatMagic), "6\x00\x07\x08"...), "endianness"},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			_, err := Read(tc.data)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			if !strings.Contains(err.Error(), "offset") && tc.desc != "bad version" {
				t.Errorf("error %v names no offset", err)
			}
		})
	}
}

func FuzzTraceDat(f *testing.F) {
	le := datEnc{bo: binary.LittleEndian, ps: 256}
	small := [][]byte{le.page(5, []rec{{0, le.switchRec(0, "s", 0, 3, "x")}, {9, le.wakingRec(3, false, "y", 4, 0)}})}
	f.Add(le.v6(small, "3 x\n"))
	f.Add(le.v7(small, "3 x\n", false))
	f.Add(le.v7(small, "3 x\n", true))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := readTraceDat(data)
		if err == nil {
			if _, err := Build(tr, Options{}); err != nil {
				t.Fatal(err)
			}
		}
	})
}

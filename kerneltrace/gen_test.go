package kerneltrace

import (
	"encoding/binary"
	"fmt"
	"os"
	"strings"
)

// genStep is one step of a generated multi-CPU trace: on cpu, the running
// task wakes wakee (on wakeCPU) and then switches to next, blocking in
// state (1: S, 2: D, 0: preempted).
type genStep struct {
	ts                int64
	cpu, wakeCPU      int32
	prev, wakee, next int32
	state             int64
}

// genSteps makes n steps over cpus CPUs: each CPU hands a token around its
// own 8 threads, and every 7th step wakes a thread of the next CPU instead,
// so wakeups cross CPUs. Steps on different CPUs interleave in time, so a
// format that writes per CPU (Perfetto bundles, trace.dat pages) holds them
// out of time order.
func genSteps(n, cpus int) []genStep {
	cur := make([]int32, cpus)
	for c := range cur {
		cur[c] = int32(1000 + c*8)
	}
	steps := make([]genStep, 0, n)
	for i := 0; i < n; i++ {
		c := i % cpus
		p := cur[c]
		nx := int32(1000+c*8) + (p-int32(1000+c*8)+1)%8
		s := genStep{ts: 1_000_000_000 + int64(i)*997, cpu: int32(c), wakeCPU: int32(c), prev: p, wakee: nx, next: nx, state: 1}
		if i%7 == 0 {
			s.wakeCPU = int32((c + 1) % cpus)
			s.wakee = int32(1000+int(s.wakeCPU)*8) + int32(i/7)%8
		}
		if i%11 == 0 {
			s.state = 0
		} else if i%13 == 0 {
			s.state = 2
		}
		cur[c] = nx
		steps = append(steps, s)
	}
	return steps
}

func genComm(pid int32) string { return fmt.Sprintf("w%d/%d", pid%8, pid) }

// genText writes the steps as tracefs text, the tgid column given when tgid.
func genText(steps []genStep, cpus int, tgid bool) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# tracer: nop\n#\n# entries-in-buffer/entries-written: %d/%d   #P:%d\n", 2*len(steps), 2*len(steps), cpus)
	letter := map[int64]string{0: "R+", 1: "S", 2: "D"}
	for _, s := range steps {
		g := ""
		if tgid {
			g = fmt.Sprintf(" (%5d)", 900+s.prev%3)
		}
		sec := func(ts int64) string { return fmt.Sprintf("%d.%09d", ts/1e9, ts%1e9) }
		fmt.Fprintf(&b, "%16s-%-7d%s [%03d] d..2. %s: sched_waking: comm=%s pid=%d prio=120 target_cpu=%03d\n",
			genComm(s.prev), s.prev, g, s.cpu, sec(s.ts), genComm(s.wakee), s.wakee, s.wakeCPU)
		fmt.Fprintf(&b, "%16s-%-7d%s [%03d] d..2. %s: sched_switch: prev_comm=%s prev_pid=%d prev_prio=120 prev_state=%s ==> next_comm=%s next_pid=%d next_prio=120\n",
			genComm(s.prev), s.prev, g, s.cpu, sec(s.ts+400), genComm(s.prev), s.prev, letter[s.state], genComm(s.next), s.next)
	}
	return []byte(b.String())
}

// genPerfetto writes the steps as Perfetto: per read cycle of `per` steps,
// one bundle per CPU, as traced_probes reads the per-CPU buffers; zlib
// wraps each cycle's packets when z, and the process tree and system
// info come last when late.
func genPerfetto(steps []genStep, cpus, per int, z, late bool) []byte {
	var parts []pb
	for start := 0; start < len(steps); start += per {
		evs := make([][]pb, cpus)
		for _, s := range steps[start:min(start+per, len(steps))] {
			evs[s.cpu] = append(evs[s.cpu], wakingEv(s.ts, s.prev, genComm(s.wakee), s.wakee, s.wakeCPU),
				swEv(s.ts+400, genComm(s.prev), s.prev, s.state, genComm(s.next), s.next))
		}
		var cycle []byte
		for c := cpus - 1; c >= 0; c-- { // the last CPU first: out of order
			cycle = append(cycle, ftracePacket(bundle(uint32(c), evs[c]...))...)
		}
		if z {
			parts = append(parts, zlibPacket(cycle))
		} else {
			parts = append(parts, cycle)
		}
	}
	var threads [][3]any
	for c := 0; c < cpus; c++ {
		for k := 0; k < 8; k++ {
			threads = append(threads, [3]any{1000 + c*8 + k, fmt.Sprintf("t%d", k), 900 + (1000+c*8+k)%3})
		}
	}
	meta := []pb{sysInfoPacket("4.9.0"), treePacket([][2]any{{900, "/bin/a"}, {901, "/bin/b"}, {902, "/bin/c"}}, threads)}
	if late {
		return cat(append(parts, meta...)...)
	}
	return cat(append(meta, parts...)...)
}

// genDat writes the steps as a trace.dat (v6, or v7 compressed when z).
func genDat(steps []genStep, cpus int, v7, z bool) []byte {
	d := datEnc{bo: binary.LittleEndian, ps: 4096}
	pages := make([][]byte, cpus)
	recs := make([][]rec, cpus)
	first := make([]int64, cpus)
	last := make([]int64, cpus)
	flush := func(c int) {
		if len(recs[c]) > 0 {
			pages[c] = append(pages[c], d.page(uint64(first[c]), recs[c])...)
			recs[c] = recs[c][:0]
		}
	}
	for _, s := range steps {
		c := int(s.cpu)
		if len(recs[c]) == 0 {
			first[c], last[c] = s.ts, s.ts
		}
		recs[c] = append(recs[c], rec{uint64(s.ts - last[c]), d.wakingRec(s.prev, false, genComm(s.wakee), s.wakee, s.wakeCPU)},
			rec{400, d.switchRec(s.prev, genComm(s.prev), s.state, s.next, genComm(s.next))})
		last[c] = s.ts + 400
		if len(recs[c]) >= 38 {
			flush(c)
		}
	}
	for c := range recs {
		flush(c)
	}
	if v7 {
		return d.v7(pages, "1000 x\n", z)
	}
	return d.v6(pages, "1000 x\n")
}

// corpus is every shape the streamed and whole-file readers must agree on.
func corpus() map[string][]byte {
	st := genSteps(6000, 4)
	lisa, _ := os.ReadFile("testdata/lisa-trace.txt")
	le := datEnc{bo: binary.LittleEndian, ps: 256}
	out := map[string][]byte{
		"bench-text":     benchText(4000),
		"bench-perfetto": benchPerfetto(4000),
		"bench-dat":      benchDat(4000),
		"lisa":           lisa,
		"pingpong":       pingPong(),
		"compact":        compactBundle(),
		"zlib":           []byte(zlibPacket(pingPong())),
		"dat-v7-small":   le.v7([][]byte{le.page(5, []rec{{0, le.switchRec(0, "s", 0, 3, "x")}})}, "3 x\n", true),
		"text":           genText(st, 4, false),
		"text-tgid":      genText(st, 4, true),
		"perfetto":       genPerfetto(st, 4, 200, false, false),
		"perfetto-late":  genPerfetto(st, 4, 300, false, true),
		"perfetto-zlib":  genPerfetto(st, 4, 500, true, false),
		"dat-v6":         genDat(st, 4, false, false),
		"dat-v7":         genDat(st, 4, true, false),
		"dat-v7z":        genDat(st, 4, true, true),
	}
	return out
}

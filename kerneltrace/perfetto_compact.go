package kerneltrace

// FtraceEventBundle.CompactSched: sched_switch and sched_waking as parallel
// packed arrays, timestamps delta-encoded within the bundle, comms interned
// per bundle. Switches carry no prev_*: they are the task that the previous
// switch on this CPU switched in (perfetto ftrace_sched_event_tracker.cc);
// a waking's waker is the task running on the CPU.

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
)

type compactSched struct {
	intern []string
	// switch_*: fields 1, 2, 3, 4, 6; waking_*: 7, 8, 9, 10, 11, 12.
	sw [13][]uint64
}

// maxCompactEntries bounds one bundle's arrays (a bundle is one ring-buffer
// read, a few thousand events) so a corrupt length cannot allocate without end.
const maxCompactEntries = 1 << 22

func (d *pfDecoder) compact(b []byte, base int, cpu int32) error {
	var cs compactSched
	err := walk(b, base, "CompactSched", func(f field) error {
		if f.num == 5 {
			if err := f.want("CompactSched", "intern_table", protowire.BytesType); err != nil {
				return err
			}
			cs.intern = append(cs.intern, string(f.v))
			return nil
		}
		if f.num < 1 || f.num > 12 {
			return nil
		}
		switch f.typ {
		case protowire.VarintType: // an unpacked element
			cs.sw[f.num] = append(cs.sw[f.num], f.x)
		case protowire.BytesType: // packed
			for v := f.v; len(v) > 0; {
				x, m := protowire.ConsumeVarint(v)
				if m < 0 {
					return fmt.Errorf("offset %d: CompactSched field %d: packed varint: %v", f.at+len(f.v)-len(v), f.num, protowire.ParseError(m))
				}
				cs.sw[f.num] = append(cs.sw[f.num], x)
				v = v[m:]
			}
		default:
			return fmt.Errorf("offset %d: CompactSched field %d: wire type %d, want varint or packed", f.at, f.num, f.typ)
		}
		if len(cs.sw[f.num]) > maxCompactEntries {
			return fmt.Errorf("offset %d: CompactSched field %d: more than %d entries", f.at, f.num, maxCompactEntries)
		}
		return nil
	})
	if err != nil {
		return err
	}
	ns := len(cs.sw[1])
	for _, i := range []int{2, 3, 4, 6} {
		if len(cs.sw[i]) != ns {
			return fmt.Errorf("offset %d: CompactSched: field %d has %d entries, switch_timestamp %d", base, i, len(cs.sw[i]), ns)
		}
	}
	nw := len(cs.sw[7])
	for _, i := range []int{8, 9, 10, 11} {
		if len(cs.sw[i]) != nw {
			return fmt.Errorf("offset %d: CompactSched: field %d has %d entries, waking_timestamp %d", base, i, len(cs.sw[i]), nw)
		}
	}
	if l := len(cs.sw[12]); l != 0 && l != nw {
		return fmt.Errorf("offset %d: CompactSched: waking_common_flags has %d entries, waking_timestamp %d", base, l, nw)
	}
	comm := func(field string, i uint64) (string, error) {
		if i >= uint64(len(cs.intern)) {
			return "", fmt.Errorf("offset %d: CompactSched.%s: index %d outside the intern table (%d entries)", base, field, i, len(cs.intern))
		}
		return cs.intern[i], nil
	}
	// Merge the two streams in time order (switch first on a tie), so that each
	// waking sees the task running at its time.
	c := d.cpuOf(cpu)
	var si, wi int
	var sts, wts uint64
	if ns > 0 {
		sts = cs.sw[1][0]
	}
	if nw > 0 {
		wts = cs.sw[7][0]
	}
	for si < ns || wi < nw {
		if si < ns && (wi >= nw || sts <= wts) {
			next, err := comm("switch_next_comm_index", cs.sw[6][si])
			if err != nil {
				return err
			}
			e := Event{Ts: int64(sts), CPU: cpu, Kind: KindSwitch, PrevPid: -1,
				rawState: int64(cs.sw[2][si]), NextPid: int32(cs.sw[3][si]), NextPrio: int32(cs.sw[4][si]), NextComm: next}
			if c.ok {
				e.Pid, e.PrevPid, e.PrevComm, e.PrevPrio = c.pid, c.pid, c.comm, c.prio
			}
			// The first switch on a CPU has no known prev: kept, with PrevPid -1,
			// for what it says of next (Perfetto drops it).
			*c = curTask{pid: e.NextPid, comm: e.NextComm, prio: e.NextPrio, ok: true}
			d.out = append(d.out, e)
			si++
			if si < ns {
				sts += cs.sw[1][si]
			}
			continue
		}
		name, err := comm("waking_comm_index", cs.sw[11][wi])
		if err != nil {
			return err
		}
		e := Event{Ts: int64(wts), CPU: cpu, Kind: KindWaking, Pid: -1, Target: int32(cs.sw[8][wi]),
			TargetCPU: int32(cs.sw[9][wi]), Prio: int32(cs.sw[10][wi]), Comm: name}
		if len(cs.sw[12]) > 0 {
			e.IRQ = cs.sw[12][wi]&irqFlags != 0
		}
		if c.ok {
			e.Pid = c.pid
		}
		d.out = append(d.out, e)
		wi++
		if wi < nw {
			wts += cs.sw[7][wi]
		}
	}
	return nil
}

package kerneltrace

// FtraceEventBundle: one CPU's events, full FtraceEvent messages and/or the
// compact_sched arrays.

import (
	"fmt"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
)

// cpuOf returns the CPU's running-task record.
func (d *pfDecoder) cpuOf(cpu int32) *curTask {
	c := d.cur[cpu]
	if c == nil {
		c = &curTask{}
		d.cur[cpu] = c
	}
	return c
}

func (d *pfDecoder) bundle(b []byte, base int) error {
	var cpu int32
	var lost bool
	var prevEnd int64
	var events []field
	var compact *field
	err := walk(b, base, "FtraceEventBundle", func(f field) error {
		switch f.num {
		case fBundleCPU:
			if err := f.want("FtraceEventBundle", "cpu", protowire.VarintType); err != nil {
				return err
			}
			if f.x > MaxCPUs {
				return fmt.Errorf("offset %d: FtraceEventBundle.cpu: %d is above %d", f.at, f.x, MaxCPUs)
			}
			cpu = int32(f.x)
		case fBundleEvent:
			if err := f.want("FtraceEventBundle", "event", protowire.BytesType); err != nil {
				return err
			}
			events = append(events, f)
		case fBundleLost:
			lost = f.x != 0
		case fBundlePrevEnd:
			prevEnd = int64(f.x)
		case fBundleCompact:
			if err := f.want("FtraceEventBundle", "compact_sched", protowire.BytesType); err != nil {
				return err
			}
			compact = &f
		}
		return nil
	})
	if err != nil {
		return err
	}
	d.maxCPU = max(d.maxCPU, cpu)
	first := len(d.out)
	// The cpu field may follow the events in the encoding: decode them after.
	for _, f := range events {
		if err := d.event(f.v, f.at, cpu); err != nil {
			return err
		}
	}
	if compact != nil {
		if err := d.compact(compact.v, compact.at, cpu); err != nil {
			return err
		}
	}
	if lost {
		// Events before this bundle on this CPU are incomplete: valid from its
		// first event on (perfetto ftrace_parser.cc crops the same way), or
		// from the end of the previous read when the bundle has none.
		d.t.LostEvents++
		ts := prevEnd
		for i, e := range d.out[first:] {
			if i == 0 || e.Ts < ts {
				ts = e.Ts
			}
		}
		d.t.ValidFromNs = max(d.t.ValidFromNs, ts)
	}
	return nil
}

// MaxCPUs bounds a CPU number read from a trace (Linux's NR_CPUS maximum).
const MaxCPUs = 8192

// event decodes one full FtraceEvent.
func (d *pfDecoder) event(b []byte, base int, cpu int32) error {
	e := Event{CPU: cpu, Pid: -1}
	var payload *field
	var flags uint64
	err := walk(b, base, "FtraceEvent", func(f field) error {
		switch f.num {
		case fEvTs:
			if err := f.want("FtraceEvent", "timestamp", protowire.VarintType); err != nil {
				return err
			}
			e.Ts = int64(f.x)
		case fEvPid:
			e.Pid = int32(f.x)
		case fEvFlags:
			flags = f.x
		case fEvSwitch, fEvWakeup, fEvWaking, fEvWakeupNew, fEvNewtask, fEvRename, fEvExec, fEvExit, fEvFork, fEvFree, fEvMigrateTask:
			if err := f.want("FtraceEvent", "event", protowire.BytesType); err != nil {
				return err
			}
			payload = &f
		}
		return nil
	})
	if err != nil || payload == nil {
		return err
	}
	e.IRQ = flags&irqFlags != 0
	c := d.cpuOf(cpu)
	p := payload
	// Every payload's fields are strings and varints: read them into a small
	// table by field number, then pick by message.
	var s [8]string
	var n [8]int64
	err = walk(p.v, p.at, "FtraceEvent payload", func(f field) error {
		if f.num < 1 || f.num >= 8 {
			return nil
		}
		switch f.typ {
		case protowire.BytesType:
			s[f.num] = string(f.v)
		case protowire.VarintType:
			n[f.num] = int64(f.x)
		}
		return nil
	})
	if err != nil {
		return err
	}
	switch p.num {
	case fEvSwitch: // prev_comm 1, prev_pid 2, prev_prio 3, prev_state 4, next_comm 5, next_pid 6, next_prio 7
		e.Kind = KindSwitch
		e.PrevComm, e.PrevPid, e.PrevPrio, e.rawState = s[1], int32(n[2]), int32(n[3]), n[4]
		e.NextComm, e.NextPid, e.NextPrio = s[5], int32(n[6]), int32(n[7])
		*c = curTask{pid: e.NextPid, comm: e.NextComm, prio: e.NextPrio, ok: true}
	case fEvWaking, fEvWakeup: // comm 1, pid 2, prio 3, success 4, target_cpu 5
		e.Kind = KindWaking
		e.Comm, e.Target, e.Prio, e.TargetCPU = s[1], int32(n[2]), int32(n[3]), int32(n[5])
		e.WakeupOnly = p.num == fEvWakeup
		// scxtop writes the wakee as the event's pid (TRACES.md 1.6): then the
		// waker is the task running on the CPU.
		if e.Pid < 0 || e.Pid == e.Target {
			e.Pid = -1
			if c.ok {
				e.Pid = c.pid
			}
		}
	case fEvWakeupNew: // comm 1, pid 2, prio 3
		e.Kind = KindNew
		e.Comm, e.Target, e.Prio = s[1], int32(n[2]), int32(n[3])
	case fEvNewtask: // pid 1, comm 2, clone_flags 3
		e.Kind = KindNew
		e.Target, e.Comm, e.CloneFlags = int32(n[1]), s[2], uint64(n[3])
	case fEvFork: // parent_comm 1, parent_pid 2, child_comm 3, child_pid 4
		e.Kind = KindNew
		e.Pid, e.Comm, e.Target = int32(n[2]), s[3], int32(n[4])
	case fEvRename: // pid 1, oldcomm 2, newcomm 3
		e.Kind = KindRename
		e.Target, e.Comm = int32(n[1]), s[3]
	case fEvExec: // filename 1, pid 2, old_pid 3: the task takes the file's base name
		e.Kind = KindRename
		e.Target, e.Comm = int32(n[2]), s[1][strings.LastIndexByte(s[1], '/')+1:]
	case fEvExit: // comm 1, pid 2, tgid 3, prio 4
		e.Kind = KindExit
		e.Comm, e.Target, e.Tgid, e.Prio = s[1], int32(n[2]), int32(n[3]), int32(n[4])
	case fEvFree: // comm 1, pid 2, prio 3
		e.Kind = KindFree
		e.Comm, e.Target, e.Prio = s[1], int32(n[2]), int32(n[3])
	case fEvMigrateTask: // comm 1, pid 2, prio 3, orig_cpu 4, dest_cpu 5
		e.Kind = KindMigrate
		e.Comm, e.Target, e.Prio, e.OrigCPU, e.TargetCPU = s[1], int32(n[2]), int32(n[3]), int32(n[4]), int32(n[5])
	}
	d.out = append(d.out, e)
	return nil
}

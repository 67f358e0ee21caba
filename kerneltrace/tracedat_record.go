package kerneltrace

// One ring-buffer record: its common_type names the format, whose fields
// give the sched event's values.

import (
	"fmt"
	"strings"
)

func errAt(off int, format string, a ...any) error {
	return fmt.Errorf("offset %d: "+format, append([]any{off}, a...)...)
}

// recReader reads one record's fields by name.
type recReader struct {
	f   *datFile
	ev  *evFormat
	rec []byte
	at  int
	err error
}

func (r *recReader) field(name string) (fmtField, bool) {
	fl, ok := r.ev.fields[name]
	if !ok {
		if r.err == nil {
			r.err = errAt(r.at, "%s record: its format has no field %q", r.ev.name, name)
		}
		return fl, false
	}
	if fl.offset+fl.size > len(r.rec) {
		if r.err == nil {
			r.err = errAt(r.at, "%s record of %d bytes: field %s at [%d, +%d) is outside it", r.ev.name, len(r.rec), name, fl.offset, fl.size)
		}
		return fl, false
	}
	return fl, true
}

// int reads an integer field of 1, 2, 4 or 8 bytes.
func (r *recReader) int(name string) int64 {
	fl, ok := r.field(name)
	if !ok {
		return 0
	}
	b := r.rec[fl.offset:]
	o := r.f.order
	switch fl.size {
	case 1:
		if fl.signed {
			return int64(int8(b[0]))
		}
		return int64(b[0])
	case 2:
		if fl.signed {
			return int64(int16(o.Uint16(b)))
		}
		return int64(o.Uint16(b))
	case 4:
		if fl.signed {
			return int64(int32(o.Uint32(b)))
		}
		return int64(o.Uint32(b))
	case 8:
		return int64(o.Uint64(b))
	}
	if r.err == nil {
		r.err = errAt(r.at, "%s record: field %s is %d bytes, not an integer", r.ev.name, name, fl.size)
	}
	return 0
}

// optInt reads an integer field the format may lack.
func (r *recReader) optInt(name string) int64 {
	if _, ok := r.ev.fields[name]; !ok {
		return 0
	}
	return r.int(name)
}

// str reads a char[N] or __data_loc string field, up to its NUL.
func (r *recReader) str(name string) string {
	fl, ok := r.field(name)
	if !ok {
		return ""
	}
	b := r.rec[fl.offset : fl.offset+fl.size]
	if fl.dataLoc {
		if fl.size != 4 {
			r.err = errAt(r.at, "%s record: __data_loc field %s is %d bytes, want 4", r.ev.name, name, fl.size)
			return ""
		}
		v := r.f.order.Uint32(b)
		off, n := int(v&0xffff), int(v>>16)
		if off+n > len(r.rec) {
			r.err = errAt(r.at, "%s record: %s at [%d, +%d) is outside the record (%d bytes)", r.ev.name, name, off, n, len(r.rec))
			return ""
		}
		b = r.rec[off : off+n]
	}
	if i := strings.IndexByte(string(b), 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

// record turns one record into an Event when it is a sched event.
func (f *datFile) record(rec []byte, at int, cpu int32, ts int64) error {
	if len(rec) < 8 {
		return nil // too short for the common fields: nothing of ours
	}
	ev := f.formats[f.order.Uint16(rec)]
	if ev == nil {
		return nil
	}
	r := &recReader{f: f, ev: ev, rec: rec, at: at}
	e := Event{Ts: ts, CPU: cpu, Pid: int32(r.optInt("common_pid"))}
	e.IRQ = r.optInt("common_flags")&irqFlags != 0
	switch ev.name {
	case "sched_switch":
		e.Kind = KindSwitch
		e.PrevComm, e.PrevPid, e.PrevPrio = r.str("prev_comm"), int32(r.int("prev_pid")), int32(r.optInt("prev_prio"))
		e.PrevState = stateFromRaw(r.int("prev_state"), kernelBefore414(f.tr.KernelRelease))
		e.NextComm, e.NextPid, e.NextPrio = r.str("next_comm"), int32(r.int("next_pid")), int32(r.optInt("next_prio"))
	case "sched_waking", "sched_wakeup", "sched_wakeup_new":
		e.Kind = KindWaking
		if ev.name == "sched_wakeup_new" {
			e.Kind = KindNew
		}
		e.WakeupOnly = ev.name == "sched_wakeup"
		e.Comm, e.Target, e.Prio, e.TargetCPU = r.str("comm"), int32(r.int("pid")), int32(r.optInt("prio")), int32(r.optInt("target_cpu"))
	case "sched_process_fork":
		e.Kind = KindNew
		e.Pid, e.Comm, e.Target = int32(r.int("parent_pid")), r.str("child_comm"), int32(r.int("child_pid"))
	case "task_newtask":
		e.Kind = KindNew
		e.Target, e.Comm, e.CloneFlags = int32(r.int("pid")), r.str("comm"), uint64(r.optInt("clone_flags"))
	case "task_rename":
		e.Kind = KindRename
		e.Target, e.Comm = int32(r.int("pid")), r.str("newcomm")
	case "sched_process_exec":
		e.Kind = KindRename
		file := r.str("filename")
		e.Target, e.Comm = int32(r.int("pid")), file[strings.LastIndexByte(file, '/')+1:]
	case "sched_process_exit", "sched_process_free":
		e.Kind = KindExit
		if ev.name == "sched_process_free" {
			e.Kind = KindFree
		}
		e.Comm, e.Target = r.str("comm"), int32(r.int("pid"))
	case "sched_migrate_task":
		e.Kind = KindMigrate
		e.Comm, e.Target, e.Prio = r.str("comm"), int32(r.int("pid")), int32(r.optInt("prio"))
		e.OrigCPU, e.TargetCPU = int32(r.int("orig_cpu")), int32(r.int("dest_cpu"))
	default:
		return nil
	}
	if r.err != nil {
		return r.err
	}
	f.out = append(f.out, e)
	return nil
}

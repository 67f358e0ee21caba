package kerneltrace

// Perfetto protobuf, decoded by hand over the messages the replay needs. Field
// numbers are google/perfetto's (protos/perfetto/trace/trace.proto,
// trace_packet.proto, ftrace/ftrace_event_bundle.proto, ftrace/ftrace_event.proto,
// ftrace/sched.proto, ftrace/task.proto, ps/process_tree.proto and SystemInfo
// in perfetto_trace.proto); unknown fields are skipped, as proto readers must.

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"io"
	"strconv"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
)

// MaxInflatedBytes bounds what compressed input may inflate to, in total per
// file, so a small hostile file cannot exhaust memory (a zlib bomb).
const MaxInflatedBytes = 1 << 30

// Field numbers.
const (
	fTracePacket = 1 // Trace.packet

	fPktFtrace     = 1   // TracePacket.ftrace_events
	fPktProcTree   = 2   // TracePacket.process_tree
	fPktSystemInfo = 45  // TracePacket.system_info
	fPktZlib       = 50  // TracePacket.compressed_packets
	fPktZstd       = 133 // TracePacket.zstd_compressed_packets

	fBundleCPU     = 1  // FtraceEventBundle.cpu
	fBundleEvent   = 2  // FtraceEventBundle.event
	fBundleLost    = 3  // FtraceEventBundle.lost_events
	fBundleCompact = 4  // FtraceEventBundle.compact_sched
	fBundlePrevEnd = 10 // FtraceEventBundle.previous_bundle_end_timestamp

	fEvTs          = 1   // FtraceEvent.timestamp
	fEvPid         = 2   // FtraceEvent.pid
	fEvFlags       = 5   // FtraceEvent.common_flags
	fEvSwitch      = 4   // FtraceEvent.sched_switch
	fEvWakeup      = 17  // FtraceEvent.sched_wakeup
	fEvWaking      = 20  // FtraceEvent.sched_waking
	fEvWakeupNew   = 114 // FtraceEvent.sched_wakeup_new
	fEvNewtask     = 235 // FtraceEvent.task_newtask
	fEvRename      = 236 // FtraceEvent.task_rename
	fEvExec        = 237 // FtraceEvent.sched_process_exec
	fEvExit        = 238 // FtraceEvent.sched_process_exit
	fEvFork        = 239 // FtraceEvent.sched_process_fork
	fEvFree        = 240 // FtraceEvent.sched_process_free
	fEvMigrateTask = 491 // FtraceEvent.sched_migrate_task

	fSysUtsname = 1 // SystemInfo.utsname
	fUtsRelease = 3 // Utsname.release

	fTreeProcess = 1 // ProcessTree.processes
	fTreeThread  = 2 // ProcessTree.threads
)

// irqFlags are common_flags' TRACE_FLAG_HARDIRQ|TRACE_FLAG_SOFTIRQ (perfetto
// thread_state_tracker.cc CommonFlagsToIrqContext).
const irqFlags = 0x08 | 0x10

// curTask is the task last switched in on a CPU: compact sched_switch leaves
// out prev_*, and a compact waking's waker is the task running.
type curTask struct {
	pid  int32
	comm string
	prio int32
	ok   bool
}

type pfDecoder struct {
	t        *Trace
	out      []Event // the events decoded, in file order
	cur      map[int32]*curTask
	inflated int64
	maxCPU   int32
}

// readPerfetto decodes a Perfetto trace.
func readPerfetto(data []byte) (*Trace, error) {
	d := &pfDecoder{t: newTrace(FormatPerfetto), cur: make(map[int32]*curTask), maxCPU: -1}
	if err := d.trace(data, 0, 0); err != nil {
		return nil, fmt.Errorf("perfetto: %w", err)
	}
	d.t.Events = d.out
	old := kernelBefore414(d.t.KernelRelease)
	for i := range d.t.Events {
		if e := &d.t.Events[i]; e.Kind == KindSwitch {
			e.PrevState = stateFromRaw(e.rawState, old)
		}
	}
	d.t.finish()
	d.t.CPUs = max(d.t.CPUs, int(d.maxCPU)+1)
	return d.t, nil
}

// kernelBefore414 says a release such as "4.9.118-foo" is older than 4.14.
// An unknown release is taken as new: traces without system_info are rare
// today and come from current kernels.
func kernelBefore414(release string) bool {
	parts := strings.SplitN(release, ".", 3)
	if len(parts) < 2 {
		return false
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(strings.TrimRightFunc(parts[1], func(r rune) bool { return r < '0' || r > '9' }))
	if err1 != nil || err2 != nil {
		return false
	}
	return major < 4 || (major == 4 && minor < 14)
}

// field is one decoded field: v holds a length-delimited payload, x a
// varint or fixed value; at is the payload's offset in the file.
type field struct {
	num protowire.Number
	typ protowire.Type
	v   []byte
	x   uint64
	at  int
}

// walk calls fn for each field of message b, which starts at offset base.
// A malformed field is an error naming its offset.
func walk(b []byte, base int, msg string, fn func(f field) error) error {
	for off := 0; off < len(b); {
		num, typ, n := protowire.ConsumeTag(b[off:])
		if n < 0 {
			return fmt.Errorf("offset %d: %s: bad field tag: %v", base+off, msg, protowire.ParseError(n))
		}
		f := field{num: num, typ: typ, at: base + off + n}
		var m int
		switch typ {
		case protowire.VarintType:
			f.x, m = protowire.ConsumeVarint(b[off+n:])
		case protowire.Fixed32Type:
			var v uint32
			v, m = protowire.ConsumeFixed32(b[off+n:])
			f.x = uint64(v)
		case protowire.Fixed64Type:
			f.x, m = protowire.ConsumeFixed64(b[off+n:])
		case protowire.BytesType:
			var l uint64
			l, m = protowire.ConsumeVarint(b[off+n:])
			if m >= 0 {
				if l > uint64(len(b)-off-n-m) {
					return fmt.Errorf("offset %d: %s field %d: length %d runs past the end (%d bytes left)",
						base+off, msg, num, l, len(b)-off-n-m)
				}
				f.at += m
				f.v = b[off+n+m : off+n+m+int(l)]
				m += int(l)
			}
		default:
			m = protowire.ConsumeFieldValue(num, typ, b[off+n:])
		}
		if m < 0 {
			return fmt.Errorf("offset %d: %s field %d: %v", base+off, msg, num, protowire.ParseError(m))
		}
		if err := fn(f); err != nil {
			return err
		}
		off += n + m
	}
	return nil
}

// want checks a known field's wire type.
func (f field) want(msg, name string, typ protowire.Type) error {
	if f.typ != typ {
		return fmt.Errorf("offset %d: %s.%s: wire type %d, want %d", f.at, msg, name, f.typ, typ)
	}
	return nil
}

// trace walks a Trace message (a file, or an inflated compressed_packets).
func (d *pfDecoder) trace(b []byte, base, depth int) error {
	return walk(b, base, "Trace", func(f field) error {
		if f.typ == protowire.StartGroupType {
			// Skipping one means reading to its end: no Perfetto writer
			// makes one, and a stream cannot look ahead for it.
			return fmt.Errorf("offset %d: Trace field %d: a group, which no Perfetto trace holds", f.at, f.num)
		}
		if f.num != fTracePacket {
			return nil
		}
		if err := f.want("Trace", "packet", protowire.BytesType); err != nil {
			return err
		}
		return d.packet(f.v, f.at, depth)
	})
}

func (d *pfDecoder) packet(b []byte, base, depth int) error {
	return walk(b, base, "TracePacket", func(f field) error {
		switch f.num {
		case fPktFtrace:
			if err := f.want("TracePacket", "ftrace_events", protowire.BytesType); err != nil {
				return err
			}
			return d.bundle(f.v, f.at)
		case fPktProcTree:
			if err := f.want("TracePacket", "process_tree", protowire.BytesType); err != nil {
				return err
			}
			return d.processTree(f.v, f.at)
		case fPktSystemInfo:
			if err := f.want("TracePacket", "system_info", protowire.BytesType); err != nil {
				return err
			}
			return d.systemInfo(f.v, f.at)
		case fPktZlib:
			if err := f.want("TracePacket", "compressed_packets", protowire.BytesType); err != nil {
				return err
			}
			return d.compressed(f.v, f.at, depth)
		case fPktZstd:
			return fmt.Errorf("offset %d: TracePacket.zstd_compressed_packets: zstd-compressed traces are not supported; "+
				"re-record with zlib compression (compression_type: COMPRESSION_TYPE_DEFLATE) or convert with "+
				"`traceconv decompress_packets`", f.at)
		}
		return nil
	})
}

// compressed inflates a compressed_packets payload: a zlib stream of a Trace
// (perfetto src/tracing/service/zlib_compressor.cc).
func (d *pfDecoder) compressed(b []byte, at, depth int) error {
	if depth > 0 {
		return fmt.Errorf("offset %d: TracePacket.compressed_packets inside compressed packets", at)
	}
	inner, err := inflate(zlibReader(b), MaxInflatedBytes-d.inflated)
	if err != nil {
		return fmt.Errorf("offset %d: TracePacket.compressed_packets: %w", at, err)
	}
	d.inflated += int64(len(inner))
	if err := d.trace(inner, 0, depth+1); err != nil {
		return fmt.Errorf("in compressed_packets at offset %d: %w", at, err)
	}
	return nil
}

func zlibReader(b []byte) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) { return zlib.NewReader(bytes.NewReader(b)) }
}

// inflate reads a whole decompressed stream, refusing more than limit bytes.
func inflate(open func() (io.ReadCloser, error), limit int64) ([]byte, error) {
	r, err := open()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	out, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("at inflated byte %d: %w", len(out), err)
	}
	if int64(len(out)) > limit {
		return nil, fmt.Errorf("inflates to more than %d bytes", MaxInflatedBytes)
	}
	return out, nil
}

func (d *pfDecoder) systemInfo(b []byte, base int) error {
	return walk(b, base, "SystemInfo", func(f field) error {
		if f.num != fSysUtsname || f.typ != protowire.BytesType {
			return nil
		}
		return walk(f.v, f.at, "Utsname", func(u field) error {
			if u.num == fUtsRelease && u.typ == protowire.BytesType {
				d.t.KernelRelease = string(u.v)
			}
			return nil
		})
	})
}

// processTree reads thread ids, process ids and names.
func (d *pfDecoder) processTree(b []byte, base int) error {
	return walk(b, base, "ProcessTree", func(f field) error {
		if f.typ != protowire.BytesType {
			return nil
		}
		switch f.num {
		case fTreeProcess:
			var pid int32
			var cmd string
			err := walk(f.v, f.at, "ProcessTree.Process", func(p field) error {
				switch {
				case p.num == 1 && p.typ == protowire.VarintType: // pid
					pid = int32(p.x)
				case p.num == 3 && p.typ == protowire.BytesType && cmd == "": // cmdline[0]
					cmd = string(p.v)
				}
				return nil
			})
			if err != nil {
				return err
			}
			d.t.Tgid[pid] = pid
			if _, ok := d.t.Comm[pid]; !ok && cmd != "" {
				d.t.Comm[pid] = cmd[strings.LastIndexByte(cmd, '/')+1:]
			}
		case fTreeThread:
			var tid, tgid int32
			var name string
			err := walk(f.v, f.at, "ProcessTree.Thread", func(p field) error {
				switch {
				case p.num == 1 && p.typ == protowire.VarintType:
					tid = int32(p.x)
				case p.num == 3 && p.typ == protowire.VarintType:
					tgid = int32(p.x)
				case p.num == 2 && p.typ == protowire.BytesType:
					name = string(p.v)
				}
				return nil
			})
			if err != nil {
				return err
			}
			if tgid != 0 {
				d.t.Tgid[tid] = tgid
			}
			if name != "" {
				d.t.Comm[tid] = name
			}
		}
		return nil
	})
}

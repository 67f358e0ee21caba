package kerneltrace

// A tiny Perfetto encoder for fixtures: the tests write traces with the same
// field numbers the decoder reads, so a fixture is readable Go, not a blob.

import (
	"bytes"
	"compress/zlib"

	"google.golang.org/protobuf/encoding/protowire"
)

type pb []byte

func (b pb) u(num protowire.Number, v uint64) pb {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func (b pb) i(num protowire.Number, v int64) pb { return b.u(num, uint64(v)) }

func (b pb) s(num protowire.Number, v string) pb {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, v)
}

func (b pb) m(num protowire.Number, v pb) pb {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

// packed appends a packed repeated varint field.
func (b pb) packed(num protowire.Number, vs ...int64) pb {
	var p []byte
	for _, v := range vs {
		p = protowire.AppendVarint(p, uint64(v))
	}
	return b.m(num, p)
}

// ev is a full FtraceEvent with one payload.
func ev(ts int64, pid int32, payloadNum protowire.Number, payload pb) pb {
	return pb{}.u(fEvTs, uint64(ts)).i(fEvPid, int64(pid)).m(payloadNum, payload)
}

func swEv(ts int64, prevComm string, prevPid int32, prevState int64, nextComm string, nextPid int32) pb {
	p := pb{}.s(1, prevComm).i(2, int64(prevPid)).i(3, 120).i(4, prevState).s(5, nextComm).i(6, int64(nextPid)).i(7, 120)
	return ev(ts, prevPid, fEvSwitch, p)
}

func wakingEv(ts int64, waker int32, comm string, pid int32, targetCPU int32) pb {
	return ev(ts, waker, fEvWaking, pb{}.s(1, comm).i(2, int64(pid)).i(3, 120).i(4, 1).i(5, int64(targetCPU)))
}

func newtaskEv(ts int64, parent int32, child int32, comm string, flags uint64) pb {
	return ev(ts, parent, fEvNewtask, pb{}.i(1, int64(child)).s(2, comm).u(3, flags))
}

func exitEv(ts int64, pid int32, comm string, tgid int32) pb {
	return ev(ts, pid, fEvExit, pb{}.s(1, comm).i(2, int64(pid)).i(3, int64(tgid)).i(4, 120))
}

func bundle(cpu uint32, events ...pb) pb {
	b := pb{}.u(fBundleCPU, uint64(cpu))
	for _, e := range events {
		b = b.m(fBundleEvent, e)
	}
	return b
}

func packet(fields pb) pb { return pb{}.m(fTracePacket, fields) }

func ftracePacket(bundle pb) pb { return packet(pb{}.m(fPktFtrace, bundle)) }

func sysInfoPacket(release string) pb {
	return packet(pb{}.m(fPktSystemInfo, pb{}.m(fSysUtsname, pb{}.s(1, "Linux").s(fUtsRelease, release))))
}

// thread and proc are ProcessTree entries.
func treePacket(procs [][2]any, threads [][3]any) pb {
	t := pb{}
	for _, p := range procs {
		t = t.m(fTreeProcess, pb{}.i(1, int64(p[0].(int))).s(3, p[1].(string)))
	}
	for _, th := range threads {
		t = t.m(fTreeThread, pb{}.i(1, int64(th[0].(int))).s(2, th[1].(string)).i(3, int64(th[2].(int))))
	}
	return packet(pb{}.m(fPktProcTree, t))
}

// zlibPacket wraps a Trace's bytes in compressed_packets.
func zlibPacket(inner pb) pb {
	var buf bytes.Buffer
	w := zlib.NewWriter(&buf)
	w.Write(inner)
	w.Close()
	return packet(pb{}.m(fPktZlib, buf.Bytes()))
}

func cat(parts ...pb) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// pingPong is a Perfetto trace of two tasks of one process handing a token
// over on two CPUs: A (101) runs 1 ms, wakes B (102), runs 0.5 ms more and
// blocks; B runs 2 ms, wakes A, and blocks; three rounds. Times in µs.
func pingPong() []byte {
	const us = 1000
	var cpu0, cpu1 []pb
	t := int64(1_000_000)
	cpu0 = append(cpu0, newtaskEv(t, 1, 101, "A", cloneThread), newtaskEv(t, 1, 102, "B", cloneThread))
	for r := range 3 {
		base := t + int64(r)*5000*us
		cpu0 = append(cpu0, swEv(base, "swapper/0", 0, 0, "A", 101))
		cpu0 = append(cpu0, wakingEv(base+1000*us, 101, "B", 102, 1))
		cpu0 = append(cpu0, swEv(base+1500*us, "A", 101, 1, "swapper/0", 0))
		cpu1 = append(cpu1, swEv(base+1010*us, "swapper/1", 0, 0, "B", 102))
		cpu1 = append(cpu1, wakingEv(base+3010*us, 102, "A", 101, 0))
		cpu1 = append(cpu1, swEv(base+3020*us, "B", 102, 1, "swapper/1", 0))
	}
	return cat(sysInfoPacket("6.18.0"),
		treePacket([][2]any{{100, "/usr/bin/pingpong"}}, [][3]any{{101, "A", 100}, {102, "B", 100}}),
		ftracePacket(bundle(1, cpu1...)), ftracePacket(bundle(0, cpu0...)))
}

package kerneltrace

// A trace.dat writer for fixtures (v6, and v7 with or without zlib), over
// this kernel's own header_page and format files (Linux 6.18), so tests
// read files shaped like trace-cmd's without vendoring megabytes.

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
)

const headerPage6_18 = "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n" +
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n" +
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n" +
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n"

const commonFields = "format:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" +
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" +
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" +
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

const switchFormat6_18 = "name: sched_switch\nID: 372\n" + commonFields +
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n" +
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n" +
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n" +
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n" +
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n" +
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n" +
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\nprint fmt: \"prev_comm=%s\"\n"

const wakingFormat6_18 = "name: sched_waking\nID: 375\n" + commonFields +
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n" +
	"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n" +
	"\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n" +
	"\tfield:int target_cpu;\toffset:32;\tsize:4;\tsigned:1;\n\nprint fmt: \"comm=%s\"\n"

type byteOrder interface {
	binary.ByteOrder
	binary.AppendByteOrder
}

type datEnc struct {
	bo byteOrder
	ps int
	// headerPage and formats default to Linux 6.18's (the constants above).
	headerPage string
	formats    []string
}

func (d datEnc) u16(b []byte, v uint16) []byte { return d.bo.AppendUint16(b, v) }
func (d datEnc) u32(b []byte, v uint32) []byte { return d.bo.AppendUint32(b, v) }
func (d datEnc) u64(b []byte, v uint64) []byte { return d.bo.AppendUint64(b, v) }

func comm16(s string) []byte { b := make([]byte, 16); copy(b, s); return b }

func (d datEnc) common(id uint16, flags byte, pid int32) []byte {
	b := d.u16(nil, id)
	b = append(b, flags, 0)
	return d.u32(b, uint32(pid))
}

func (d datEnc) switchRec(prev int32, prevComm string, state int64, next int32, nextComm string) []byte {
	b := append(d.common(372, 0, prev), comm16(prevComm)...)
	b = d.u32(d.u32(b, uint32(prev)), 120)
	b = d.u64(b, uint64(state))
	b = append(b, comm16(nextComm)...)
	return d.u32(d.u32(b, uint32(next)), 120)
}

func (d datEnc) wakingRec(waker int32, irq bool, comm string, pid, cpu int32) []byte {
	var flags byte
	if irq {
		flags = 0x08
	}
	b := append(d.common(375, flags, waker), comm16(comm)...)
	return d.u32(d.u32(d.u32(b, uint32(pid)), 120), uint32(cpu))
}

// rec is a record and its time since the previous one on its CPU.
type rec struct {
	delta uint64
	data  []byte
}

func (d datEnc) evHeader(b []byte, typeLen int, delta uint64) []byte {
	if d.bo == binary.LittleEndian {
		return d.u32(b, uint32(typeLen)|uint32(delta)<<5)
	}
	return d.u32(b, uint32(typeLen)<<27|uint32(delta))
}

// page writes one ring-buffer page: large deltas take a time extend, long
// records a length word, and the rest of the page is padding.
func (d datEnc) page(ts uint64, recs []rec) []byte {
	var data []byte
	for _, r := range recs {
		delta := r.delta
		if delta >= 1<<27 {
			data = d.evHeader(data, rbTimeExtend, delta&(1<<27-1))
			data = d.u32(data, uint32(delta>>27))
			delta = 0
		}
		if n := len(r.data); n <= 28*4 && n%4 == 0 {
			data = d.evHeader(data, n/4, delta)
		} else {
			data = d.u32(d.evHeader(data, 0, delta), uint32(n+4))
		}
		data = append(data, r.data...)
		for len(data)%4 != 0 {
			data = append(data, 0)
		}
	}
	p := d.u64(nil, ts)
	p = d.u64(p, uint64(len(data)))
	p = append(p, data...)
	return append(p, make([]byte, d.ps-len(p))...)
}

func (d datEnc) start(version string) []byte {
	b := append([]byte(traceDatMagic), version...)
	b = append(b, 0)
	if d.bo == binary.BigEndian {
		b = append(b, 1, 8)
	} else {
		b = append(b, 0, 8)
	}
	return d.u32(b, uint32(d.ps))
}

func (d datEnc) headerInfo(b []byte) []byte {
	hp := d.headerPage
	if hp == "" {
		hp = headerPage6_18
	}
	b = append(b, "header_page\x00"...)
	b = d.u64(b, uint64(len(hp)))
	b = append(b, hp...)
	b = append(b, "header_event\x00"...)
	return d.u64(b, 0)
}

func (d datEnc) eventFormats(b []byte) []byte {
	formats := d.formats
	if formats == nil {
		formats = []string{switchFormat6_18, wakingFormat6_18}
	}
	b = append(d.u32(b, 1), "sched\x00"...)
	b = d.u32(b, uint32(len(formats)))
	for _, f := range formats {
		b = append(d.u64(b, uint64(len(f))), f...)
	}
	return b
}

func (d datEnc) cmdlines(b []byte, text string) []byte {
	return append(d.u64(b, uint64(len(text))), text...)
}

func (d datEnc) align(b []byte) []byte {
	for len(b)%d.ps != 0 {
		b = append(b, 0)
	}
	return b
}

// v6 writes a version 6 file with each CPU's pages.
func (d datEnc) v6(cpus [][]byte, cmdlines string) []byte {
	b := d.headerInfo(d.start("6"))
	b = d.eventFormats(d.u32(b, 0)) // no ftrace formats
	b = d.u32(d.u32(b, 0), 0)       // kallsyms, printk
	b = d.cmdlines(b, cmdlines)
	b = d.u32(b, uint32(len(cpus)))
	b = append(b, "options  \x00"...)
	uname := "Linux host 6.18.0 #1 SMP x86_64\x00"
	b = append(d.u32(d.u16(b, 5), uint32(len(uname))), uname...)
	b = d.u16(b, 0)
	b = append(b, "flyrecord\x00"...)
	off := len(b) + 16*len(cpus)
	off += (d.ps - off%d.ps) % d.ps
	for _, c := range cpus {
		b = d.u64(d.u64(b, uint64(off)), uint64(len(c)))
		off += len(c)
	}
	b = d.align(b)
	for _, c := range cpus {
		b = append(b, c...)
	}
	return b
}

func zlibBytes(p []byte) []byte {
	var buf bytes.Buffer
	w := zlib.NewWriter(&buf)
	w.Write(p)
	w.Close()
	return buf.Bytes()
}

// section appends a v7 section, compressed when z.
func (d datEnc) section(b []byte, id uint16, body []byte, z bool) []byte {
	flags := uint16(0)
	if z {
		flags = 1
		body = append(d.u32(d.u32(nil, uint32(len(zlibBytes(body)))), uint32(len(body))), zlibBytes(body)...)
	}
	b = d.u32(d.u16(d.u16(b, id), flags), 0)
	return append(d.u64(b, uint64(len(body))), body...)
}

// v7 writes a version 7 file, zlib-compressed when z.
func (d datEnc) v7(cpus [][]byte, cmdlines string, z bool) []byte {
	b := d.start("7")
	if z {
		b = append(b, "zlib\x001.2.13\x00"...)
	} else {
		b = append(b, "none\x00\x00"...)
	}
	firstOpt := len(b)
	b = d.u64(b, 0) // patched below
	offs := map[uint16]int{}
	offs[16] = len(b)
	b = d.section(b, 16, d.headerInfo(nil), z)
	offs[18] = len(b)
	b = d.section(b, 18, d.eventFormats(nil), z)
	offs[21] = len(b)
	b = d.section(b, 21, d.cmdlines(nil, cmdlines), z)
	data := make([][]byte, len(cpus))
	for i, c := range cpus {
		data[i] = c
		if z {
			data[i] = append(d.u32(nil, 1), d.u32(d.u32(nil, uint32(len(zlibBytes(c)))), uint32(len(c)))...)
			data[i] = append(data[i], zlibBytes(c)...)
		}
	}
	opts := func(flyOff int, cpuOff []int) []byte {
		var o []byte
		for _, id := range []uint16{16, 18, 21} {
			o = d.u64(d.u32(d.u16(o, id), 8), uint64(offs[id]))
		}
		buf := d.u64(nil, uint64(flyOff))
		buf = append(buf, "\x00local\x00"...)
		buf = d.u32(d.u32(buf, uint32(d.ps)), uint32(len(cpus)))
		for i := range cpus {
			buf = d.u64(d.u64(d.u32(buf, uint32(i)), uint64(cpuOff[i])), uint64(len(data[i])))
		}
		o = append(d.u32(d.u16(o, 3), uint32(len(buf))), buf...)
		return d.u64(d.u32(d.u16(o, 0), 8), 0) // DONE, no next
	}
	optOff := len(b)
	size := len(d.section(nil, 0, opts(0, make([]int, len(cpus))), false))
	flyOff := optOff + size
	pos := flyOff + 16
	pos += (d.ps - pos%d.ps) % d.ps
	cpuOff := make([]int, len(cpus))
	for i := range cpus {
		cpuOff[i] = pos
		pos += len(data[i])
	}
	b = d.section(b, 0, opts(flyOff, cpuOff), false)
	flags := uint16(0)
	if z {
		flags = 1
	}
	b = d.u64(d.u32(d.u16(d.u16(b, 3), flags), 0), uint64(pos-flyOff-16))
	b = d.align(b)
	for i := range cpus {
		b = append(b, data[i]...)
	}
	d.bo.PutUint64(b[firstOpt:], uint64(optOff))
	return b
}

package kerneltrace

// trace-cmd's trace.dat, version 6 (trace-cmd.dat.v6(5)): a header (page
// size, endianness), the ring buffer's header_page and header_event
// formats, the tracefs format file of every event, kallsyms, printk
// formats, the saved cmdlines, the CPU count, options, then per CPU the
// raw ring-buffer pages ("flyrecord"). Version 7 (tracedat_v7.go) holds the
// same contents in sections. Events are decoded with the format files, so
// any kernel's field layout reads (tracedat_page.go).

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// datReader reads a trace.dat's numbers in the file's byte order; every
// read is bounds-checked and fails naming the offset and what was read.
// Over a section in memory, b is all of it; over the file (src set), b is
// a window of it at base, moved on as reads go past it, so the header is
// read without the per-CPU data that follows.
type datReader struct {
	b    []byte
	off  int
	base int // offset of b[0] in the file (a section inflated from elsewhere)
	bo   binary.ByteOrder
	src  io.ReaderAt
	end  int64 // with src: where the readable bytes end
}

func (r *datReader) errorf(format string, a ...any) error {
	return fmt.Errorf("offset %d: "+format, append([]any{r.base + r.off}, a...)...)
}

// left is how many bytes remain to read.
func (r *datReader) left() int64 {
	if r.src != nil {
		return r.end - int64(r.base+r.off)
	}
	return int64(len(r.b) - r.off)
}

// window moves a file reader's window to start at its position and hold
// at least n bytes (at least 64 KB when the file has them).
func (r *datReader) window(n uint64) error {
	pos := int64(r.base + r.off)
	if n > uint64(r.end-pos) {
		return nil
	}
	w := make([]byte, max(int64(n), min(1<<16, r.end-pos)))
	if _, err := r.src.ReadAt(w, pos); err != nil && !(errors.Is(err, io.EOF) && pos+int64(len(w)) <= r.end) {
		return fmt.Errorf("offset %d: reading: %w", pos, err)
	}
	r.b, r.base, r.off = w, int(pos), 0
	return nil
}

func (r *datReader) bytes(n uint64, what string) ([]byte, error) {
	if n > uint64(len(r.b)-r.off) && r.src != nil {
		if err := r.window(n); err != nil {
			return nil, err
		}
	}
	if n > uint64(len(r.b)-r.off) {
		return nil, r.errorf("%s: %d bytes, only %d left", what, n, r.left())
	}
	v := r.b[r.off : r.off+int(n)]
	r.off += int(n)
	return v, nil
}

func (r *datReader) u16(what string) (uint16, error) {
	b, err := r.bytes(2, what)
	if err != nil {
		return 0, err
	}
	return r.bo.Uint16(b), nil
}

func (r *datReader) u32(what string) (uint32, error) {
	b, err := r.bytes(4, what)
	if err != nil {
		return 0, err
	}
	return r.bo.Uint32(b), nil
}

func (r *datReader) u64(what string) (uint64, error) {
	b, err := r.bytes(8, what)
	if err != nil {
		return 0, err
	}
	return r.bo.Uint64(b), nil
}

// cstr reads a NUL-terminated string.
func (r *datReader) cstr(what string) (string, error) {
	for {
		for i := r.off; i < len(r.b); i++ {
			if r.b[i] == 0 {
				s := string(r.b[r.off:i])
				r.off = i + 1
				return s, nil
			}
		}
		if r.src == nil || r.left() <= int64(len(r.b)-r.off) {
			return "", r.errorf("%s: no terminating NUL", what)
		}
		if err := r.window(uint64(min(r.left(), int64(2*(len(r.b)-r.off)+1<<16)))); err != nil {
			return "", err
		}
	}
}

// span reads an (offset, size) pair of u64s naming bytes of the file,
// checked against its size.
func (r *datReader) span(fileSize int64, what string) (int64, int64, error) {
	off, err := r.u64(what + " offset")
	if err != nil {
		return 0, 0, err
	}
	size, err := r.u64(what + " size")
	if err != nil {
		return 0, 0, err
	}
	if off > uint64(fileSize) || size > uint64(fileSize)-off {
		return 0, 0, r.errorf("%s [%d, +%d) runs past the end of the file (%d bytes)", what, off, size, fileSize)
	}
	return int64(off), int64(size), nil
}

// fits checks that n entries of at least min bytes each can fit in what is
// left, so a corrupt count fails at once instead of looping for billions
// of empty entries.
func (r *datReader) fits(n uint32, min int, what string) error {
	if uint64(n)*uint64(min) > uint64(r.left()) {
		return r.errorf("%d %s cannot fit in the %d bytes left", n, what, r.left())
	}
	return nil
}

// magicStr reads a fixed marker such as "header_page\0".
func (r *datReader) magic(want string) error {
	b, err := r.bytes(uint64(len(want)), strconv.Quote(want))
	if err != nil {
		return err
	}
	if string(b) != want {
		return fmt.Errorf("offset %d: want %q, found %q", r.base+r.off-len(want), want, b)
	}
	return nil
}

// datFile is what the header sections say.
type datFile struct {
	version  int
	pageSize int
	order    binary.ByteOrder
	// header_page: where the commit word is and its size, where data starts.
	commitOff, commitSize, dataOff int
	formats                        map[uint16]*evFormat
	tr                             *Trace
	// compression names v7's ("none" or "zlib").
	compression string
	// src is the file, of size bytes; cpus its per-CPU data, in file order.
	src  io.ReaderAt
	size int64
	cpus []datCPU
	// out collects decoded events (a page's, when streamed).
	out []Event
}

// datCPU is one CPU's ring-buffer data: where it lies in the file, and
// whether it is in compressed chunks (v7).
type datCPU struct {
	cpu        int32
	off, size  int64
	compressed bool
}

// at returns a reader of the file from off on.
func (f *datFile) at(off int64) *datReader {
	return &datReader{src: f.src, end: f.size, base: int(off), bo: f.order}
}

// readTraceDat decodes a trace.dat file.
func readTraceDat(data []byte) (*Trace, error) {
	f, err := openTraceDat(bytes.NewReader(data), int64(len(data)))
	if err == nil {
		for _, c := range f.cpus {
			err = f.allPages(c)
			if err != nil {
				break
			}
		}
	}
	if err != nil {
		return nil, fmt.Errorf("trace.dat: %w", err)
	}
	f.tr.Events = f.out
	f.tr.finish()
	return f.tr, nil
}

// openTraceDat reads a trace.dat's header: formats, cmdlines, options, and
// where each CPU's data lies; the data is read after, by page.
func openTraceDat(src io.ReaderAt, size int64) (*datFile, error) {
	r := &datReader{src: src, end: size, bo: binary.LittleEndian}
	if err := r.magic(traceDatMagic); err != nil {
		return nil, err
	}
	ver, err := r.cstr("version")
	if err != nil {
		return nil, err
	}
	head, err := r.bytes(2, "endianness and long size")
	if err != nil {
		return nil, err
	}
	switch head[0] {
	case 0:
	case 1:
		r.bo = binary.BigEndian
	default:
		return nil, r.errorf("endianness byte %d, want 0 or 1", head[0])
	}
	ps, err := r.u32("page size")
	if err != nil {
		return nil, err
	}
	if ps < 64 || ps > 1<<20 {
		return nil, r.errorf("page size %d is out of range", ps)
	}
	f := &datFile{pageSize: int(ps), order: r.bo, formats: make(map[uint16]*evFormat), tr: newTrace(FormatTraceDat), src: src, size: size}
	switch ver {
	case "6":
		f.version = 6
		err = f.readV6(r)
	case "7":
		f.version = 7
		err = f.readV7(r)
	default:
		return nil, fmt.Errorf("version %q: only 6 and 7 are read", ver)
	}
	if err != nil {
		return nil, err
	}
	return f, nil
}

func (f *datFile) readV6(r *datReader) error {
	if err := f.headerInfo(r); err != nil {
		return err
	}
	if err := f.ftraceFormats(r); err != nil {
		return err
	}
	if err := f.eventFormats(r); err != nil {
		return err
	}
	for _, what := range []string{"kallsyms", "printk formats"} {
		n, err := r.u32(what + " size")
		if err != nil {
			return err
		}
		if _, err := r.bytes(uint64(n), what); err != nil {
			return err
		}
	}
	if err := f.cmdlines(r); err != nil {
		return err
	}
	cpus, err := r.u32("CPU count")
	if err != nil {
		return err
	}
	if cpus > MaxCPUs {
		return r.errorf("CPU count %d is above %d", cpus, MaxCPUs)
	}
	f.tr.CPUs = int(cpus)
	kind, err := r.bytes(10, "section name")
	if err != nil {
		return err
	}
	if string(kind) == "options  \x00" {
		if err := f.optionsV6(r); err != nil {
			return err
		}
		if kind, err = r.bytes(10, "section name"); err != nil {
			return err
		}
	}
	switch string(kind) {
	case "flyrecord\x00":
	case "latency  \x00":
		return r.errorf("a latency-tracer file holds no sched events")
	default:
		return r.errorf("section %q, want flyrecord", kind)
	}
	for cpu := 0; cpu < int(cpus); cpu++ {
		off, size, err := r.span(f.size, "CPU "+strconv.Itoa(cpu)+" data")
		if err != nil {
			return err
		}
		f.cpus = append(f.cpus, datCPU{cpu: int32(cpu), off: off, size: size})
	}
	return nil
}

// optionsV6 reads options up to the zero id; UNAME tells an old kernel's
// prev_state layout.
func (f *datFile) optionsV6(r *datReader) error {
	for {
		id, err := r.u16("option id")
		if err != nil || id == 0 {
			return err
		}
		n, err := r.u32("option size")
		if err != nil {
			return err
		}
		v, err := r.bytes(uint64(n), "option "+strconv.Itoa(int(id)))
		if err != nil {
			return err
		}
		f.option(id, v)
	}
}

// option keeps what the model uses: the kernel release (UNAME, id 5) and
// the CPU count (CPUCOUNT, id 8).
func (f *datFile) option(id uint16, v []byte) {
	switch id {
	case 5: // "Linux host 4.9.0-foo #1 SMP ... aarch64"
		if fields := strings.Fields(strings.TrimRight(string(v), "\x00")); len(fields) >= 3 {
			f.tr.KernelRelease = fields[2]
		}
	case 8:
		if len(v) >= 4 {
			if n := f.order.Uint32(v); n > 0 && n <= MaxCPUs {
				f.tr.CPUs = max(f.tr.CPUs, int(n))
			}
		}
	}
}

// headerInfo reads header_page (where a page's commit word and data are)
// and header_event.
func (f *datFile) headerInfo(r *datReader) error {
	if err := r.magic("header_page\x00"); err != nil {
		return err
	}
	n, err := r.u64("header_page size")
	if err != nil {
		return err
	}
	hp, err := r.bytes(n, "header_page")
	if err != nil {
		return err
	}
	page := parseFormat(string(hp))
	ts, okT := page.fields["timestamp"]
	commit, okC := page.fields["commit"]
	dataF, okD := page.fields["data"]
	if !okT || !okC || !okD || ts.offset != 0 || ts.size != 8 || commit.offset < 8 || (commit.size != 4 && commit.size != 8) || dataF.offset < commit.offset+commit.size {
		return r.errorf("header_page: want timestamp (8 bytes), commit (4 or 8) and data fields, found %q", hp)
	}
	f.commitOff, f.commitSize, f.dataOff = commit.offset, commit.size, dataF.offset
	if err := r.magic("header_event\x00"); err != nil {
		return err
	}
	if n, err = r.u64("header_event size"); err != nil {
		return err
	}
	_, err = r.bytes(n, "header_event")
	return err
}

func (f *datFile) ftraceFormats(r *datReader) error {
	n, err := r.u32("ftrace format count")
	if err != nil {
		return err
	}
	if err := r.fits(n, 8, "ftrace formats"); err != nil {
		return err
	}
	for range n {
		size, err := r.u64("ftrace format size")
		if err != nil {
			return err
		}
		if _, err := r.bytes(size, "ftrace format"); err != nil {
			return err
		}
	}
	return nil
}

func (f *datFile) eventFormats(r *datReader) error {
	systems, err := r.u32("event system count")
	if err != nil {
		return err
	}
	if err := r.fits(systems, 5, "event systems"); err != nil {
		return err
	}
	for range systems {
		sys, err := r.cstr("event system name")
		if err != nil {
			return err
		}
		n, err := r.u32("event count of " + sys)
		if err != nil {
			return err
		}
		if err := r.fits(n, 8, "formats of "+sys); err != nil {
			return err
		}
		for range n {
			size, err := r.u64("format size")
			if err != nil {
				return err
			}
			at := r.base + r.off
			text, err := r.bytes(size, "format of a "+sys+" event")
			if err != nil {
				return err
			}
			ev := parseFormat(string(text))
			if ev.name == "" || ev.id < 0 || ev.id > 0xffff {
				return fmt.Errorf("offset %d: format of a %s event: no name or ID", at, sys)
			}
			ev.system = sys
			f.formats[uint16(ev.id)] = ev
		}
	}
	return nil
}

// cmdlines reads saved_cmdlines ("pid comm" lines) into Trace.Comm.
func (f *datFile) cmdlines(r *datReader) error {
	n, err := r.u64("cmdlines size")
	if err != nil {
		return err
	}
	b, err := r.bytes(n, "cmdlines")
	if err != nil {
		return err
	}
	for _, line := range strings.Split(string(b), "\n") {
		pid, comm, ok := strings.Cut(strings.TrimSpace(line), " ")
		if p, err := strconv.ParseInt(pid, 10, 32); ok && err == nil {
			f.tr.Comm[int32(p)] = comm
		}
	}
	return nil
}

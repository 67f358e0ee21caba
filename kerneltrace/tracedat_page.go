package kerneltrace

// trace.dat's events: tracefs format files say where each field of an
// event's record lies, and per-CPU ring-buffer pages hold the records
// (the kernel's kernel/trace/ring_buffer.c layout, as libtraceevent's
// kbuffer reads it).

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// fmtField is one field of a format file.
type fmtField struct {
	offset, size int
	signed       bool
	dataLoc      bool // __data_loc: a u32 of offset (low 16 bits) and length
}

// evFormat is a tracefs format file.
type evFormat struct {
	name, system string
	id           int
	fields       map[string]fmtField
}

// parseFormat reads "name: X", "ID: N" and "field:TYPE NAME; offset:N;
// size:N; signed:N;" lines; anything else is ignored.
func parseFormat(text string) *evFormat {
	ev := &evFormat{id: -1, fields: make(map[string]fmtField)}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "name:"):
			ev.name = strings.TrimSpace(line[5:])
		case strings.HasPrefix(line, "ID:"):
			if id, err := strconv.Atoi(strings.TrimSpace(line[3:])); err == nil {
				ev.id = id
			}
		case strings.HasPrefix(line, "field:"):
			var decl string
			var f fmtField
			ok := 0
			for _, part := range strings.Split(line, ";") {
				k, v, _ := strings.Cut(strings.TrimSpace(part), ":")
				n, err := strconv.Atoi(strings.TrimSpace(v))
				switch k {
				case "field":
					decl = strings.TrimSpace(v)
				case "offset":
					f.offset, ok = n, ok+boolInt(err == nil && n >= 0)
				case "size":
					f.size, ok = n, ok+boolInt(err == nil && n >= 0)
				case "signed":
					f.signed = n == 1
				}
			}
			words := strings.Fields(decl)
			if ok != 2 || len(words) == 0 {
				continue
			}
			name := words[len(words)-1]
			if i := strings.IndexByte(name, '['); i >= 0 {
				name = name[:i]
			}
			f.dataLoc = strings.Contains(decl, "__data_loc")
			ev.fields[name] = f
		}
	}
	return ev
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Ring-buffer event types (include/linux/ring_buffer.h).
const (
	rbPadding    = 29
	rbTimeExtend = 30
	rbTimeStamp  = 31
	rbTSShift    = 27
	// rbCommitMask and rbMissedEvents: a page's commit word holds the data
	// size in its low bits and flags above (RB_MISSED_EVENTS).
	rbCommitMask   = 1<<27 - 1
	rbMissedEvents = 1 << 31
)

// datCursor reads one CPU's ring-buffer pages a page at a time: from the
// file, or from its compressed chunks inflated one at a time. Offsets in
// errors are the file's, or for compressed data the data's start plus the
// offset in the inflated bytes (what a reader of the chunks can find).
type datCursor struct {
	f    *datFile
	c    datCPU
	pos  int64 // bytes of this CPU's (inflated) data paged so far
	page []byte
	// compressed data: the chunk reader, chunks left, inflated bytes not
	// yet paged, and the total inflated.
	chunks   *datReader
	left     uint32
	total    uint32
	pend     []byte
	inflated int64
}

func (f *datFile) cursor(c datCPU) (*datCursor, error) {
	k := &datCursor{f: f, c: c}
	if c.compressed {
		k.chunks = &datReader{src: f.src, end: c.off + c.size, base: int(c.off), bo: f.order}
		n, err := k.chunks.u32("chunk count")
		if err != nil {
			return nil, err
		}
		k.left, k.total = n, n
	}
	return k, nil
}

// allPages decodes a CPU's every page into f.out.
func (f *datFile) allPages(c datCPU) error {
	k, err := f.cursor(c)
	if err != nil {
		return err
	}
	for {
		if err := k.next(); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return err
		}
	}
}

// more is a chunkSource: the next page's events.
func (k *datCursor) more(buf []Event) ([]Event, error) {
	k.f.out = buf
	for len(k.f.out) == len(buf) {
		if err := k.next(); err != nil {
			if errors.Is(err, io.EOF) {
				return k.f.out, io.EOF
			}
			return k.f.out, fmt.Errorf("trace.dat: %w", err)
		}
	}
	return k.f.out, nil
}

// next decodes the next page into f.out; io.EOF after the last.
func (k *datCursor) next() error {
	f, ps := k.f, k.f.pageSize
	var page []byte
	if k.c.compressed {
		for len(k.pend) < ps && k.left > 0 {
			c, err := f.inflateBlock(k.chunks, "chunk "+strconv.Itoa(int(k.total-k.left)))
			if err != nil {
				return err
			}
			k.left--
			k.inflated += int64(len(c))
			if k.inflated > MaxInflatedBytes {
				return k.chunks.errorf("trace data inflates to more than %d bytes", MaxInflatedBytes)
			}
			k.pend = append(k.pend, c...)
		}
		if len(k.pend) < f.dataOff {
			return io.EOF
		}
		page = k.pend[:min(ps, len(k.pend))]
	} else {
		n := min(int64(ps), k.c.size-k.pos)
		if n < int64(f.dataOff) {
			return io.EOF
		}
		if cap(k.page) < int(n) {
			k.page = make([]byte, ps)
		}
		page = k.page[:n]
		if _, err := f.src.ReadAt(page, k.c.off+k.pos); err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("offset %d: reading CPU %d data: %w", k.c.off+k.pos, k.c.cpu, err)
		}
	}
	base := int(k.c.off + k.pos)
	k.pos += int64(len(page))
	if k.c.compressed {
		defer func() { k.pend = k.pend[len(page):] }()
	}
	return f.onePage(page, base, k.c.cpu)
}

// onePage decodes one ring-buffer page whose file offset is base.
func (f *datFile) onePage(page []byte, base int, cpu int32) error {
	ts := int64(f.order.Uint64(page))
	var commit uint64
	if f.commitSize == 8 {
		commit = f.order.Uint64(page[f.commitOff:])
	} else {
		commit = uint64(f.order.Uint32(page[f.commitOff:]))
	}
	size := int(commit & rbCommitMask)
	if f.dataOff+size > len(page) {
		return errAt(base+f.commitOff, "CPU %d page: commit says %d bytes of data, the page holds %d", cpu, size, len(page)-f.dataOff)
	}
	if commit&rbMissedEvents != 0 {
		f.tr.LostEvents++
		f.tr.ValidFromNs = max(f.tr.ValidFromNs, ts)
	}
	return f.page(page[f.dataOff:f.dataOff+size], base+f.dataOff, cpu, ts)
}

// page decodes the records of one page's data.
func (f *datFile) page(d []byte, base int, cpu int32, ts int64) error {
	for i := 0; i+4 <= len(d); {
		h := f.order.Uint32(d[i:])
		var typeLen int
		var delta int64
		if f.order == binary.LittleEndian { // type_len in the low 5 bits
			typeLen, delta = int(h&0x1f), int64(h>>5)
		} else {
			typeLen, delta = int(h>>27), int64(h&rbCommitMask)
		}
		at := i
		i += 4
		switch typeLen {
		case rbPadding:
			if delta == 0 { // the rest of the page is padding
				return nil
			}
			if i+4 > len(d) {
				return errAt(base+at, "CPU %d: padding event without its length", cpu)
			}
			i += int(f.order.Uint32(d[i:]))
			if i < at+4 || i > len(d) {
				return errAt(base+at, "CPU %d: padding length runs past the page", cpu)
			}
		case rbTimeExtend, rbTimeStamp:
			if i+4 > len(d) {
				return errAt(base+at, "CPU %d: time extension without its value", cpu)
			}
			v := int64(f.order.Uint32(d[i:]))<<rbTSShift + delta
			i += 4
			if typeLen == rbTimeExtend {
				ts += v
			} else {
				ts = v
			}
		default:
			n := typeLen * 4
			if typeLen == 0 {
				if i+4 > len(d) {
					return errAt(base+at, "CPU %d: event without its length", cpu)
				}
				n = int(f.order.Uint32(d[i:])) - 4
				i += 4
				if n < 0 {
					return errAt(base+at, "CPU %d: event length %d", cpu, n+4)
				}
				n = (n + 3) &^ 3
			}
			if i+n > len(d) || n < 0 {
				return errAt(base+at, "CPU %d: event of %d bytes runs past the page (%d left)", cpu, n, len(d)-i)
			}
			ts += delta
			if err := f.record(d[i:i+n], base+i, cpu, ts); err != nil {
				return err
			}
			i += n
		}
	}
	return nil
}

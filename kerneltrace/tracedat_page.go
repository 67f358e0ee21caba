package kerneltrace

// trace.dat's events: tracefs format files say where each field of an
// event's record lies, and per-CPU ring-buffer pages hold the records
// (the kernel's kernel/trace/ring_buffer.c layout, as libtraceevent's
// kbuffer reads it).

import (
	"encoding/binary"
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

// pages decodes one CPU's ring-buffer pages; base is their file offset.
func (f *datFile) pages(b []byte, base int, cpu int32) error {
	ps := f.pageSize
	for p := 0; p+f.dataOff <= len(b); p += ps {
		page := b[p:min(p+ps, len(b))]
		ts := int64(f.order.Uint64(page))
		var commit uint64
		if f.commitSize == 8 {
			commit = f.order.Uint64(page[f.commitOff:])
		} else {
			commit = uint64(f.order.Uint32(page[f.commitOff:]))
		}
		size := int(commit & rbCommitMask)
		if f.dataOff+size > len(page) {
			return errAt(base+p+f.commitOff, "CPU %d page: commit says %d bytes of data, the page holds %d", cpu, size, len(page)-f.dataOff)
		}
		if commit&rbMissedEvents != 0 {
			f.tr.LostEvents++
			f.tr.ValidFromNs = max(f.tr.ValidFromNs, ts)
		}
		if err := f.page(page[f.dataOff:f.dataOff+size], base+p+f.dataOff, cpu, ts); err != nil {
			return err
		}
	}
	return nil
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

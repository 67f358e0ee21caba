package kerneltrace

// trace.dat version 7 (trace-cmd.dat.v7(5)): after the v6 initial format, a
// compression header ("name\0version\0") and the offset of the first
// options section. Options point at sections (header info, formats,
// cmdlines, one BUFFER per trace instance), each with a 16-byte header and,
// when flagged, compressed: zlib is read, zstd is refused with a clear
// message (it would need a dependency for a rare case).

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"io"
	"strconv"
)

// v7 section and option ids.
const (
	v7Options      = 0
	v7OptBuffer    = 3
	v7HeaderInfo   = 16
	v7FtraceEvents = 17
	v7EventFormats = 18
	v7Cmdlines     = 21
	v7Compressed   = 1 // section flag
)

type v7File struct {
	*datFile
	r        *datReader
	buffers  [][]byte // BUFFER options of the top instance
	sections map[uint16]uint64
}

func (f *datFile) readV7(r *datReader) error {
	v := &v7File{datFile: f, r: r, sections: make(map[uint16]uint64)}
	name, err := r.cstr("compression name")
	if err != nil {
		return err
	}
	if _, err := r.cstr("compression version"); err != nil {
		return err
	}
	switch name {
	case "none", "zlib":
		v.compression = name
	case "zstd":
		return r.errorf("compression zstd: zstd-compressed trace.dat files are not supported; convert with " +
			"`trace-cmd convert --compression none -i trace.dat -o plain.dat`, or give `trace-cmd report -N` text")
	default:
		return r.errorf("compression %q is not supported (none and zlib are)", name)
	}
	next, err := r.u64("first options section offset")
	if err != nil {
		return err
	}
	// Options sections chain; bound the walk so a loop in a corrupt file ends.
	for i := 0; next != 0; i++ {
		if i > 64 {
			return r.errorf("more than 64 options sections (a loop?)")
		}
		if next, err = v.options(next); err != nil {
			return err
		}
	}
	for _, id := range []uint16{v7HeaderInfo, v7FtraceEvents, v7EventFormats, v7Cmdlines} {
		off, ok := v.sections[id]
		if !ok {
			if id == v7HeaderInfo || id == v7EventFormats {
				return fmt.Errorf("trace.dat v7: no section %d (header info or event formats)", id)
			}
			continue
		}
		sr, err := v.section(off, id)
		if err != nil {
			return err
		}
		switch id {
		case v7HeaderInfo:
			err = f.headerInfo(sr)
		case v7FtraceEvents:
			err = f.ftraceFormats(sr)
		case v7EventFormats:
			err = f.eventFormats(sr)
		case v7Cmdlines:
			err = f.cmdlines(sr)
		}
		if err != nil {
			return err
		}
	}
	for _, b := range v.buffers {
		if err := v.buffer(b); err != nil {
			return err
		}
	}
	return nil
}

// section reads the section header at off, checks its id, and returns a
// reader over its (inflated) contents.
func (v *v7File) section(off uint64, want uint16) (*datReader, error) {
	if off > uint64(v.size) {
		return nil, fmt.Errorf("offset %d: section %d lies past the end of the file (%d bytes)", off, want, v.size)
	}
	r := v.at(int64(off))
	id, err := r.u16("section id")
	if err != nil {
		return nil, err
	}
	if id != want {
		return nil, fmt.Errorf("offset %d: section id %d, want %d", off, id, want)
	}
	flags, err := r.u16("section flags")
	if err != nil {
		return nil, err
	}
	if _, err := r.u32("section description"); err != nil {
		return nil, err
	}
	size, err := r.u64("section size")
	if err != nil {
		return nil, err
	}
	body, err := r.bytes(size, "section "+strconv.Itoa(int(id)))
	if err != nil {
		return nil, err
	}
	at := int(off) + 16
	if flags&v7Compressed == 0 {
		return &datReader{b: body, base: at, bo: r.bo}, nil
	}
	inner, err := v.inflateBlock(&datReader{b: body, base: at, bo: r.bo}, "section "+strconv.Itoa(int(id)))
	if err != nil {
		return nil, err
	}
	return &datReader{b: inner, bo: r.bo}, nil
}

// inflateBlock reads "<4 bytes compressed size><4 bytes size><data>" and
// inflates it.
func (f *datFile) inflateBlock(r *datReader, what string) ([]byte, error) {
	csize, err := r.u32(what + " compressed size")
	if err != nil {
		return nil, err
	}
	usize, err := r.u32(what + " size")
	if err != nil {
		return nil, err
	}
	at := r.base + r.off
	data, err := r.bytes(uint64(csize), what+" compressed data")
	if err != nil {
		return nil, err
	}
	if f.compression != "zlib" {
		return nil, fmt.Errorf("offset %d: %s is compressed but the file names compression %q", at, what, f.compression)
	}
	out, err := inflate(func() (io.ReadCloser, error) { return zlib.NewReader(bytes.NewReader(data)) }, min(int64(usize), MaxInflatedBytes))
	if err != nil {
		return nil, fmt.Errorf("offset %d: %s: %w", at, what, err)
	}
	if len(out) != int(usize) {
		return nil, fmt.Errorf("offset %d: %s inflates to %d bytes, its header says %d", at, what, len(out), usize)
	}
	return out, nil
}

// options reads one options section and returns the next one's offset.
func (v *v7File) options(off uint64) (uint64, error) {
	r, err := v.section(off, v7Options)
	if err != nil {
		return 0, err
	}
	for {
		id, err := r.u16("option id")
		if err != nil {
			return 0, err
		}
		n, err := r.u32("option size")
		if err != nil {
			return 0, err
		}
		val, err := r.bytes(uint64(n), "option "+strconv.Itoa(int(id)))
		if err != nil {
			return 0, err
		}
		switch {
		case id == 0: // DONE: the next options section's offset
			if len(val) != 8 {
				return 0, r.errorf("option DONE of %d bytes, want 8", len(val))
			}
			return v.order.Uint64(val), nil
		case id == v7OptBuffer:
			v.buffers = append(v.buffers, val)
		case id >= v7HeaderInfo && id <= v7Cmdlines && len(val) == 8:
			v.sections[id] = v.order.Uint64(val)
		default:
			v.option(id, val)
		}
	}
}

// buffer reads a BUFFER option: the flyrecord section's offset, the
// instance name (only the top instance, "", is read), clock, page size
// and per CPU the data's offset and size.
func (v *v7File) buffer(b []byte) error {
	r := &datReader{b: b, bo: v.order}
	secOff, err := r.u64("BUFFER section offset")
	if err != nil {
		return err
	}
	name, err := r.cstr("BUFFER instance name")
	if err != nil || name != "" {
		return err
	}
	if _, err := r.cstr("BUFFER clock"); err != nil {
		return err
	}
	if _, err := r.u32("BUFFER page size"); err != nil {
		return err
	}
	n, err := r.u32("BUFFER CPU count")
	if err != nil {
		return err
	}
	if n > MaxCPUs {
		return fmt.Errorf("BUFFER option: %d CPUs", n)
	}
	var compressed bool
	if secOff != 0 {
		hdr := v.at(int64(min(secOff, uint64(v.size))))
		if _, err := hdr.u16("flyrecord section id"); err != nil {
			return err
		}
		flags, err := hdr.u16("flyrecord section flags")
		if err != nil {
			return err
		}
		compressed = flags&v7Compressed != 0
	}
	for range n {
		cpu, err := r.u32("BUFFER CPU id")
		if err != nil {
			return err
		}
		if cpu >= MaxCPUs {
			return fmt.Errorf("BUFFER option: CPU %d is above %d", cpu, MaxCPUs)
		}
		off, size, err := r.span(v.size, "BUFFER option: CPU "+strconv.Itoa(int(cpu))+" data")
		if err != nil {
			return err
		}
		v.tr.CPUs = max(v.tr.CPUs, int(cpu)+1)
		v.cpus = append(v.cpus, datCPU{cpu: int32(cpu), off: off, size: size, compressed: compressed})
	}
	return nil
}

package kerneltrace

// A Perfetto trace read as a stream: the file is a Trace message, a run of
// packet fields, so it is read a packet at a time and each packet decoded
// as readPerfetto decodes it; only one packet (or one compressed_packets
// inflated) is in memory at once.

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"
)

type pfSource struct {
	d    *pfDecoder
	r    *bufio.Reader
	off  int64 // file offset of r's next byte
	size int64 // the file's size, -1 when unknown (inflated from gzip)
	pkt  []byte
}

func newPerfettoSource(r io.Reader, size int64, t *Trace) *pfSource {
	return &pfSource{d: &pfDecoder{t: t, cur: make(map[int32]*curTask), maxCPU: -1}, r: bufio.NewReaderSize(r, 1<<16), size: size}
}

func (s *pfSource) more(buf []Event) ([]Event, error) {
	s.d.out = buf
	for len(s.d.out) == len(buf) {
		if err := s.field(); err != nil {
			if errors.Is(err, io.EOF) {
				s.d.t.CPUs = max(s.d.t.CPUs, int(s.d.maxCPU)+1)
				return s.d.out, io.EOF
			}
			return s.d.out, fmt.Errorf("perfetto: %w", err)
		}
	}
	return s.d.out, nil
}

// varint reads a varint of the Trace message; io.EOF only before its first byte.
func (s *pfSource) varint(what string) (uint64, []byte, error) {
	var b [binaryMaxVarint]byte
	for n := 0; n < len(b); n++ {
		c, err := s.r.ReadByte()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				return 0, nil, err
			}
			if n == 0 {
				return 0, nil, io.EOF
			}
			return 0, nil, fmt.Errorf("offset %d: Trace: the file ends inside a %s", s.off-int64(n), what)
		}
		s.off++
		b[n] = c
		if c < 0x80 {
			v, m := protowire.ConsumeVarint(b[:n+1])
			if m < 0 {
				return 0, nil, fmt.Errorf("offset %d: Trace: bad %s: %v", s.off-int64(n+1), what, protowire.ParseError(m))
			}
			return v, b[:n+1], nil
		}
	}
	return 0, nil, fmt.Errorf("offset %d: Trace: bad %s: %v", s.off-int64(len(b)), what, protowire.ParseError(-3))
}

const binaryMaxVarint = 10

// field reads one field of the Trace message and decodes it if a packet.
func (s *pfSource) field() error {
	at := s.off
	_, raw, err := s.varint("field tag")
	if err != nil {
		return err
	}
	num, typ, n := protowire.ConsumeTag(raw)
	if n < 0 {
		return fmt.Errorf("offset %d: Trace: bad field tag: %v", at, protowire.ParseError(n))
	}
	if num == fTracePacket && typ != protowire.BytesType {
		return fmt.Errorf("offset %d: Trace.packet: wire type %d, want %d", s.off, typ, protowire.BytesType)
	}
	switch typ {
	case protowire.VarintType:
		if _, _, err := s.varint("varint field"); err != nil {
			return ends(err, at)
		}
		return nil
	case protowire.Fixed32Type, protowire.Fixed64Type:
		k := 4
		if typ == protowire.Fixed64Type {
			k = 8
		}
		if m, err := s.r.Discard(k); err != nil {
			if !errors.Is(err, io.EOF) {
				return err
			}
			return fmt.Errorf("offset %d: Trace field %d: the file ends inside it (%d of %d bytes)", at, num, m, k)
		}
		s.off += int64(k)
		return nil
	case protowire.BytesType:
	default:
		return fmt.Errorf("offset %d: Trace field %d: wire type %d: a group, which no Perfetto trace holds", at, num, typ)
	}
	l, _, err := s.varint("length")
	if err != nil {
		return ends(err, at)
	}
	body := s.off
	if s.size >= 0 && l > uint64(s.size-body) {
		return fmt.Errorf("offset %d: Trace field %d: length %d runs past the end (%d bytes left)", at, num, l, s.size-body)
	}
	if l > MaxInflatedBytes {
		return fmt.Errorf("offset %d: Trace field %d: length %d is above %d", at, num, l, int64(MaxInflatedBytes))
	}
	if num != fTracePacket {
		m, err := s.r.Discard(int(l))
		s.off += int64(m)
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		if err != nil {
			return fmt.Errorf("offset %d: Trace field %d: length %d runs past the end (%d bytes left)", at, num, l, m)
		}
		return nil
	}
	// Read in steps, so a corrupt length in a stream of unknown size fails
	// at the end of the data rather than allocating what it claims.
	s.pkt = s.pkt[:0]
	for uint64(len(s.pkt)) < l {
		step := min(l-uint64(len(s.pkt)), 1<<20)
		start := len(s.pkt)
		s.pkt = slices.Grow(s.pkt, int(step))[:start+int(step)]
		m, err := io.ReadFull(s.r, s.pkt[start:])
		s.off += int64(m)
		// The file's own end (not an error of a gzip stream under it,
		// which names its place itself).
		if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF { //nolint:errorlint
			return err
		}
		if err != nil {
			return fmt.Errorf("offset %d: Trace field %d: length %d runs past the end (%d bytes left)", at, num, l, start+m)
		}
	}
	return s.d.packet(s.pkt, int(body), 0)
}

// ends turns an end of file inside a field into an error naming it.
func ends(err error, at int64) error {
	if errors.Is(err, io.EOF) {
		return fmt.Errorf("offset %d: Trace: the file ends inside a field", at)
	}
	return err
}

package runner

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"

	"schedplay/engine"
	"schedplay/view"
)

// The wire format between Remote (the page) and Server (a worker): each
// postMessage carries one ArrayBuffer holding a batch of commands (page to worker)
// or of frames (worker to page), integers as varints. It is written by hand rather
// than with encoding/gob or JSON because frames cross 30 to 120 times a second and
// are decoded on the page's thread, inside its frame budget: reflection-based
// codecs cost milliseconds per frame under wasm, and gob adds about 300 KB to each
// binary. Thread names, which never change, cross once per thread. The engine's
// Results (a few times a second) and the scenario (once per arm) cross as their Go
// values (values.go).

// Command opcodes.
const (
	opStart byte = iota + 1
	opAdvance
	opCancel
	opStop
	opStartFrom
	opRewind
)

// Frame and Advance flag bits.
const (
	flagErr = 1 << iota
	flagDone
	flagDecision
	flagResults
	flagStep
	flagSlides
	flagGhosts
	flagBackground
)

// Frame-only flag bits (a frame's flags byte has bits to spare: flagStep and
// the rest above are an Advance's).
const (
	flagResumed   = flagStep   // the arm started from its checkpoint
	flagResumeErr = flagSlides // the arm's checkpoint was refused; why follows
	flagMarked    = flagGhosts // the arm's state was saved here (Frame.Marked)
)

// Advance-only flag bit (an Advance has no error).
const flagMarks = flagErr

// maxCheckpointBytes bounds a checkpoint a StartFrom command carries.
const maxCheckpointBytes = 16 << 20

// encodeStart appends a Start command.
func encodeStart(b []byte, id ArmID, sc engine.Scenario, background bool) []byte {
	b = append(b, opStart)
	b = binary.AppendUvarint(b, uint64(id))
	b = append(b, flagIf(background, flagBackground))
	return appendValue(b, reflect.ValueOf(sc))
}

// encodeStartFrom appends a StartFrom command: a Start's, then the checkpoint.
func encodeStartFrom(b []byte, id ArmID, sc engine.Scenario, checkpoint []byte) []byte {
	b = append(b, opStartFrom)
	b = binary.AppendUvarint(b, uint64(id))
	b = append(b, 0)
	b = appendValue(b, reflect.ValueOf(sc))
	b = binary.AppendUvarint(b, uint64(len(checkpoint)))
	return append(b, checkpoint...)
}

// encodeAdvance appends an Advance command.
func encodeAdvance(b []byte, id ArmID, a Advance) []byte {
	b = append(b, opAdvance)
	b = binary.AppendUvarint(b, uint64(id))
	b = binary.AppendUvarint(b, uint64(a.Seq))
	b = binary.AppendVarint(b, a.ToNs)
	b = append(b, flagIf(a.Step, flagStep)|flagIf(a.Results, flagResults)|flagIf(a.Slides, flagSlides)|flagIf(a.Ghosts, flagGhosts)|
		flagIf(a.Marks, flagMarks))
	b = append(b, byte(a.Until))
	b = binary.AppendVarint(b, int64(a.Select.CPU))
	return binary.AppendVarint(b, int64(a.Select.Thread))
}

// encodeCancel appends a Cancel command; encodeStop a Stop.
func encodeCancel(b []byte, id ArmID, seq uint32) []byte {
	b = append(b, opCancel)
	b = binary.AppendUvarint(b, uint64(id))
	return binary.AppendUvarint(b, uint64(seq))
}

func encodeStop(b []byte, id ArmID) []byte {
	b = append(b, opStop)
	return binary.AppendUvarint(b, uint64(id))
}

// encodeRewind appends a Rewind command.
func encodeRewind(b []byte, id, to ArmID, atNs int64) []byte {
	b = append(b, opRewind)
	b = binary.AppendUvarint(b, uint64(id))
	b = binary.AppendUvarint(b, uint64(to))
	return binary.AppendVarint(b, atNs)
}

// command is one decoded command.
type command struct {
	op         byte
	id         ArmID
	scenario   engine.Scenario
	background bool
	checkpoint []byte
	adv        Advance
	seq        uint32
	to         ArmID // a Rewind's new arm, atNs where it starts
	atNs       int64
}

// decodeCommands reads a batch of commands.
func decodeCommands(msg []byte) ([]command, error) {
	r := reader{b: msg}
	var out []command
	for r.err == nil && r.more() {
		c := command{op: r.byte(), id: ArmID(r.uvarint())}
		switch c.op {
		case opStart, opStartFrom:
			c.background = r.byte()&flagBackground != 0
			readValue(&r, reflect.ValueOf(&c.scenario).Elem())
			if c.op == opStartFrom {
				if c.checkpoint = r.bytes(); len(c.checkpoint) > maxCheckpointBytes {
					r.fail("a checkpoint larger than the limit")
				}
			}
		case opAdvance:
			c.adv.Seq = uint32(r.uvarint())
			c.adv.ToNs = r.varint()
			fl := r.byte()
			c.adv.Step, c.adv.Results = fl&flagStep != 0, fl&flagResults != 0
			c.adv.Slides, c.adv.Ghosts, c.adv.Marks = fl&flagSlides != 0, fl&flagGhosts != 0, fl&flagMarks != 0
			if c.adv.Until = Event(r.byte()); c.adv.Until >= numEvents {
				return out, fmt.Errorf("runner: unknown event %d", c.adv.Until)
			}
			c.adv.Select = Selection{CPU: int32(r.varint()), Thread: int32(r.varint())}
		case opCancel:
			c.seq = uint32(r.uvarint())
		case opRewind:
			c.to, c.atNs = ArmID(r.uvarint()), r.varint()
		case opStop:
		default:
			return out, fmt.Errorf("runner: unknown command %d", c.op)
		}
		out = append(out, c)
	}
	return out, r.err
}

// frameEncoder writes one arm's frames; it remembers how many threads the page
// has been told the names of.
type frameEncoder struct{ named int }

// frameDecoder reads one arm's frames; it keeps the names told so far.
type frameDecoder struct{ threads []threadInfo }

// encode appends f.
func (e *frameEncoder) encode(b []byte, f *Frame) []byte {
	b = binary.AppendUvarint(b, uint64(f.Arm))
	b = binary.AppendUvarint(b, uint64(f.Seq))
	if f.Err != "" {
		b = append(b, flagErr|flagIf(f.ResumeErr != "", flagResumeErr))
		if f.ResumeErr != "" {
			b = appendString(b, f.ResumeErr)
		}
		return appendString(b, f.Err)
	}
	b = append(b, flagIf(f.Done, flagDone)|flagIf(f.HasDecision, flagDecision)|flagIf(f.HasResults, flagResults)|
		flagIf(f.Resumed, flagResumed)|flagIf(f.ResumeErr != "", flagResumeErr)|flagIf(f.Marked, flagMarked))
	if f.ResumeErr != "" {
		b = appendString(b, f.ResumeErr)
	}
	b = appendVarints(b, f.NowNs, f.EndNs, f.Events)
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(f.BusyMs))
	b = e.encodeSnap(b, &f.Snap)
	b = binary.AppendUvarint(b, uint64(len(f.Flights)))
	for _, x := range f.Flights {
		b = append(b, byte(x.Kind), flagIf(x.Ghost, 1))
		b = appendVarints(b, int64(x.From), int64(x.To), x.SentNs, x.DueNs)
	}
	b = binary.AppendUvarint(b, uint64(len(f.Migrations)))
	for _, x := range f.Migrations {
		b = appendVarints(b, int64(x.Thread), int64(x.From), int64(x.To))
	}
	b = appendVarints(b, int64(f.Selected.CPU), int64(f.Selected.Thread))
	if f.HasDecision {
		d := f.Decision
		b = append(b, byte(d.Kind))
		b = appendVarints(b, d.AtNs, int64(d.CPU), int64(d.Target), int64(d.Thread), d.Value)
		b = appendString(b, d.Reason)
	}
	if f.HasResults {
		b = appendValue(b, reflect.ValueOf(f.Results))
		b = append(b, flagIf(f.InWarmup, 1))
		if f.InWarmup {
			b = appendValue(b, reflect.ValueOf(f.Warmup))
		}
		b = appendHistogram(b, &f.Latency)
	}
	return b
}

// appendHistogram writes the non-empty bins only: a latency histogram fills a few
// of its bins.
func appendHistogram(b []byte, h *view.Histogram) []byte {
	b = binary.AppendUvarint(b, uint64(h.N))
	for i, n := range h.Counts {
		if n > 0 {
			b = binary.AppendUvarint(b, uint64(i+1))
			b = binary.AppendUvarint(b, uint64(n))
		}
	}
	return append(b, 0) // end of the bins
}

func readHistogram(r *reader, h *view.Histogram) {
	h.N = int64(r.uvarint())
	for bin := r.uvarint(); bin != 0 && r.err == nil; bin = r.uvarint() {
		if bin > uint64(len(h.Counts)) {
			r.fail("latency bin out of range")
			return
		}
		h.Counts[bin-1] = int64(r.uvarint())
	}
}

func (e *frameEncoder) encodeSnap(b []byte, s *engine.Snapshot) []byte {
	l := &s.Live
	b = appendVarints(b, l.Completed, l.HaltExits, l.Migrations, l.BusyNs, l.SpinNs, l.IdleOverNs,
		l.LatencySumNs, l.WakeToRunSum, l.WakeToRunN, l.HostPollNs, l.SuppressedIPI)
	b = binary.AppendUvarint(b, uint64(len(l.IPIs)))
	b = appendVarints(b, l.IPIs[:]...)
	b = appendInts(b, s.Shared)
	b = binary.AppendUvarint(b, uint64(len(s.CPUs)))
	for i := range s.CPUs {
		c := &s.CPUs[i]
		b = append(b, byte(c.State))
		b = appendVarints(b, int64(c.ID), int64(c.Running), int64(c.Load), c.SpinWindow, c.SpinCap, c.HostPollNs, int64(c.PullSlot))
		b = appendInts(b, c.Runqueue)
		b = appendInts(b, c.Incoming)
	}
	b = binary.AppendUvarint(b, uint64(len(s.Threads)))
	named := min(e.named, len(s.Threads))
	b = binary.AppendUvarint(b, uint64(named))
	for i := range s.Threads {
		t := &s.Threads[i]
		b = append(b, byte(t.State))
		b = appendVarints(b, int64(t.ID), int64(t.CPU))
		if i >= named {
			b = append(b, byte(t.Role), flagIf(t.Pinned, 1), byte(t.Class), flagIf(t.RR, 1))
			b = appendVarints(b, t.Weight, int64(t.RTPrio), t.DLRuntimeNs, t.DLPeriodNs)
			b = appendString(b, t.Name)
		}
	}
	e.named = max(e.named, len(s.Threads))
	b = binary.AppendUvarint(b, uint64(len(s.IPIs)))
	for _, x := range s.IPIs {
		b = append(b, byte(x.Kind), flagIf(x.HaltedTarget, 1))
		b = appendVarints(b, int64(x.From), int64(x.To), x.SentNs, x.DueNs, int64(x.ForThread))
	}
	return b
}

// decodeFrames reads a batch of frames; decoderFor returns the decoder of an arm
// (a throwaway one for an arm the page has stopped).
func decodeFrames(msg []byte, decoderFor func(ArmID) *frameDecoder, dst []Frame) ([]Frame, error) {
	r := reader{b: msg}
	for r.err == nil && r.more() {
		var f Frame
		f.Arm, f.Seq = ArmID(r.uvarint()), uint32(r.uvarint())
		fl := r.byte()
		if fl&flagResumeErr != 0 {
			f.ResumeErr = r.string()
		}
		if fl&flagErr != 0 {
			f.Err = r.string()
		} else {
			decoderFor(f.Arm).decode(&r, &f, fl)
		}
		if r.err == nil {
			dst = append(dst, f)
		}
	}
	return dst, r.err
}

func (d *frameDecoder) decode(r *reader, f *Frame, fl byte) {
	f.Done, f.HasDecision, f.HasResults = fl&flagDone != 0, fl&flagDecision != 0, fl&flagResults != 0
	f.Resumed, f.Marked = fl&flagResumed != 0, fl&flagMarked != 0
	f.NowNs, f.EndNs, f.Events = r.varint(), r.varint(), r.varint()
	f.BusyMs = math.Float64frombits(r.uint64())
	d.decodeSnap(r, &f.Snap)
	f.Snap.NowNs = f.NowNs
	f.Flights = make([]Flight, r.count(6))
	for i := range f.Flights {
		x := &f.Flights[i]
		x.Kind, x.Ghost = engine.IPIKind(r.byte()), r.byte() != 0
		x.From, x.To, x.SentNs, x.DueNs = int32(r.varint()), int32(r.varint()), r.varint(), r.varint()
	}
	f.Migrations = make([]Migration, r.count(3))
	for i := range f.Migrations {
		f.Migrations[i] = Migration{Thread: int32(r.varint()), From: int32(r.varint()), To: int32(r.varint())}
	}
	f.Selected = Selection{CPU: int32(r.varint()), Thread: int32(r.varint())}
	if f.HasDecision {
		f.Decision.Kind = engine.DecisionKind(r.byte())
		f.Decision.AtNs, f.Decision.CPU, f.Decision.Target = r.varint(), int32(r.varint()), int32(r.varint())
		f.Decision.Thread, f.Decision.Value = int32(r.varint()), r.varint()
		f.Decision.Reason = r.string()
	}
	if f.HasResults {
		readValue(r, reflect.ValueOf(&f.Results).Elem())
		if f.InWarmup = r.byte() != 0; f.InWarmup {
			readValue(r, reflect.ValueOf(&f.Warmup).Elem())
		}
		readHistogram(r, &f.Latency)
	}
}

func (d *frameDecoder) decodeSnap(r *reader, s *engine.Snapshot) {
	l := &s.Live
	for _, p := range []*int64{&l.Completed, &l.HaltExits, &l.Migrations, &l.BusyNs, &l.SpinNs, &l.IdleOverNs,
		&l.LatencySumNs, &l.WakeToRunSum, &l.WakeToRunN, &l.HostPollNs, &l.SuppressedIPI} {
		*p = r.varint()
	}
	if n := r.count(1); n != len(l.IPIs) {
		r.fail("IPI kinds differ between the page and the worker")
		return
	}
	for i := range l.IPIs {
		l.IPIs[i] = r.varint()
	}
	s.Shared = r.ints()
	s.CPUs = make([]engine.CPUSnap, r.count(9))
	for i := range s.CPUs {
		c := &s.CPUs[i]
		c.State = engine.CPUState(r.byte())
		c.ID, c.Running, c.Load = int(r.varint()), int(r.varint()), int(r.varint())
		c.SpinWindow, c.SpinCap, c.HostPollNs, c.PullSlot = r.varint(), r.varint(), r.varint(), int(r.varint())
		c.Runqueue, c.Incoming = r.ints(), r.ints()
	}
	s.Threads = make([]engine.ThreadSnap, r.count(3))
	named := int(r.uvarint())
	for i := range s.Threads {
		t := &s.Threads[i]
		t.State = engine.ThreadState(r.byte())
		t.ID, t.CPU = int(r.varint()), int(r.varint())
		if i >= named {
			info := threadInfo{role: engine.ThreadRole(r.byte()), pinned: r.byte() != 0}
			info.class, info.rr = engine.SchedClass(r.byte()), r.byte() != 0
			info.weight, info.rtPrio, info.dlRuntime, info.dlPeriod = r.varint(), int(r.varint()), r.varint(), r.varint()
			info.name = r.string()
			if i >= len(d.threads) {
				d.threads = append(d.threads, make([]threadInfo, i+1-len(d.threads))...)
			}
			d.threads[i] = info
		}
		if i < len(d.threads) {
			ti := &d.threads[i]
			t.Name, t.Role, t.Pinned = ti.name, ti.role, ti.pinned
			t.Class, t.RR, t.Weight, t.RTPrio, t.DLRuntimeNs, t.DLPeriodNs = ti.class, ti.rr, ti.weight, ti.rtPrio, ti.dlRuntime, ti.dlPeriod
		}
	}
	s.IPIs = make([]engine.IPISnap, r.count(7))
	for i := range s.IPIs {
		x := &s.IPIs[i]
		x.Kind, x.HaltedTarget = engine.IPIKind(r.byte()), r.byte() != 0
		x.From, x.To, x.SentNs, x.DueNs, x.ForThread = int(r.varint()), int(r.varint()), r.varint(), r.varint(), int(r.varint())
	}
}

func flagIf(ok bool, bit byte) byte {
	if ok {
		return bit
	}
	return 0
}

func appendVarints(b []byte, vs ...int64) []byte {
	for _, v := range vs {
		b = binary.AppendVarint(b, v)
	}
	return b
}

func appendInts(b []byte, vs []int) []byte {
	b = binary.AppendUvarint(b, uint64(len(vs)))
	for _, v := range vs {
		b = binary.AppendVarint(b, int64(v))
	}
	return b
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// reader decodes a message. The first error sticks and every later read returns
// zero, so a truncated or corrupt message ends decoding with an error, never a
// panic or a huge allocation.
type reader struct {
	b   []byte
	off int
	err error
}

var errShort = errors.New("runner: message ends early")

func (r *reader) more() bool { return r.off < len(r.b) }

func (r *reader) fail(msg string) {
	if r.err == nil {
		r.err = errors.New("runner: " + msg)
	}
}

func (r *reader) byte() byte {
	if r.err != nil || r.off >= len(r.b) {
		if r.err == nil {
			r.err = errShort
		}
		return 0
	}
	r.off++
	return r.b[r.off-1]
}

func (r *reader) uvarint() uint64 { return readVarint(r, binary.Uvarint) }

func (r *reader) varint() int64 { return readVarint(r, binary.Varint) }

// readVarint reads one varint with decode (binary.Varint or binary.Uvarint).
func readVarint[T int64 | uint64](r *reader, decode func([]byte) (T, int)) T {
	if r.err != nil {
		return 0
	}
	v, n := decode(r.b[r.off:])
	if n <= 0 {
		r.err = errShort
		return 0
	}
	r.off += n
	return v
}

func (r *reader) uint64() uint64 {
	if r.err != nil || len(r.b)-r.off < 8 {
		if r.err == nil {
			r.err = errShort
		}
		return 0
	}
	r.off += 8
	return binary.LittleEndian.Uint64(r.b[r.off-8:])
}

// count reads a length whose elements take at least minBytes each, refusing one
// the rest of the message cannot hold.
func (r *reader) count(minBytes int) int {
	n := r.uvarint()
	if n > uint64((len(r.b)-r.off)/max(minBytes, 1)) {
		r.fail("a count exceeds the message")
		return 0
	}
	return int(n)
}

func (r *reader) bytes() []byte {
	n := r.count(1)
	if r.err != nil {
		return nil
	}
	r.off += n
	return r.b[r.off-n : r.off]
}

func (r *reader) string() string { return string(r.bytes()) }

func (r *reader) ints() []int {
	out := make([]int, r.count(1))
	for i := range out {
		out[i] = int(r.varint())
	}
	return out
}

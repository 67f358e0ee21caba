package kerneltrace

// Reading a trace as a stream: events go from the decoder, through the
// ordering stage (order.go), to the builder one at a time, so memory holds
// the model and the events not yet in order, not the file nor its events.
//
// The builder needs a few facts of the whole trace before it has read it:
// whether it has sched_waking, from when on no events were lost, the
// thread groups and names of a Perfetto process tree or a text tgid
// column, the kernel release that says how to read Perfetto's prev_state,
// and how far out of time order the file holds events. The first pass
// takes what has been read so far of each, notes what it took, and checks
// it against the whole trace at the end; when one differs (a process tree
// written last, a first sched_wakeup long before any sched_waking), a
// second pass reads the file again knowing them. The model is therefore
// the one Read and Build make, always; the second pass only costs time.

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
)

// Summary is what a streamed read tells of a trace besides its model.
type Summary struct {
	Format        Format
	CPUs          int
	KernelRelease string
	// Events counts the events decoded, in the window or not.
	Events          int
	FirstNs, LastNs int64
	ValidFromNs     int64
	LostEvents      int
	// Passes is 1, or 2 when the first pass found the trace's facts
	// differ from what it had assumed (see above), 0 for a format read
	// whole (systrace HTML, Chrome JSON, a gzip-wrapped trace.dat).
	Passes int
	// MaxHeld is the most events held at once to put them in order.
	MaxHeld int
}

// detectPrefix is how much of a file Detect sees when a trace is streamed.
const detectPrefix = 1 << 20

// ReadModel reads a trace of size bytes from r and builds its model (Read
// and Build in one, with the same result). Perfetto, ftrace text (also
// gzip-wrapped) and trace.dat are streamed: memory holds the model, the
// events a later one could still precede, and one packet, line or page
// per CPU. Systrace HTML, Chrome JSON and a gzip-wrapped trace.dat are
// read whole. r is read more than once (a second pass, trace.dat's pages
// by offset), so it must be a file or the like, not a pipe.
func ReadModel(r io.ReaderAt, size int64, opts Options) (*Model, *Summary, error) {
	head := make([]byte, min(size, detectPrefix))
	if _, err := r.ReadAt(head, 0); err != nil && !errors.Is(err, io.EOF) {
		return nil, nil, err
	}
	s := &streamer{r: r, size: size, gz: isGzip(head), format: Detect(head)}
	stream := s.format == FormatPerfetto || s.format == FormatText || (s.format == FormatTraceDat && !s.gz)
	if !stream {
		return readWhole(r, size, opts)
	}
	if _, err := newBuilder(&Trace{}, opts, nil); err != nil {
		return nil, nil, err
	}
	m, sum, known, err := s.pass(opts, nil)
	if err != nil || known == nil {
		return m, sum, err
	}
	m, sum, _, err = s.pass(opts, known)
	if sum != nil {
		sum.Passes = 2
	}
	return m, sum, err
}

// readWhole is Read and Build, for the formats not streamed.
func readWhole(r io.ReaderAt, size int64, opts Options) (*Model, *Summary, error) {
	if size > MaxInflatedBytes {
		return nil, nil, fmt.Errorf("a %d-byte file that is not Perfetto, ftrace text or trace.dat by its first %d bytes "+
			"(the formats read as a stream) is too large to read whole (the limit is %d bytes)", size, detectPrefix, int64(MaxInflatedBytes))
	}
	data, err := io.ReadAll(io.NewSectionReader(r, 0, size))
	if err != nil {
		return nil, nil, err
	}
	tr, err := Read(data)
	if err != nil {
		return nil, nil, err
	}
	m, err := Build(tr, opts)
	if err != nil {
		return nil, nil, err
	}
	sum := &Summary{Format: tr.Format, CPUs: tr.CPUs, KernelRelease: tr.KernelRelease, Events: len(tr.Events),
		ValidFromNs: tr.ValidFromNs, LostEvents: tr.LostEvents, MaxHeld: len(tr.Events)}
	if n := len(tr.Events); n > 0 {
		sum.FirstNs, sum.LastNs = tr.Events[0].Ts, tr.Events[n-1].Ts
	}
	return m, sum, nil
}

type streamer struct {
	r      io.ReaderAt
	size   int64
	gz     bool
	format Format
}

// facts are the whole trace's, from a first pass, for a second.
type facts struct {
	meta      *Trace
	late      []int64
	hasWaking bool
}

// opened is one pass's decoders.
type opened struct {
	meta    *Trace
	sources []chunkSource
}

func (s *streamer) open() (*opened, error) {
	if s.format == FormatTraceDat {
		f, err := openTraceDat(s.r, s.size)
		if err != nil {
			return nil, fmt.Errorf("trace.dat: %w", err)
		}
		o := &opened{meta: f.tr}
		for _, c := range f.cpus {
			k, err := f.cursor(c)
			if err != nil {
				return nil, fmt.Errorf("trace.dat: %w", err)
			}
			o.sources = append(o.sources, k)
		}
		return o, nil
	}
	var rd io.Reader = io.NewSectionReader(s.r, 0, s.size)
	size := s.size
	if s.gz {
		z, err := gzip.NewReader(rd)
		if err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
		rd, size = &gzipLimit{r: z, left: MaxInflatedBytes}, -1
	}
	t := newTrace(s.format)
	if s.format == FormatPerfetto {
		return &opened{meta: t, sources: []chunkSource{newPerfettoSource(rd, size, t)}}, nil
	}
	return &opened{meta: t, sources: []chunkSource{newTextSource(rd, t)}}, nil
}

// gzipLimit reads an inflating stream up to MaxInflatedBytes, as Read's
// inflate does, and names gzip in its errors.
type gzipLimit struct {
	r    io.Reader
	left int64
}

func (g *gzipLimit) Read(p []byte) (int, error) {
	if g.left <= 0 {
		var one [1]byte
		if n, _ := g.r.Read(one[:]); n > 0 {
			return 0, fmt.Errorf("gzip: inflates to more than %d bytes", MaxInflatedBytes)
		}
		return 0, io.EOF
	}
	n, err := g.r.Read(p[:min(int64(len(p)), g.left)])
	g.left -= int64(n)
	if err != nil && !errors.Is(err, io.EOF) {
		err = fmt.Errorf("gzip: at inflated byte %d: %w", MaxInflatedBytes-g.left, err)
	}
	return n, err
}

// pass reads the file once. Without known facts (a first pass) it returns
// the facts it found when they differ from what it took, and no model.
func (s *streamer) pass(opts Options, known *facts) (*Model, *Summary, *facts, error) {
	in, err := s.open()
	if err != nil {
		return nil, nil, nil, err
	}
	sum := &Summary{Passes: 1}
	var seenWaking, disorder bool
	maxCPU := int32(-1)
	seen := func(e *Event) {
		if e.Kind == KindWaking && !e.WakeupOnly {
			seenWaking = true
		}
		if sum.Events == 0 || e.Ts < sum.FirstNs {
			sum.FirstNs = e.Ts
		}
		sum.LastNs = max(sum.LastNs, e.Ts)
		sum.Events++
		maxCPU = max(maxCPU, e.CPU)
	}
	ords := make([]*orderer, len(in.sources))
	srcs := make([]eventStream, len(in.sources))
	for i, src := range in.sources {
		late, learn := int64(0), true
		if known != nil {
			late, learn = known.late[i], false
		}
		hold := 0
		if s.format == FormatPerfetto {
			hold = learnHold
		}
		ords[i] = newOrderer(src, late, learn, hold, seen, &disorder)
		srcs[i] = ords[i]
	}
	var st eventStream = &merge{srcs: srcs}
	if len(srcs) == 1 {
		st = srcs[0]
	}
	meta, hasWaking := in.meta, func() bool { return seenWaking }
	if known != nil {
		meta, hasWaking = known.meta, func() bool { return known.hasWaking }
	}
	b, err := newBuilder(meta, opts, hasWaking)
	if err != nil {
		return nil, nil, nil, err
	}
	if known == nil {
		b.seen = &seenFacts{tgid: make(map[int32]int32), comm: make(map[int32]string), tgidOK: true, commOK: true}
	}
	// Perfetto's prev_state is read with the kernel release known when the
	// switch is built (oldUsed: 0 none read, 1 new layout, 2 old, 3 both).
	perfetto, oldUsed := s.format == FormatPerfetto, 0
	for {
		e, err := st.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, nil, err
		}
		if disorder {
			continue // a second pass follows: only read on
		}
		if perfetto && e.Kind == KindSwitch {
			old := kernelBefore414(meta.KernelRelease)
			oldUsed |= 1 << boolInt(old)
			e.PrevState = stateFromRaw(e.rawState, old)
		}
		b.add(e)
	}
	in.meta.CPUs = max(in.meta.CPUs, int(maxCPU)+1)
	t := in.meta
	sum.Format, sum.CPUs, sum.KernelRelease = t.Format, t.CPUs, t.KernelRelease
	sum.ValidFromNs, sum.LostEvents = t.ValidFromNs, t.LostEvents
	for _, o := range ords {
		sum.MaxHeld += o.maxHeld
	}
	if sum.Events == 0 {
		sum.FirstNs = 0
	}
	if known == nil && !s.tookRight(b, disorder, seenWaking, oldUsed) {
		late := make([]int64, len(ords))
		for i, o := range ords {
			late[i] = o.maxLate
		}
		return nil, sum, &facts{meta: t, late: late, hasWaking: seenWaking}, nil
	}
	return b.done(), sum, nil, nil
}

// tookRight checks what a first pass took of the trace before it was
// whole against the whole trace.
func (s *streamer) tookRight(b *builder, disorder, hasWaking bool, oldUsed int) bool {
	t, seen := b.tr, b.seen
	if disorder || !seen.tgidOK || !seen.commOK {
		return false
	}
	if b.wakingAsked != 0 && (b.wakingAsked == 2) != hasWaking {
		return false
	}
	if b.begun && max(seen.start, seen.validFrom) != max(seen.start, t.ValidFromNs) {
		return false
	}
	if oldUsed == 3 || oldUsed != 0 && oldUsed != 1<<boolInt(kernelBefore414(t.KernelRelease)) {
		return false
	}
	for tid, v := range seen.tgid {
		if t.Tgid[tid] != v {
			return false
		}
	}
	for tid, v := range seen.comm {
		if t.Comm[tid] != v {
			return false
		}
	}
	return true
}

// ReadModelBytes is ReadModel over data in memory.
func ReadModelBytes(data []byte, opts Options) (*Model, *Summary, error) {
	return ReadModel(bytes.NewReader(data), int64(len(data)), opts)
}

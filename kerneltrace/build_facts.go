package kerneltrace

// What the builder reads of a trace besides its events: the maps of
// thread groups and names, whether it has sched_waking. A streamed trace
// is still being read when the builder looks (stream.go), so the lookups
// are kept and checked against the whole trace after.

// seenFacts is what a builder took from a trace still being read.
type seenFacts struct {
	start          int64 // the window's start before ValidFromNs
	validFrom      int64
	tgid           map[int32]int32
	comm           map[int32]string
	tgidOK, commOK bool // no lookup of a tid disagreed with an earlier one
}

// tgidOf and commOf read the trace's maps, noting what they said while the
// trace is still being read.
func (b *builder) tgidOf(tid int32) int32 {
	v := b.tr.Tgid[tid]
	if s := b.seen; s != nil {
		if old, ok := s.tgid[tid]; ok && old != v {
			s.tgidOK = false
		}
		s.tgid[tid] = v
	}
	return v
}

func (b *builder) commOf(tid int32) string {
	v := b.tr.Comm[tid]
	if s := b.seen; s != nil {
		if old, ok := s.comm[tid]; ok && old != v {
			s.commOK = false
		}
		s.comm[tid] = v
	}
	return v
}

// traceHasWaking asks once whether the trace has sched_waking.
func (b *builder) traceHasWaking() bool {
	if b.wakingAsked == 0 {
		b.wakingAsked = 1
		if b.hasWaking() {
			b.wakingAsked = 2
		}
	}
	return b.wakingAsked == 2
}

// tgidNow settles l's thread group from the trace's map when the walk needs
// it (a thread's parent's); the others are settled at the end (settleTgids).
func (b *builder) tgidNow(l *live) int32 {
	t := b.thread(l)
	if l.tgidLater {
		t.Tgid, l.tgidLater = b.tgidOf(t.Tid), false
	}
	return t.Tgid
}

// settleTgids gives the threads whose group the walk did not need the
// trace's, now that it is whole.
func (b *builder) settleTgids() {
	for _, l := range b.st {
		if l.tgidLater {
			b.thread(l).Tgid, l.tgidLater = b.tr.Tgid[b.thread(l).Tid], false
		}
	}
}

package engine

// The hackbench workload (docs/mechanisms.md, WAKE_SYNC; rt-tests hackbench over Unix
// stream sockets). Per group, FDs senders each write Loops messages to every one
// of the group's FDs receivers; each receiver has one buffer shared by its group's
// senders, holding SocketMessages messages. A write that gives data to a blocked
// reader wakes it (sync); a writer finding the buffer full blocks and is woken
// (sync) once readers drain it to a quarter.
//
// The start is modelled as hackbench does it, because it decides whether the old
// WAKE_SYNC rule ever fires: the parent forks every child (children start with
// homes spread over the CPUs, as fork balancing leaves them), each child blocks on
// the one start socket, and the parent's single write wakes them all back to back,
// each wake WAKE_SYNC, from the parent's CPU while the other CPUs are idle.
// elapsed_s is the time from that start until the last child has finished.

type hackbench struct {
	cfg       Hackbench
	parent    *thread
	children  []*thread
	sockets   []hbSocket // by receiver index (group*FDs + r)
	remaining int        // children not yet finished
	startNs   int64
}

type hbSocket struct {
	queued  int       // messages in the buffer
	reader  *thread   // blocked reader, or nil
	writers []*thread // writers blocked on a full buffer
}

// Child program counters (in thread.prog) and per-child progress (thread.arg:
// messages done so far).
const (
	hbSender = iota + 1
	hbReceiver
	hbWriteDone = 1 << 30 // flag on prog: a write step just completed
)

func newHackbench(s *Sim) *hackbench {
	hb := &s.sc.Workload.Hackbench
	h := &hackbench{cfg: *hb, sockets: make([]hbSocket, hb.Groups*hb.FDs)}
	h.parent = s.newThread("hackbench", RoleWaker, hb.ParentCPU, false)
	n := len(s.cpus)
	for g := range hb.Groups {
		for i := range hb.FDs {
			r := s.newThread("receiver", RoleWorker, (len(h.children))%n, false)
			r.prog, r.slot = hbReceiver, g*hb.FDs+i
			h.children = append(h.children, r)
			w := s.newThread("sender", RoleWorker, (len(h.children))%n, false)
			w.prog, w.slot = hbSender, g*hb.FDs
			h.children = append(h.children, w)
		}
	}
	h.remaining = len(h.children)
	s.wake(h.parent, -1, false)
	return h
}

func (h *hackbench) event(s *Sim, e event) {}

func (h *hackbench) next(s *Sim, t *thread) (int64, bool) {
	hb := &s.sc.Workload.Hackbench
	if t == h.parent {
		if t.arg == 0 {
			t.arg = 1
			return hb.WriteNs, false // the start byte
		}
		if t.arg == 1 {
			t.arg = 2
			h.startNs = s.now
			for _, c := range h.children {
				s.wake(c, t.cpu, true)
			}
		}
		return 0, true // waits for the children
	}
	if t.prog&hbWriteDone != 0 {
		t.prog &^= hbWriteDone
		h.stepDone(s, t)
	}
	if t.prog == hbSender {
		total := hb.Loops * hb.FDs
		if t.arg == total {
			return 0, h.finish(s, t)
		}
		// Message t.arg goes to receiver t.arg % FDs of the group.
		sk := &h.sockets[t.slot+t.arg%hb.FDs]
		if sk.queued >= hb.SocketMessages {
			sk.writers = append(sk.writers, t)
			return 0, true
		}
		t.prog |= hbWriteDone
		return hb.WriteNs, false
	}
	// Receiver.
	if t.arg == hb.Loops*hb.FDs {
		return 0, h.finish(s, t)
	}
	sk := &h.sockets[t.slot]
	if sk.queued == 0 {
		sk.reader = t
		return 0, true
	}
	t.prog |= hbWriteDone
	return hb.ReadNs, false
}

// stepDone applies a completed write or read: the message lands in (or leaves)
// the buffer and the blocked peer is woken, sync, from this CPU.
func (h *hackbench) stepDone(s *Sim, t *thread) {
	hb := &s.sc.Workload.Hackbench
	if t.prog == hbSender {
		sk := &h.sockets[t.slot+t.arg%hb.FDs]
		sk.queued++
		t.arg++
		if r := sk.reader; r != nil {
			sk.reader = nil
			s.wake(r, t.cpu, true)
		}
		return
	}
	sk := &h.sockets[t.slot]
	sk.queued--
	t.arg++
	if len(sk.writers) > 0 && sk.queued <= hb.SocketMessages/4 {
		for _, w := range sk.writers {
			s.wake(w, t.cpu, true)
		}
		clear(sk.writers)
		sk.writers = sk.writers[:0]
	}
}

// finish marks a child done; the last one ends the run.
func (h *hackbench) finish(s *Sim, t *thread) bool {
	if t.prog != 0 {
		t.prog = 0
		h.remaining--
		s.m.complete(s, s.now-h.startNs)
		if h.remaining == 0 {
			s.finishedNs = s.now
		}
	}
	return true
}

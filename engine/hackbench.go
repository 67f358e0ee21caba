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
	cfg       *Hackbench // the scenario's
	parent    *thread
	start     parentPhase
	children  []hbChild  // by thread.local
	sockets   []hbSocket // by receiver index (group*FDs + r)
	remaining int        // children not yet finished
	startNs   int64
}

// parentPhase is the parent's progress through the start.
type parentPhase uint8

const (
	parentForked  parentPhase = iota // the children are forked: write the start byte
	parentWriting                    // the start byte's write is under way: then wake them all
	parentWaiting                    // the children run; the parent waits for them
)

// hbChild is one sender or receiver.
type hbChild struct {
	t      *thread
	sender bool
	// socket is a receiver's own socket, or a sender's group's first one (it
	// writes message i to socket+i%FDs).
	socket   int
	done     int  // messages written (sender) or read (receiver)
	stepping bool // a write or read step is under way; it takes effect when it ends
	finished bool
}

type hbSocket struct {
	queued  int       // messages in the buffer
	reader  *thread   // blocked reader, or nil
	writers []*thread // writers blocked on a full buffer
}

func newHackbench(s *Sim) *hackbench {
	hb := &s.sc.Workload.Hackbench
	h := &hackbench{cfg: hb, sockets: make([]hbSocket, hb.Groups*hb.FDs)}
	h.parent = s.newThread("hackbench", RoleWaker, hb.ParentCPU, false)
	n := len(s.cpus)
	add := func(name string, sender bool, socket int) {
		t := s.newThread(name, RoleWorker, len(h.children)%n, false)
		t.local = len(h.children)
		h.children = append(h.children, hbChild{t: t, sender: sender, socket: socket})
	}
	for g := range hb.Groups {
		for i := range hb.FDs {
			add("receiver", false, g*hb.FDs+i)
			add("sender", true, g*hb.FDs)
		}
	}
	h.remaining = len(h.children)
	s.wake(h.parent, -1, false)
	return h
}

func (h *hackbench) event(s *Sim, e event) {}

func (h *hackbench) next(s *Sim, t *thread) (int64, bool) {
	hb := h.cfg
	if t == h.parent {
		if h.start == parentForked {
			h.start = parentWriting
			return hb.WriteNs, false // the start byte
		}
		if h.start == parentWriting {
			h.start = parentWaiting
			h.startNs = s.now
			for _, c := range h.children {
				s.wake(c.t, t.cpu, true)
			}
		}
		return 0, true // waits for the children
	}
	c := &h.children[t.local]
	if c.stepping {
		c.stepping = false
		h.stepDone(s, c)
	}
	total := hb.Loops * hb.FDs
	if c.done == total {
		return 0, h.finish(s, c)
	}
	if c.sender {
		// Message c.done goes to receiver c.done % FDs of the group.
		sk := &h.sockets[c.socket+c.done%hb.FDs]
		if sk.queued >= hb.SocketMessages {
			sk.writers = append(sk.writers, t)
			return 0, true
		}
		c.stepping = true
		return hb.WriteNs, false
	}
	sk := &h.sockets[c.socket]
	if sk.queued == 0 {
		sk.reader = t
		return 0, true
	}
	c.stepping = true
	return hb.ReadNs, false
}

// stepDone applies a completed write or read: the message lands in (or leaves)
// the buffer and the blocked peer is woken, sync, from this CPU.
func (h *hackbench) stepDone(s *Sim, c *hbChild) {
	hb := h.cfg
	if c.sender {
		sk := &h.sockets[c.socket+c.done%hb.FDs]
		sk.queued++
		c.done++
		if r := sk.reader; r != nil {
			sk.reader = nil
			s.wake(r, c.t.cpu, true)
		}
		return
	}
	sk := &h.sockets[c.socket]
	sk.queued--
	c.done++
	if len(sk.writers) > 0 && sk.queued <= hb.SocketMessages/4 {
		for _, w := range sk.writers {
			s.wake(w, c.t.cpu, true)
		}
		clear(sk.writers)
		sk.writers = sk.writers[:0]
	}
}

// finish marks a child done; the last one ends the run.
func (h *hackbench) finish(s *Sim, c *hbChild) bool {
	if !c.finished {
		c.finished = true
		h.remaining--
		s.m.complete(s, s.now-h.startNs)
		if h.remaining == 0 {
			s.finishedNs = s.now
		}
	}
	return true
}

// progress is the messages written and read so far, of all there are to move.
func (h *hackbench) progress() (done, total int64) {
	hb := h.cfg
	for _, c := range h.children {
		done += int64(c.done)
	}
	return done, 2 * int64(hb.Groups) * int64(hb.FDs) * int64(hb.FDs) * int64(hb.Loops)
}

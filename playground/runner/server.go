package runner

import "schedplay/engine"

// Server is the worker's side of Remote: it decodes the page's command batches,
// runs them on a Host, and encodes the answers. The worker program (wasm/worker)
// only moves bytes: Handle what arrives, Work in budgets between yields to its
// message loop, post what Flush returns.
type Server struct {
	host *Host
	enc  map[ArmID]*frameEncoder
	out  []byte
}

// NewServer returns a server that reads wall time (ms) from clock.
func NewServer(clock func() float64) *Server {
	s := &Server{enc: map[ArmID]*frameEncoder{}}
	s.host = NewHost(clock, func(f *Frame) {
		e := s.enc[f.Arm]
		if e == nil {
			e = &frameEncoder{}
			s.enc[f.Arm] = e
		}
		s.out = e.encode(s.out, f)
	})
	return s
}

// SetCompiler sets what compiles a scenario's sched_ext policy (Host.SetCompiler).
func (s *Server) SetCompiler(compile engine.ScxCompiler) { s.host.SetCompiler(compile) }

// Handle applies a batch of commands. A malformed batch is applied up to the
// error, which is returned for the worker to log.
func (s *Server) Handle(msg []byte) error {
	cmds, err := decodeCommands(msg)
	for _, c := range cmds {
		switch c.op {
		case opStart:
			delete(s.enc, c.id)
			s.host.Start(c.id, c.scenario, c.background)
		case opStartFrom:
			delete(s.enc, c.id)
			s.host.StartFrom(c.id, c.scenario, c.checkpoint)
		case opAdvance:
			s.host.Advance(c.id, c.adv)
		case opCancel:
			s.host.Cancel(c.id, c.seq)
		case opStop:
			s.host.Stop(c.id)
			delete(s.enc, c.id)
		case opRewind:
			delete(s.enc, c.to)
			s.host.Rewind(c.id, c.to, c.atNs)
			delete(s.enc, c.id)
		}
	}
	return err
}

// Work serves requests until deadlineMs; it reports whether any is left.
func (s *Server) Work(deadlineMs float64) bool { return s.host.Work(deadlineMs) }

// Flush returns the frames encoded since the last call as one message, or nil.
// The message is the caller's: the next frames go into a new buffer.
func (s *Server) Flush() []byte {
	if len(s.out) == 0 {
		return nil
	}
	msg := s.out
	s.out = make([]byte, 0, len(msg))
	return msg
}

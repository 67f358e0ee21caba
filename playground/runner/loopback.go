package runner

// Loopback is the worker path without workers: a Remote whose Servers run in the
// caller's thread when told to. Tests use it to drive everything above the wire
// (the codec, the Server, the view model's advance requests) natively, with each
// worker's progress under their control.
type Loopback struct {
	Remote  *Remote
	servers []*Server
	clock   func() float64
	// Err is the first malformed command batch a Server saw.
	Err error
}

// NewLoopback returns a Remote over workers in-process Servers reading clock.
func NewLoopback(workers int, clock func() float64) *Loopback {
	l := &Loopback{clock: clock}
	for range workers {
		l.servers = append(l.servers, NewServer(clock))
	}
	l.Remote = NewRemote(l)
	return l
}

// Workers implements Transport.
func (l *Loopback) Workers() int { return len(l.servers) }

// Post implements Transport: the worker takes the message in at once, as its
// message loop would between two budgets.
func (l *Loopback) Post(w int, msg []byte) {
	if err := l.servers[w].Handle(msg); err != nil && l.Err == nil {
		l.Err = err
	}
}

// Work lets worker w run for budgetMs and delivers what it answered.
func (l *Loopback) Work(w int, budgetMs float64) {
	l.servers[w].Work(l.clock() + budgetMs)
	if msg := l.servers[w].Flush(); msg != nil {
		l.Remote.Deliver(w, msg)
	}
}

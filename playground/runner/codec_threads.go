package runner

import "schedplay/engine"

// threadInfo is what crosses once per thread.
type threadInfo struct {
	name   string
	role   engine.ThreadRole
	pinned bool
	// The thread's class and its parameters (engine.ThreadSnap), set at
	// its start.
	class               engine.SchedClass
	rr                  bool
	weight              int64
	rtPrio              int
	dlRuntime, dlPeriod int64
}

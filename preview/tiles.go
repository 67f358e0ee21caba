package preview

import (
	"schedplay/engine"
	"schedplay/view"
)

// The card's vCPU tiles are the page's: a recorded Tile is turned back into
// the view.TileInput the page draws a CPU from, and view.DrawTile paints it.

// cpuState reads a Tile's state name; an unknown one (a record from a later
// engine) is drawn as halted, the state that claims least.
func cpuState(name string) engine.CPUState {
	for s := engine.CPURunning; s <= engine.CPUIRQ; s++ {
		if s.String() == name {
			return s
		}
	}
	return engine.CPUHalted
}

// ipiKind reads an IPI's kind name; an unknown one is drawn as a wakeup.
func ipiKind(name string) engine.IPIKind {
	for _, k := range []engine.IPIKind{engine.IPIWakeup, engine.IPIPull, engine.IPIDonate} {
		if k.String() == name {
			return k
		}
	}
	return engine.IPIWakeup
}

// roleOf reads a role letter (roleLetter), upper case for an incoming thread.
func roleOf(letter byte) (engine.ThreadRole, bool) {
	incoming := letter >= 'A' && letter <= 'Z'
	if incoming {
		letter += 'a' - 'A'
	}
	switch letter {
	case 'k':
		return engine.RoleWaker, incoming
	case 's':
		return engine.RoleSpawner, incoming
	case 'b':
		return engine.RoleBalancer, incoming
	case 'h':
		return engine.RoleKernel, incoming
	}
	return engine.RoleWorker, incoming
}

// tileInput is what view.DrawTile needs to draw tile t of CPU cpu. The queue
// holds every queued thread, those past the recorded chips as workers: the
// tile draws the first few and counts the rest ("+n"), and a recorded tile
// keeps more chips than any tile on the card has room for (maxChips).
func tileInput(cpu int, t Tile, gauge bool, queue []view.Chip) view.TileInput {
	in := view.TileInput{CPU: cpu, State: cpuState(t.State), Run: view.Chip{Thread: -1},
		ShowGauge: gauge, SelectedThread: -2, Scale: 1}
	// The gauge is a fraction; the tile reads it as window / cap.
	const gaugeCap = 1 << 20
	in.SpinWindow, in.SpinCap = int64(t.Spin*gaugeCap+0.5), gaugeCap
	if t.Run != "" {
		role, _ := roleOf(t.Run[0])
		in.Run = view.Chip{Thread: 0, Role: role}
	}
	queue = queue[:0]
	for i := range max(t.Queued, len(t.Chips)) {
		ch := view.Chip{Thread: i + 1, Role: engine.RoleWorker}
		if i < len(t.Chips) {
			ch.Role, ch.Incoming = roleOf(t.Chips[i])
		}
		queue = append(queue, ch)
	}
	in.Queue = queue
	return in
}

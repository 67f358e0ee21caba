package engine

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
)

// Checkpoints: the whole state of a simulation as compact bytes, and a
// simulation resumed from them. The engine is deterministic, so the state at
// a moment is a pure function of the scenario; a checkpoint saves computing
// it again. Resuming one and running on gives, event for event, what running
// from time zero gives (results, series and decision records byte-identical,
// natively and in js/wasm; checkpoint_test.go).
//
// # Format (version 2)
//
// A checkpoint is a header and a body. The header is the magic "SPCK", the
// format version (uvarint), the scenario's ScenarioKey (16 bytes), the clock
// and the event count (varints) and the note (a length-prefixed byte string
// the caller chose, e.g. the scenario's JSON so that a refusal can say what
// differs); ReadCheckpointInfo reads it alone. The body is the table of the
// strings it uses (thread names, decision reasons), then, in this order: the
// random generator's state (rand.PCG's binary form), the clock's decay
// normalisation and the finish time, the threads, the CPUs, the kernel
// threads, the pending events, the IPIs in flight, the decision ring, the
// metrics (measured windows with their histograms, live totals, the series),
// the policy's state and the workload's state (their ckSave and ckLoad
// methods, so each kind carries its own), then the magic "END." The
// primitives are in checkpoint_wire.go: varints, times relative to the clock,
// floats as byte-reversed bits, threads by id.
//
// Not in a checkpoint: what follows from the scenario (costs, factors, the
// policy's and workloads' configuration, counts kept as sums of other state,
// which Resume recomputes), scratch space that holds nothing between events,
// and the visual-event ring: a resumed simulation starts with it empty, as if
// drained at the checkpoint (the page drains it after every chunk anyway).
// checkpoint_fields_test.go lists every field of every state type with how it
// is handled, and fails, naming the field, when one appears that the list
// does not have.
//
// # Versioning
//
// An engine reads only checkpoints of its own CheckpointVersion: there is no
// migration, since a checkpoint is a cache that can always be made again from
// its scenario. Any change to what is written (a field added, removed,
// reordered or read differently) bumps the version. A change to what the engine
// does that leaves the layout alone does not, but then an old checkpoint holds
// a state the new engine might never reach: whoever stores checkpoints ties
// them to the engine that made them (the page's are rebuilt with its bundle,
// internal/wasmbuild; a share's are stored under the engine's calibration
// fingerprint, web/).
//
// Resume decodes into a fresh Sim and returns it only when everything read is
// valid: every thread id, CPU id, string, ring and window index in range, each
// thread in exactly one place (blocked, running, in one runqueue, incoming
// list or shared queue), the workload's threads and events its own. It never
// panics on damaged input and allocates only what the input's length can
// hold (FuzzCheckpoint).

// CheckpointVersion is the checkpoint format this engine writes and reads.
const CheckpointVersion = 7

const (
	ckMagic = "SPCK"
	ckEnd   = "END."
	// maxCkWindows bounds the measured windows a checkpoint may hold: each
	// takes three fixed-size histograms once decoded.
	maxCkWindows = 64
	// maxCkThreads bounds the threads: the most any scenario within Limits
	// creates, with room to spare.
	maxCkThreads = MaxClients + MaxHackbenchTasks + MaxSyncPairsTasks + MaxTraceThreads + 4*MaxVCPUs + 16
	// maxCkNote bounds the note.
	maxCkNote = 1 << 20
)

// Checkpoint errors: every error Resume and ReadCheckpointInfo return wraps
// one of them.
var (
	// ErrCheckpointVersion: the checkpoint is of another format version.
	ErrCheckpointVersion = errors.New("checkpoint: another format version")
	// ErrCheckpointScenario: the checkpoint is of another scenario.
	ErrCheckpointScenario = errors.New("checkpoint: another scenario")
	// ErrCheckpointCorrupt: the checkpoint is truncated, damaged or not one.
	ErrCheckpointCorrupt = errors.New("checkpoint: damaged")
	// ErrCheckpointTaskGroups: a run with task groups has no checkpoints
	// yet (their per-CPU queues are not written); it replays from its start.
	ErrCheckpointTaskGroups = errors.New("checkpoint: a run with task groups (sched.groups, rt-app taskgroup) has no checkpoints; it replays from its start")
)

// CheckpointOptions say what a checkpoint keeps beyond the simulation state.
type CheckpointOptions struct {
	// Windows lists the measured windows to keep (see AddWindow), by index,
	// in the order the resumed simulation numbers them; it must start with 0,
	// the scenario's own. Nil keeps every window.
	Windows []int
	// Note is stored as it is and returned by ReadCheckpointInfo (the CLI
	// stores the scenario's JSON, to say what differs when it is refused).
	Note []byte
}

// CheckpointInfo is a checkpoint's header.
type CheckpointInfo struct {
	Version int
	// Key is the scenario's (Scenario.Key).
	Key ScenarioKey
	// NowNs is the simulated time it was taken at; Events the events
	// processed by then.
	NowNs, Events int64
	Note          []byte
}

// AppendCheckpoint appends the simulation's state to dst (see the format
// above). It changes nothing in s, so the run can go on. Taken between two
// events (after Step, RunUntil or RunUntilN returns), it resumes to exactly
// the same run.
func (s *Sim) AppendCheckpoint(dst []byte, o CheckpointOptions) ([]byte, error) {
	if len(s.groups) > 0 {
		return dst, ErrCheckpointTaskGroups
	}
	s.m.settle(s) // the integrals up to now (what they would hold had none been deferred)
	wins := o.Windows
	if wins == nil {
		for i := range s.m.win {
			wins = append(wins, i)
		}
	}
	if len(wins) == 0 || wins[0] != 0 {
		return dst, errors.New("engine.AppendCheckpoint: the windows kept must start with 0, the scenario's own")
	}
	for i, w := range wins {
		if w < 0 || w >= len(s.m.win) || slices.Contains(wins[:i], w) {
			return dst, fmt.Errorf("engine.AppendCheckpoint: window %d is not one of the %d measured windows, or is kept twice", w, len(s.m.win))
		}
	}
	if len(wins) > maxCkWindows {
		return dst, fmt.Errorf("engine.AppendCheckpoint: %d windows are more than a checkpoint keeps (%d)", len(wins), maxCkWindows)
	}
	if k, ok := s.pol.(*ScxKernel); ok {
		data, err := k.prepareSave()
		if err != nil {
			return dst, err
		}
		k.saved = data
	}
	w := &ckWriter{now: s.now, strs: map[string]int{}}
	s.ckSave(w, wins)

	dst = append(dst, ckMagic...)
	key := s.sc.Key()
	hw := &ckWriter{b: dst}
	hw.n(CheckpointVersion)
	hw.b = append(hw.b, key[:]...)
	hw.iv(s.now)
	hw.iv(s.events)
	hw.n(len(o.Note))
	hw.b = append(hw.b, o.Note...)
	hw.n(len(w.tab))
	for _, str := range w.tab {
		hw.n(len(str))
		hw.b = append(hw.b, str...)
	}
	hw.b = append(hw.b, w.b...)
	return append(hw.b, ckEnd...), nil
}

// ReadCheckpointInfo reads a checkpoint's header.
func ReadCheckpointInfo(data []byte) (CheckpointInfo, error) {
	r := &ckReader{b: data, idx: -1}
	info := readHeader(r)
	return info, r.err
}

func readHeader(r *ckReader) CheckpointInfo {
	var info CheckpointInfo
	r.in("header", -1)
	if !bytes.HasPrefix(r.b, []byte(ckMagic)) {
		r.failf("not a schedplay checkpoint (it does not start with %q)", ckMagic)
		return info
	}
	r.off = len(ckMagic)
	v := r.uv()
	if r.err != nil {
		return info
	}
	if v != CheckpointVersion {
		r.err = fmt.Errorf("%w: the checkpoint is format version %d; this engine reads version %d (make it again from its scenario)", ErrCheckpointVersion, v, CheckpointVersion)
		return info
	}
	info.Version = int(v)
	if len(r.b)-r.off < len(info.Key) {
		r.short()
		return info
	}
	copy(info.Key[:], r.b[r.off:])
	r.off += len(info.Key)
	info.NowNs = r.iv()
	info.Events = r.iv()
	if info.NowNs < 0 || info.Events < 0 {
		r.failf("negative clock %d or event count %d", info.NowNs, info.Events)
	}
	info.Note = r.raw(maxCkNote)
	return info
}

// Resume rebuilds the simulation a checkpoint of sc saved (with the measured
// windows it kept), ready to run on; Step, RunUntil and the rest then go on
// exactly as the saved run would have. It refuses, changing nothing, a
// checkpoint of another scenario (ErrCheckpointScenario) or format version
// (ErrCheckpointVersion), and a damaged one (ErrCheckpointCorrupt, naming
// where). Visual events are recorded as NewSim's are (SetVisual), none before
// the checkpoint's moment.
func Resume(sc Scenario, data []byte) (*Sim, error) { return ResumeScx(sc, data, nil) }

// ResumeScx is Resume with the compiler of sched.scx.source (NewSimScx).
func ResumeScx(sc Scenario, data []byte, compile ScxCompiler) (*Sim, error) {
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	ops, err := scxOpsFor(sc, compile)
	if err != nil {
		return nil, err
	}
	r := &ckReader{b: data, idx: -1}
	info := readHeader(r)
	if r.err != nil {
		return nil, r.err
	}
	if key := sc.Key(); info.Key != key {
		return nil, fmt.Errorf("%w: it was taken from the scenario with key %s; this scenario's key is %s", ErrCheckpointScenario, info.Key, key)
	}
	r.in("strings", -1)
	r.tab = make([]string, r.count(1, 1<<16))
	for i := range r.tab {
		r.tab[i] = string(r.raw(1 << 12))
	}
	s := newSimBase(sc, ops)
	r.s, r.now = s, info.NowNs
	s.now, s.events = info.NowNs, info.Events
	if s.now > s.end {
		r.in("header", -1)
		r.failf("the clock %d ns is past the horizon %d ns", s.now, s.end)
	}
	s.ckLoad(r)
	if r.err == nil {
		r.in("end", -1)
		if !bytes.Equal(r.b[r.off:], []byte(ckEnd)) {
			r.failf("%d bytes where the end mark should be", len(r.b)-r.off)
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	return s, nil
}

// workloadShell is the workload of s's scenario with its configuration and no
// state, for ckLoad to fill. A workload kind missing here cannot be resumed;
// checkpoint_fields_test.go resumes every kind, so a new one fails there.
func workloadShell(s *Sim) (workload, error) {
	switch s.sc.Workload.Kind {
	case WorkloadRequestServer:
		return &requestServer{}, nil
	case WorkloadCommit:
		return &commitWorkload{}, nil
	case WorkloadHackbench:
		return &hackbench{cfg: &s.sc.Workload.Hackbench}, nil
	case WorkloadSchbench:
		return &schbench{cfg: &s.sc.Workload.Schbench}, nil
	case WorkloadSyncPairs:
		return &syncPairs{cfg: &s.sc.Workload.SyncPairs}, nil
	case WorkloadThreadPerConn:
		return &threadPerConn{}, nil
	case WorkloadIdle:
		return idleWorkload{}, nil
	case WorkloadRTApp:
		return rtappShell(s), nil
	case WorkloadTrace:
		return traceShell(s), nil
	}
	return nil, fmt.Errorf("workload kind %q has no checkpoint support", s.sc.Workload.Kind)
}

// WindowIndex returns the index of the measured window [fromMs, toMs) (clipped
// to the horizon, as AddWindow clips it), or -1 when there is none: a resumed
// simulation has the windows its checkpoint kept, which ResultsWindow then
// reads by their new index.
func (s *Sim) WindowIndex(fromMs, toMs int64) int {
	from, to := fromMs*1e6, min(toMs*1e6, s.end)
	for i, w := range s.m.win {
		if w.from == from && w.to == to {
			return i
		}
	}
	return -1
}

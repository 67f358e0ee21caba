package engine

import "fmt"

// The sched_ext core's part of a checkpoint (checkpoint.go has the format):
// the DSQs, the tasks' scx state, the idle mask's claimed bits, which CPUs
// the policy was told are idle and where each CPU's idle search resumes, the timer, the
// exit, and the policy's own state (ScxOps.SaveState: a Starlark policy's
// globals). The fair class after an ejection follows from the scenario.

// prepareSave asks the policy for its state before anything is written, so
// that a policy whose state cannot be saved fails the checkpoint by name.
func (k *ScxKernel) prepareSave() ([]byte, error) {
	if k.fair != nil {
		return nil, nil
	}
	data, err := k.ops.SaveState()
	if err != nil {
		return nil, fmt.Errorf("engine.AppendCheckpoint: the sched_ext policy's state cannot be saved: %w", err)
	}
	return data, nil
}

func (k *ScxKernel) ckSave(w *ckWriter) {
	ckSaveDSQ(w, &k.global)
	w.n(len(k.dsqs))
	for i := range k.dsqs {
		w.iv(k.dsqs[i].id)
		ckSaveDSQ(w, &k.dsqs[i])
	}
	w.n(len(k.tasks))
	for _, st := range k.tasks {
		w.iv(st.slice)
		w.iv(st.granted)
		w.iv(st.vtime)
		w.iv(st.dsq)
		w.bool(st.enabled)
	}
	for i, c := range k.claimed {
		w.bool(c)
		w.bool(k.released[i])
	}
	for i, seen := range k.idleSeen {
		w.bool(seen)
		w.iv(int64(k.distPrev[i]))
	}
	w.iv(int64(k.distPrev[len(k.idleSeen)]))
	w.iv(k.timerAt)
	w.n(k.timerCPU)
	w.uv(uint64(k.timerGen))
	w.iv(k.exitNs)
	w.str(k.exit)
	data := k.saved
	k.saved = nil
	w.n(len(data))
	w.b = append(w.b, data...)
}

func ckSaveDSQ(w *ckWriter, d *scxDSQ) {
	w.flags(d.fifo, d.vtime)
	w.threads(d.q)
}

func (k *ScxKernel) ckLoad(r *ckReader, s *Sim) {
	n := len(s.threads)
	ckLoadDSQ(r, &k.global, n)
	nd := r.count(2, 1024)
	k.dsqs = make([]scxDSQ, 0, nd)
	for range nd {
		d := scxDSQ{id: r.intIn(0, ScxDSQMaxUser-1)}
		ckLoadDSQ(r, &d, n)
		k.dsqs = append(k.dsqs, d)
	}
	nt := r.count(4, n)
	k.tasks = make([]scxTaskState, nt)
	for i := range k.tasks {
		st := &k.tasks[i]
		st.slice = r.intIn(0, ScxSliceInf)
		st.granted = r.intIn(0, ScxSliceInf)
		st.vtime = r.iv()
		st.dsq = r.iv()
		st.enabled = r.bool()
	}
	for i := range k.claimed {
		k.claimed[i] = r.bool()
		k.released[i] = r.bool()
	}
	for i := range k.idleSeen {
		k.idleSeen[i] = r.bool()
		k.distPrev[i] = int(r.intIn(-1, int64(len(s.cpus)-1)))
	}
	k.distPrev[len(k.idleSeen)] = int(r.intIn(-1, int64(len(s.cpus)-1)))
	k.timerAt = r.iv()
	k.timerCPU = int(r.intIn(0, int64(len(s.cpus)-1)))
	k.timerGen = r.u32()
	k.exitNs = r.intIn(-1, s.now)
	k.exit = r.str()
	data := r.raw(MaxScxSourceBytes * 64)
	if r.err != nil {
		return
	}
	if k.exitNs >= 0 {
		// The fair class's state was saved with the threads and CPUs.
		k.fair = newLinuxPolicy(s)
		s.fifo = false
		s.fair = true
		return
	}
	// Every queued task's recorded DSQ is the one that holds it.
	for _, t := range k.shared() {
		if t.id >= len(k.tasks) || k.tasks[t.id].dsq == scxNoDSQ {
			r.failf("pid %d is on a DSQ its scx state does not name", t.id)
			return
		}
	}
	s.m.nSharedWaiting = k.countShared()
	if err := k.ops.LoadState(data); err != nil {
		r.failf("the sched_ext policy's state: %v", err)
	}
}

func ckLoadDSQ(r *ckReader, d *scxDSQ, nThreads int) {
	f := r.flags(2)
	if r.err != nil {
		return
	}
	d.fifo, d.vtime = f[0], f[1]
	d.q = r.threads(nThreads)
}

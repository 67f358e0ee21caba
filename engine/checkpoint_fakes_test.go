package engine

// The tests' scripted workloads run from time zero only: they have no
// checkpoint state of their own.

func (script) ckSave(w *ckWriter)         {}
func (script) ckLoad(r *ckReader, s *Sim) { r.failf("a scripted test workload cannot be resumed") }

func (srcHooked) ckSave(w *ckWriter)         {}
func (srcHooked) ckLoad(r *ckReader, s *Sim) { r.failf("a scripted test workload cannot be resumed") }

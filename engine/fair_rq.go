package engine

// A cfs_rq's bookkeeping (fair.go has the class's rules): the weighted sums
// avg_vruntime keeps, the tree in deadline order, and which entity is curr
// at each level of the task groups above a CPU's running task.

func (q *fairRQ) add(e *fairEntity) {
	q.sumWV += e.weight * (e.vruntime - q.zero)
	q.sumW += e.weight
}

func (q *fairRQ) sub(e *fairEntity) {
	q.sumWV -= e.weight * (e.vruntime - q.zero)
	q.sumW -= e.weight
}

// insert puts e in the tree: in deadline order, after its equals.
func (q *fairRQ) insert(e *fairEntity) {
	i := len(q.queued)
	q.queued = append(q.queued, e)
	for i > 0 && q.queued[i-1].deadline > e.deadline {
		q.queued[i] = q.queued[i-1]
		i--
	}
	q.queued[i] = e
}

// remove takes e out of the tree.
func (q *fairRQ) remove(e *fairEntity) {
	for i, x := range q.queued {
		if x == e {
			copy(q.queued[i:], q.queued[i+1:])
			q.queued[len(q.queued)-1] = nil
			q.queued = q.queued[:len(q.queued)-1]
			return
		}
	}
	panic("engine.fairRQ.remove: entity not queued")
}

// waiting is how many entities wait on q, delayed ones included.
func (q *fairRQ) waiting() int { return len(q.queued) + len(q.delayed) }

// sums is avg_vruntime's numerator and denominator, curr included.
func (q *fairRQ) sums(curr *fairEntity) (sum, load int64) {
	sum, load = q.sumWV, q.sumW
	if curr != nil {
		sum += curr.weight * (curr.vruntime - q.zero)
		load += curr.weight
	}
	return sum, load
}

// avgVruntime is avg_vruntime: V, the weighted mean vruntime (rounded down).
func (q *fairRQ) avgVruntime(curr *fairEntity) int64 {
	sum, load := q.sums(curr)
	if load == 0 {
		return q.zero
	}
	if sum < 0 {
		sum -= load - 1 // floor, as div_s64 after the kernel's adjustment
	}
	return q.zero + sum/load
}

// eligible is vruntime_eligible: v <= V, without the division.
func (q *fairRQ) eligible(curr *fairEntity, v int64) bool {
	sum, load := q.sums(curr)
	return sum >= (v-q.zero)*load
}

// rebase moves zero to V when curr's key has grown large, so that Σ w·key
// stays far from overflow (the kernel moves zero_vruntime along for the
// same reason, update_zero_vruntime).
func (q *fairRQ) rebase(curr *fairEntity) {
	if k := curr.vruntime - q.zero; k < 1<<32 && k > -(1<<32) {
		return
	}
	z := q.avgVruntime(curr)
	q.sumWV -= (z - q.zero) * q.sumW
	q.zero = z
}

// fairCurr is c's running task as its cfs_rq's curr, or nil (idle, or a
// task of another class running).
func fairCurr(c *cpu) *thread {
	if c.cur != nil && c.cur.class == classFair {
		return c.cur
	}
	return nil
}

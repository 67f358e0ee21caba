package engine

import "strconv"

// The virtio-net receive side (docs/mechanisms.md, Multiqueue receive): the RX
// queues the driver uses, each drained by its own poll thread woken by its own
// MSI-X vector, and how the device steers a flow's packets onto a queue.
//
// workload.rx_queues = 1 is OSv master's driver: one queue pair whose poll
// thread (the rxq constructor in drivers/virtio-net.hh only names it) is not
// pinned; it starts on workload.waker_cpu and moves like any thread. Above 1,
// the device advertises that many pairs to pull request 1463's driver, whose
// net::net() uses N = min(advertised pairs, vCPUs, the MSI-X budget): the
// budget is virtio_driver::reserve_msix_vectors()'s process-wide 192 vectors,
// two per pair (one per data virtqueue), so at most 96 pairs (the model gives
// the NIC the whole budget, as when it is the first device to reserve). It pins
// queue i's poll thread to cpus[i % cpus.size()], which is vCPU i since N is at
// most the vCPU count. Every poll thread has priority_infinity. Each queue's
// vector is registered with easy_register(), so it follows its thread
// (msixVector): it starts at vCPU 0 and, from the first interrupt on, points at
// the pinned thread's vCPU.
//
// Without RSS (pull request 1470) the device has no hash to spread flows by,
// and every packet lands on queue 0, so only queue 0's thread, pinned to vCPU
// 0, ever runs. With RSS, net::set_rss_config() fills a 128-entry indirection
// table round-robin (entry i names queue i % N) and the device indexes it with
// the low bits of each flow's Toeplitz hash. The Toeplitz hash of a flow is a
// function of its 5-tuple, whose client port differs from run to run; the model
// stands for it with rssHash, a fixed mix of the flow's number and the run's
// seed: a flow keeps its queue for its life, flows spread over the table as a
// good hash spreads them (not evenly), and each seed assigns them afresh. It
// draws nothing from the run's generator, so turning RSS on moves no other
// random draw.
//
// Transmit (net::xmit) picks a TX queue by CPU id. The engine prices no
// transmit work, so the choice changes nothing here and is not modelled.

// msixVectorBudget is virtio_driver's process-wide MSI-X vector budget
// (drivers/virtio.cc, msix_vector_budget); a queue pair takes two vectors.
const msixVectorBudget = 192

// rssTableLen is set_rss_config()'s indirection table length (128, a power of
// two; the model's device allows it).
const rssTableLen = 128

// nic is the receive side of the virtio-net device and its driver.
type nic struct {
	queues []rxQueue
	rss    bool
	// salt mixes the run's seed into every flow's hash.
	salt uint64
}

// rxQueue is one RX virtqueue with its poll thread (thread.local is the
// queue's index) and MSI-X vector.
type rxQueue struct {
	thr *thread
	// pending holds the packets (the workload's numbers) that reached the
	// queue and wait for its poll thread; batch those its poll under way
	// handles.
	pending ring
	batch   []int
	vec     msixVector
}

// nicQueues is the number of queue pairs the driver uses for sc: 1 for the
// single-queue driver, else net::net()'s min(advertised, vCPUs, budget / 2).
func nicQueues(sc *Scenario) int {
	w := &sc.Workload
	if w.RxQueues <= 1 {
		return 1
	}
	return min(w.RxQueues, sc.Machine.VCPUs, msixVectorBudget/2)
}

// newNIC creates the queues and their poll threads, blocked until a packet
// arrives; capacity sizes each queue's packet ring (it grows if it must).
func newNIC(s *Sim, capacity int) *nic {
	w := &s.sc.Workload
	n := nicQueues(&s.sc)
	x := &nic{rss: w.RSS && n > 1, salt: nicSalt(s.sc.Seed)}
	x.queues = make([]rxQueue, n)
	for i := range x.queues {
		q := &x.queues[i]
		if w.RxQueues <= 1 {
			q.thr = s.newThread("rx", RoleWaker, w.WakerCPU, false)
		} else {
			q.thr = s.newThread("rx"+strconv.Itoa(i), RoleWaker, i, true)
		}
		q.thr.prio = w.RxPriority
		q.thr.local = i
		q.pending.init(capacity)
	}
	return x
}

// nicSalt is the salt a run's seed gives every flow's hash.
func nicSalt(seed uint64) uint64 { return seed*0x9e37_79b9_7f4a_7c15 + 0x632b_e59b_d9b4_e019 }

// queueOf returns the index of the RX queue whose poll thread t is, or -1.
func (x *nic) queueOf(t *thread) int {
	if i := t.local; i >= 0 && i < len(x.queues) && x.queues[i].thr == t {
		return i
	}
	return -1
}

// steer is the queue the device puts flow's packets on.
func (x *nic) steer(flow int) int {
	if !x.rss {
		return 0
	}
	entry := int(rssHash(x.salt, flow) & (rssTableLen - 1))
	return entry % len(x.queues) // the table's entry i names queue i % N
}

// rssHash stands for a flow's Toeplitz hash: splitmix64's finaliser of the
// flow's number and the salt.
func rssHash(salt uint64, flow int) uint64 {
	z := salt + uint64(flow)*0xbf58_476d_1ce4_e5b9
	z = (z ^ z>>30) * 0xbf58_476d_1ce4_e5b9
	z = (z ^ z>>27) * 0x94d0_49bb_1331_11eb
	return z ^ z>>31
}

// receive puts packet pkt of flow on its queue; NAPI: the queue interrupts
// only while its poll thread is not polling.
func (x *nic) receive(s *Sim, flow, pkt int) {
	q := &x.queues[x.steer(flow)]
	q.pending.push(pkt)
	if q.thr.state == ThreadBlocked {
		q.vec.raise(s, q.thr)
	}
}

// poll starts queue q's next NAPI poll, at the end of the previous one (whose
// packets, q.batch, the workload has handled by then): it takes up to
// workload.rx_batch packets and returns the step that processes them, or blocks.
func (q *rxQueue) poll(w *Workload) (int64, bool) {
	q.batch = q.batch[:0]
	for len(q.batch) < w.RxBatch {
		p, ok := q.pending.pop()
		if !ok {
			break
		}
		q.batch = append(q.batch, p)
	}
	if len(q.batch) == 0 {
		return 0, true
	}
	return int64(len(q.batch))*w.RxCostNs + 1, false
}

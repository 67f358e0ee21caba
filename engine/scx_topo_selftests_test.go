package engine

import (
	"fmt"
	"testing"
)

// Ports of the kernel's sched_ext selftests (tools/testing/selftests/
// sched_ext/) as tests of the Go core on machines with SMT, LLCs and nodes:
// each runs hackbench under a probe policy written as the selftest's BPF
// scheduler, and checks what the selftest checks. scxstar's TestKernel-
// Selftests runs Starlark ports on the flat machine.

// selftestTopos are the machines each port runs on.
func selftestTopos() []string { return []string{"flat", "1n1l4c2t", "1n2l2c2t", "2n4l2c2t"} }

// selftestRun runs hackbench on topo ("flat": 4 CPUs) under ops and fails t unless the run
// ends with no ejection and every task done.
func selftestRun(t *testing.T, topo string, ops ScxOps) {
	t.Helper()
	sc := loadExample(t, "hackbench", "workload.hackbench.loops=20", "duration_ms=2000")
	if topo != "flat" {
		shape, err := ParseTopology(topo)
		if err != nil {
			t.Fatal(err)
		}
		sc.Machine.Topology, sc.Machine.VCPUs = topo, shape.CPUs()
	} else {
		sc.Machine.VCPUs = 4
	}
	_, r := runProbe(t, sc, ops)
	if r.ScxExit.Ejected() {
		t.Fatalf("ejected: %s", r.ScxExit.Reason)
	}
	if r.Completed != 400 {
		t.Fatalf("completed %d of hackbench's 400 tasks", r.Completed)
	}
}

// TestScxSelftestSelectCPUDfl is select_cpu_dfl.bpf.c: a policy with no
// select_cpu, whose enqueue puts every task on DSQ_GLOBAL. The kernel's
// default selection inserts a task that found an idle CPU straight into that
// CPU's local DSQ (select_task_rq_scx's direct dispatch), so enqueue never
// sees a task whose CPU is in the idle mask (the selftest's saw_local stays
// false).
func TestScxSelftestSelectCPUDfl(t *testing.T) {
	for _, topo := range selftestTopos() {
		t.Run(topo, func(t *testing.T) {
			sawLocal := ""
			ops := &probeOps{}
			ops.enq = func(k *ScxKernel, p ScxTask, f int64) error {
				idle, err := k.IdleCPUs()
				if err != nil {
					return err
				}
				for _, c := range idle {
					if c == p.CPU() && sawLocal == "" {
						sawLocal = fmt.Sprintf("pid %d enqueued at %d ns with its CPU %d idle", p.PID(), k.NowNs(), c)
					}
				}
				return k.DSQInsert(p, ScxDSQGlobal, k.SliceDflNs(), f)
			}
			selftestRun(t, topo, ops)
			if sawLocal != "" {
				t.Errorf("saw_local: %s", sawLocal)
			}
		})
	}
}

// TestScxSelftestDspLocalOn is dsp_local_on.bpf.c: enqueue queues every task
// (the selftest's BPF queue of pids is a FIFO user DSQ here) and dispatch
// sends the queue's head to a CPU's local DSQ with DSQ_LOCAL_ON, a CPU drawn
// at random (a fixed generator here); a pinned task that may not run there
// goes to its own CPU's. The run must end without an error, every task done.
func TestScxSelftestDspLocalOn(t *testing.T) {
	for _, topo := range selftestTopos() {
		t.Run(topo, func(t *testing.T) {
			seed := uint32(2024)
			ops := &probeOps{defined: ScxOpSelectCPU}
			ops.sel = func(_ *ScxKernel, _ ScxTask, prev int, _ int64) (int, error) { return prev, nil }
			ops.disp = func(k *ScxKernel, cpu int, _ ScxTask) error {
				seed = seed*1664525 + 1013904223 // bpf_get_prandom_u32's stand-in
				target := int(seed>>8) % k.NrCPUs()
				ok, err := k.DSQMove(probeDSQ, ScxDSQLocalOn|int64(target))
				if err == nil && !ok {
					_, err = k.DSQMove(probeDSQ, ScxDSQLocalOn|int64(cpu))
				}
				return err
			}
			selftestRun(t, topo, ops)
		})
	}
}

// TestScxSelftestNuma is numa.bpf.c without per-node idle masks
// (TestScxSelftestNumaPerNode runs it with them): a DSQ per node; select_cpu picks
// an idle CPU among the task's node's CPUs (pick_idle_cpu_node with
// SCX_PICK_IDLE_IN_NODE; here pick_idle_cpu with the node's CPUs as
// cpus_allowed) or else a CPU of that node (pick_any_cpu_node; here the
// task's own), and checks that the CPU is not left in the idle mask and is
// in the node; enqueue queues on the node's DSQ, dispatch consumes its own
// node's. So a task never leaves the node it started in.
func TestScxSelftestNuma(t *testing.T) {
	for _, topo := range selftestTopos() {
		t.Run(topo, func(t *testing.T) {
			var errs []string
			ops := &probeOps{defined: ScxOpSelectCPU | ScxOpRunning}
			nodeCPUs := func(k *ScxKernel, node int) []int {
				var out []int
				for c := range k.NrCPUs() {
					if scxNodeOf(k, c) == node {
						out = append(out, c)
					}
				}
				return out
			}
			ops.sel = func(k *ScxKernel, p ScxTask, prev int, _ int64) (int, error) {
				node := scxNodeOf(k, p.CPU())
				cpu, err := k.PickIdleCPUIn(p, nodeCPUs(k, node), 0)
				if err != nil {
					return 0, err
				}
				if cpu < 0 {
					cpu = p.CPU()
				}
				idle, _ := k.IdleCPUs()
				for _, c := range idle {
					if c == cpu {
						errs = append(errs, fmt.Sprintf("CPU %d should be marked as busy", cpu))
					}
				}
				if scxNodeOf(k, cpu) != node {
					errs = append(errs, fmt.Sprintf("CPU %d should be in node %d", cpu, node))
				}
				return cpu, nil
			}
			numaNodeDSQs(ops, &errs)
			nodes := &numaInit{probeOps: ops}
			selftestRun(t, topo, nodes)
			if len(errs) > 0 {
				t.Errorf("%d errors; the first: %s", len(errs), errs[0])
			}
		})
	}
}

// numaNodeDSQs gives ops numa.bpf.c's enqueue, dispatch and running: a
// task goes on its CPU's node's DSQ (ids 10 and up), a CPU serves its own
// node's, and a task seen running outside the node it first ran in is an
// error in errs.
func numaNodeDSQs(ops *probeOps, errs *[]string) {
	home := map[int]int{}
	ops.enq = func(k *ScxKernel, p ScxTask, f int64) error {
		return k.DSQInsert(p, int64(10+scxNodeOf(k, p.CPU())), k.SliceDflNs(), f)
	}
	ops.disp = func(k *ScxKernel, cpu int, _ ScxTask) error {
		_, err := k.DSQMoveToLocal(int64(10 + scxNodeOf(k, cpu)))
		return err
	}
	ops.running = func(k *ScxKernel, p ScxTask) error {
		n := scxNodeOf(k, k.ThisCPU())
		if h, ok := home[p.PID()]; !ok {
			home[p.PID()] = n
		} else if h != n {
			*errs = append(*errs, fmt.Sprintf("pid %d runs in node %d, started in node %d", p.PID(), n, h))
		}
		return nil
	}
}

// scxNodeOf is cpu's node (scx_bpf_cpu_node).
func scxNodeOf(k *ScxKernel, cpu int) int {
	n, _ := k.CPUNode(cpu)
	return n
}

// numaInit is the numa selftest's init: a DSQ per node (ids 10 and up; the
// probe's own DSQ is 3).
type numaInit struct{ *probeOps }

func (o *numaInit) Init(k *ScxKernel) error {
	nodes := k.Topology().Shape().Nodes
	for n := range nodes {
		if err := k.CreateDSQ(int64(10 + n)); err != nil {
			return err
		}
	}
	return nil
}

// TestScxSelftestAllowedCPUs is allowed_cpus.bpf.c: select_cpu and enqueue
// look for an idle CPU only within a domain of one CPU, the first online
// (scx_bpf_select_cpu_and with that cpus_allowed); a CPU found must be
// claimed already (test_and_clear_cpu_idle fails on it) and be in the
// domain. select_cpu inserts the task into the found CPU's local DSQ;
// enqueue queues it on DSQ_GLOBAL and kicks the CPU it found (KICK_IDLE).
func TestScxSelftestAllowedCPUs(t *testing.T) {
	for _, topo := range selftestTopos() {
		t.Run(topo, func(t *testing.T) {
			domain := []int{0}
			var errs []string
			validate := func(k *ScxKernel, p ScxTask, cpu int) {
				if ok, _ := k.TestAndClearCPUIdle(cpu); ok {
					errs = append(errs, fmt.Sprintf("CPU %d should be marked as busy", cpu))
				}
				if p.Allowed(0) && cpu != 0 { // the domain is within p's CPUs
					errs = append(errs, fmt.Sprintf("CPU %d not in the allowed domain for %d", cpu, p.PID()))
				}
			}
			ops := &probeOps{defined: ScxOpSelectCPU}
			ops.sel = func(k *ScxKernel, p ScxTask, prev int, wf int64) (int, error) {
				cpu, err := k.SelectCPUAnd(p, prev, wf, domain, 0)
				if err != nil || cpu < 0 {
					return prev, err
				}
				validate(k, p, cpu)
				return cpu, k.DSQInsert(p, ScxDSQLocal, k.SliceDflNs(), 0)
			}
			ops.enq = func(k *ScxKernel, p ScxTask, f int64) error {
				if err := k.DSQInsert(p, ScxDSQGlobal, k.SliceDflNs(), 0); err != nil {
					return err
				}
				cpu, err := k.SelectCPUAnd(p, p.CPU(), 0, domain, 0)
				if err != nil || cpu < 0 {
					return err
				}
				validate(k, p, cpu)
				return k.KickCPU(cpu, ScxKickIdle)
			}
			selftestRun(t, topo, ops)
			if len(errs) > 0 {
				t.Errorf("%d errors; the first: %s", len(errs), errs[0])
			}
		})
	}
}

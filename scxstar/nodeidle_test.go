package scxstar

import (
	"bytes"
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"schedplay/engine"
)

// The per-node idle helpers from Starlark (nodeidle.go): the flag, the node
// masks, the searches from a node, and the global helpers' errors under the
// flag.

// nodeMachine is 2 nodes of one LLC of 4 cores of 2 threads: 16 CPUs, node 0
// CPUs 0-7, node 1 CPUs 8-15, cores {0,1} ... {14,15}.
func nodeMachine(t testing.TB) engine.Scenario {
	t.Helper()
	sc := smtMachine(t)
	sc.Machine.Topology, sc.Machine.VCPUs = "2n2l4c2t", 16
	return sc
}

// nodeSearches is a per-node policy whose first wake runs the searches of
// issue 34's example: node 1 left with one idle CPU, which
// pick_idle_cpu_node(p, 1) finds although node 0 has lower-numbered idle
// CPUs; then node 1 full: IN_NODE finds none, pick_any_cpu_node with IN_NODE
// a CPU of node 1, and without IN_NODE the search goes on to node 0.
const nodeSearches = `
flags = scx.OPS_BUILTIN_IDLE_PER_NODE

def searches(p):
    idle1 = scx.get_idle_cpumask_node(1)
    check(len(idle1) >= 2, "node 1 has idle CPUs: %s" % list(idle1))
    target = list(idle1)[-1]
    for c in idle1:
        if c != target:
            check(scx.test_and_clear_cpu_idle(c), "claim %d" % c)
    idle0 = scx.get_idle_cpumask_node(0)
    check(len(idle0) > 0 and idle0.first() < target, "node 0 has lower idle CPUs: %s" % list(idle0))
    check(scx.pick_idle_cpu_node(p, 1) == target, "node 1's idle CPU first")
    check(target not in scx.get_idle_cpumask_node(1), "the CPU found is claimed")
    check(scx.pick_idle_cpu_node(p, 1, scx.PICK_IDLE_IN_NODE) == -1, "IN_NODE: node 1 is full")
    any1 = scx.pick_any_cpu_node(p, 1, scx.PICK_IDLE_IN_NODE)
    check(scx.cpu_node(any1) == 1, "pick_any_cpu_node IN_NODE stays in node 1: %d" % any1)
    c = scx.pick_idle_cpu_node(p, 1)
    check(scx.cpu_node(c) == 0 and c not in scx.get_idle_cpumask_node(0), "then node 0, claimed: %d" % c)
    check(scx.pick_idle_cpu_node(p, 1, 0, scx.node_cpus(1)) == -1, "cpus: node 1's only")
    check(len(scx.get_idle_cpumask_node(-1)) == 0 and scx.pick_idle_cpu_node(p, -1) == -1, "NUMA_NO_NODE finds nothing")
    state["searched"] = True
    return c

def select_cpu(p, prev_cpu, wake_flags):
    if not state.get("searched"):
        return searches(p)
    return prev_cpu

def enqueue(p, enq_flags):
    scx.dsq_insert(p, scx.DSQ_GLOBAL, scx.SLICE_DFL, enq_flags)
`

// TestNodeIdleSearches runs nodeSearches on a machine with one task, so that
// nearly every CPU is idle at its first wake.
func TestNodeIdleSearches(t *testing.T) {
	sc := nodeMachine(t)
	sc.Workload.RTApp = `{"tasks": {"w": {"loop": -1, "run": 1000, "sleep": 2000}}}`
	p := mustRun(t, sc, nodeSearches)
	if v := stateOf(t, p, "searched"); v != starlark.True {
		t.Errorf("searched is %v", v)
	}
}

// nodeMasks checks at every callback that each node's masks are within the
// node, that its SMT idle mask holds exactly the cores whose CPUs are all in
// its idle mask, and that a CPU in an idle mask runs nothing; select_cpu
// looks in prev's node first (pick_idle_cpu_node).
const nodeMasks = `
flags = scx.OPS_BUILTIN_IDLE_PER_NODE
state["checks"] = 0

def masks():
    for n in range(scx.nr_nodes()):
        idle = scx.get_idle_cpumask_node(n)
        smt = scx.get_idle_smtmask_node(n)
        node = scx.node_cpus(n)
        check(idle & node == idle and smt & idle == smt, "node %d: idle %s, smt %s" % (n, list(idle), list(smt)))
        for c in node:
            sib = scx.smt_siblings(c)
            check((sib & idle == sib) == (c in smt), "node %d: CPU %d: idle %s, smt %s" % (n, c, list(idle), list(smt)))
            check(c not in idle or scx.cpu_curr(c) == None, "CPU %d idle and running a task" % c)
    state["checks"] += 1

def select_cpu(p, prev_cpu, wake_flags):
    masks()
    c = scx.pick_idle_cpu_node(p, scx.cpu_node(prev_cpu))
    masks()
    return c if c >= 0 else prev_cpu

def enqueue(p, enq_flags):
    masks()
    scx.dsq_insert(p, scx.DSQ_GLOBAL, scx.SLICE_DFL, enq_flags)

def running(p):
    masks()

def stopping(p, runnable):
    masks()
`

// TestNodeIdleMasks runs nodeMasks through a busy run on two machines.
func TestNodeIdleMasks(t *testing.T) {
	for _, topo := range []string{"2n2l4c2t", "2n4l2c2t"} {
		t.Run(topo, func(t *testing.T) {
			sc := nodeMachine(t)
			sc.Machine.Topology = topo
			sc.Workload.RTApp = `{"tasks": {"w": {"instance": 12, "loop": -1, "run": 3000, "sleep": 2000}}}`
			p := mustRun(t, sc, nodeMasks)
			if n, _ := starlark.AsInt32(stateOf(t, p, "checks")); n < 1000 {
				t.Errorf("%d checks", n)
			}
		})
	}
}

// TestNodeIdleErrors: the global idle helpers under the flag and the node
// helpers without it eject with the kernel's words; so does the flag with
// the idle tracking off (validate_ops).
func TestNodeIdleErrors(t *testing.T) {
	const perNode = "flags = scx.OPS_BUILTIN_IDLE_PER_NODE\n"
	sel := func(body string) string { return "def select_cpu(p, c, f):\n    " + body + "\n    return c\n" }
	cases := []struct{ name, src, want string }{
		{"get_idle_cpumask per-node", perNode + sel("scx.get_idle_cpumask()"), "get_idle_cpumask: SCX_OPS_BUILTIN_IDLE_PER_NODE enabled"},
		{"get_idle_smtmask per-node", perNode + sel("scx.get_idle_smtmask()"), "get_idle_smtmask: SCX_OPS_BUILTIN_IDLE_PER_NODE enabled"},
		{"pick_idle_cpu per-node", perNode + sel("scx.pick_idle_cpu(p)"), "pick_idle_cpu: per-node idle tracking is enabled"},
		{"get_idle_cpumask_node flat", sel("scx.get_idle_cpumask_node(0)"), "get_idle_cpumask_node: per-node idle tracking is disabled"},
		{"pick_any_cpu_node flat", sel("scx.pick_any_cpu_node(p, 0)"), "pick_any_cpu_node: per-node idle tracking is disabled"},
		{"an invalid node", perNode + sel("scx.pick_idle_cpu_node(p, 5)"), "pick_idle_cpu_node: invalid node 5"},
		{"per-node without idle tracking", perNode + "def update_idle(cpu, idle):\n    pass\n",
			"flags: SCX_OPS_BUILTIN_IDLE_PER_NODE requires CPU idle selection enabled"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, r := runProbe(t, nodeMachine(t), tc.src)
			if !strings.Contains(r.ScxExit.Reason, tc.want) {
				t.Fatalf("exit %q, want %q", r.ScxExit.Reason, tc.want)
			}
		})
	}
	// The flag with update_idle and OPS_KEEP_BUILTIN_IDLE loads.
	mustRun(t, nodeMachine(t), "flags = scx.OPS_BUILTIN_IDLE_PER_NODE | scx.OPS_KEEP_BUILTIN_IDLE\ndef update_idle(cpu, idle):\n    pass\n")
	p, err := Compile("p.star", perNode, 1e6)
	if err != nil || p.Flags() != engine.ScxOpsBuiltinIdlePerNode {
		t.Errorf("compile with the flag: %v, flags %#x", err, p.Flags())
	}
}

// nodeLocal keeps wakes in prev's node while it has an idle CPU, and spreads
// them by pick_any_cpu_node when no node has one.
const nodeLocal = `
flags = scx.OPS_BUILTIN_IDLE_PER_NODE

def select_cpu(p, prev_cpu, wake_flags):
    c = scx.pick_any_cpu_node(p, scx.cpu_node(prev_cpu))
    if c in scx.get_idle_cpumask_node(scx.cpu_node(c)):
        scx.error("CPU %d picked and still idle" % c)
    return c

def enqueue(p, enq_flags):
    scx.dsq_insert(p, scx.DSQ_GLOBAL, scx.SLICE_DFL, enq_flags)
`

// TestNodeIdleResumes: the per-node masks are derived from the CPUs' state
// and the flag from the policy, so a run resumed from a checkpoint ends
// byte-identical to the run from zero (the search cursors are kept).
func TestNodeIdleResumes(t *testing.T) {
	sc := withPolicy(readExample(t, "hackbench", "duration_ms=400", "machine.topology=2n2l4c2t", "machine.vcpus=16"), nodeLocal)
	want, _ := runJSON(t, sc)
	res, r := resumedRun(t, sc, 150e6)
	if res.ScxExit.Ejected() {
		t.Fatalf("ejected: %s", res.ScxExit.Reason)
	}
	if got := resultsJSON(t, res, r); !bytes.Equal(want, got) {
		t.Errorf("resumed at 150 ms, the run differs from the run from zero:\nzero    %.400s\nresumed %.400s", want, got)
	}
}

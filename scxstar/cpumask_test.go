package scxstar

import (
	"strings"
	"testing"

	"go.starlark.net/starlark"

	"schedplay/engine"
)

// probeHelpers is the top of every probe policy: check ejects the policy
// with msg when cond is false, so a failed check is the run's ScxExit.
const probeHelpers = `
state = {"log": []}

def check(cond, msg):
    if not cond:
        scx.error("check failed: " + msg)
`

// smtMachine is 1 node, 2 LLCs of 2 cores of 2 threads: 8 CPUs, cores
// {0,1} {2,3} {4,5} {6,7}, LLCs 0-3 and 4-7.
func smtMachine(t testing.TB) engine.Scenario {
	t.Helper()
	sc := engine.DefaultScenario()
	sc.Machine.Topology, sc.Machine.VCPUs = "1n2l2c2t", 8
	sc.DurationMs, sc.WarmupMs = 200, 0
	sc.Workload.Kind = engine.WorkloadRTApp
	sc.Workload.RTApp = `{"tasks": {"w": {"instance": 6, "loop": -1, "run": 3000, "sleep": 2000}}}`
	return sc
}

// runProbe runs src on sc and returns the policy, for its globals, and the
// results.
func runProbe(t *testing.T, sc engine.Scenario, src string) (*Policy, engine.Results) {
	t.Helper()
	var pol *Policy
	compile := func(_, s string, slice int64) (engine.ScxOps, error) {
		p, err := Compile("probe.star", s, slice)
		pol = p
		return p, err
	}
	s, err := engine.NewSimScx(withPolicy(sc, probeHelpers+src), compile)
	if err != nil {
		t.Fatal(err)
	}
	s.SetVisual(false)
	return pol, s.Run()
}

// mustRun runs src and fails the test if the policy was ejected.
func mustRun(t *testing.T, sc engine.Scenario, src string) *Policy {
	t.Helper()
	p, r := runProbe(t, sc, src)
	if r.ScxExit.Ejected() {
		t.Fatalf("ejected at %d ns: %s", r.ScxExit.AtNs, r.ScxExit.Reason)
	}
	return p
}

// TestCpumask: the cpumask value and the topology masks, each case run in
// init on smtMachine; a case with wantErr must eject the policy with it.
func TestCpumask(t *testing.T) {
	cases := []struct {
		name, body, wantErr string
	}{
		{"make and read", `
    m = scx.cpumask([5, 1, 3])
    check(len(m) == 3 and m.weight() == 3, "weight")
    check(3 in m and not (2 in m) and m.test(5), "test")
    check(list(m) == [1, 3, 5], "iteration in CPU order")
    check(m.first() == 1 and scx.cpumask().first() == -1, "first")
    check(m == scx.cpumask([1, 3, 5]) and m != scx.cpumask([1]), "equality")
    check(str(m) == "cpumask([1, 3, 5])", str(m))
    check(not scx.cpumask() and m, "truth")`, ""},
		{"and or andnot", `
    a, b = scx.cpumask([0, 1, 2, 3]), scx.cpumask(range(2, 5))
    check(list(a & b) == [2, 3], "and")
    check(list(a | b) == [0, 1, 2, 3, 4], "or")
    check(list(a.andnot(b)) == [0, 1], "andnot")
    check(list(a) == [0, 1, 2, 3], "a unchanged")`, ""},
		{"any_distribute", `
    m = scx.cpumask([1, 5, 6])
    check(m.any_distribute(1) == 5, "after 1")
    check(m.any_distribute(6) == 1, "wraps")
    check(m.any_distribute() == 1, "from the start")
    check(scx.cpumask().any_distribute(3) == -1, "empty")`, ""},
		{"topology", `
    check(list(scx.llc_cpus(1)) == [4, 5, 6, 7], "llc_cpus")
    check(list(scx.node_cpus(0)) == list(range(8)), "node_cpus")
    check(list(scx.smt_siblings(5)) == [4, 5], "smt_siblings")
    check(scx.cpu_core(5) == 2 and scx.cpu_llc(5) == 1, "cpu_core")
    check(scx.cpu_capacity(7) == 1024, "cpu_capacity")
    check(type(scx.get_idle_cpumask()) == "cpumask", "idle mask type")
    check(type(scx.get_idle_smtmask()) == "cpumask", "smt mask type")`, ""},
		{"out of range", `
    scx.cpumask([99])`, "cpumask: CPU 99 out of range 0..7"},
		{"and a list", `
    scx.cpumask([1]) & [1]`, "both operands must be cpumasks"},
		{"no such LLC", `
    scx.llc_cpus(2)`, "llc_cpus: LLC 2 out of range 0..1"},
		{"no such node", `
    scx.node_cpus(1)`, "node_cpus: node 1 out of range 0..0"},
		{"not a CPU", `
    "a" in scx.cpumask([1])`, "in cpumask: want a CPU number, got string"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, r := runProbe(t, smtMachine(t), "def init():"+tc.body+"\n")
			if got := r.ScxExit.Reason; tc.wantErr == "" && got != "" || !strings.Contains(got, tc.wantErr) {
				t.Fatalf("exit %q, want %q", got, tc.wantErr)
			}
		})
	}
}

// TestCpumaskWhereListsGo: pick_idle_cpu and select_cpu_and take a cpumask
// as they take a list, and find only CPUs in it.
func TestCpumaskWhereListsGo(t *testing.T) {
	p := mustRun(t, smtMachine(t), `
def select_cpu(p, prev_cpu, wake_flags):
    llc1 = scx.llc_cpus(1)
    cpu = scx.select_cpu_and(p, prev_cpu, wake_flags, llc1)
    check(cpu == -1 or cpu in llc1, "select_cpu_and out of its mask")
    if cpu < 0:
        cpu = scx.pick_idle_cpu(p, 0, scx.cpumask([0, 1]))
        check(cpu in (-1, 0, 1), "pick_idle_cpu out of its mask")
    if cpu < 0:
        cpu = scx.pick_idle_cpu(p, 0, [2])
        check(cpu in (-1, 2), "pick_idle_cpu out of its list")
    if cpu >= 0:
        state["log"].append(cpu)
        return cpu
    return prev_cpu
`)
	log := p.globals["state"].(*starlark.Dict)
	v, _, _ := log.Get(starlark.String("log"))
	if v.(*starlark.List).Len() == 0 {
		t.Fatal("no idle CPU was ever found")
	}
}

// TestCpumaskCheckpoint: a cpumask in the policy's state survives a save and
// a load.
func TestCpumaskCheckpoint(t *testing.T) {
	src := "M = scx.cpumask([1, 2])\nS = {\"m\": scx.cpumask([3, 100])}\n"
	p, err := Compile("m.star", src, 20e6)
	if err != nil {
		t.Fatal(err)
	}
	data, err := p.SaveState()
	if err != nil {
		t.Fatal(err)
	}
	q, err := Compile("m.star", "M = scx.cpumask([1, 2])\nS = {}\n", 20e6)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.LoadState(data); err != nil {
		t.Fatal(err)
	}
	got, _, _ := q.globals["S"].(*starlark.Dict).Get(starlark.String("m"))
	if got == nil || got.String() != "cpumask([3, 100])" {
		t.Fatalf("S[\"m\"] is %v after a load, want cpumask([3, 100])", got)
	}
}

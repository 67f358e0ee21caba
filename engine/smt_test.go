package engine

import (
	"math"
	"testing"
)

// The speed of work on a topology (smt.go).

// TestSMTAndCapacitySpeed: work runs at the CPU's capacity, and at half the
// core's yield while an SMT sibling runs too; a sibling that starts and
// stops re-times the step under way. Each case runs 10 ms loops of work for
// 2 s and counts them against what its speeds predict.
func TestSMTAndCapacitySpeed(t *testing.T) {
	const yield = 1.30 // machine.costs.smt_yield_pct's default
	for _, tc := range []struct {
		name, machine, tasks string
		task                 string
		want                 float64 // loops of task in 2 s
		contended            float64 // SMTContendedFrac
	}{
		{"alone on a core", "machine.topology=1n1l2c2t", `"a": {"cpus": [0], "loop": -1, "run": 10000}`, "a", 200, 0},
		{"siblings both busy", "machine.topology=1n1l2c2t", `"a": {"cpus": [0], "loop": -1, "run": 10000},
			"b": {"cpus": [1], "loop": -1, "run": 10000}`, "a", 200 * yield / 2, 1},
		{"two cores", "machine.topology=1n1l2c2t", `"a": {"cpus": [0], "loop": -1, "run": 10000},
			"b": {"cpus": [2], "loop": -1, "run": 10000}`, "a", 200, 0},
		// b runs 5 ms of work every 20 ms, at 0.65: 7.69 ms of each 20 ms
		// with both busy. a gets (20-7.69) + 7.69*0.65 = 17.31 ms of work
		// every 20 ms.
		{"a sibling comes and goes", "machine.topology=1n1l2c2t", `"a": {"cpus": [0], "loop": -1, "run": 10000},
			"b": {"cpus": [1], "loop": -1, "run": 5000, "timer": {"ref": "t", "period": 20000}}`, "a",
			200 * (20 - 5/(yield/2) + 5/(yield/2)*yield/2) / 20, 0},
		{"a little CPU", "machine.capacity=[1024,512]", `"a": {"cpus": [1], "loop": -1, "run": 10000}`, "a", 100, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := rtappScenario(`{"tasks": {` + tc.tasks + `}}`)
			sc.DurationMs = 2000
			var err error
			if tc.machine == "machine.capacity=[1024,512]" {
				sc.Machine.VCPUs, sc.Machine.Capacity = 2, []int{1024, 512}
				sc, err = sc.WithKnobs("sched.policy=linux")
			} else {
				sc, err = sc.WithKnobs("sched.policy=linux", tc.machine)
			}
			if err != nil {
				t.Fatal(err)
			}
			r, err := Run(sc)
			if err != nil {
				t.Fatal(err)
			}
			got := float64(rtTaskResOf(t, r, tc.task).Loops)
			if math.Abs(got-tc.want) > 1.5 {
				t.Errorf("%s made %.0f loops of 10 ms in 2 s, want %.1f", tc.task, got, tc.want)
			}
			if math.Abs(r.Topology.SMTContendedFrac-tc.contended) > 0.01 && tc.name != "a sibling comes and goes" {
				t.Errorf("smt_contended_frac %.3f, want %.2f", r.Topology.SMTContendedFrac, tc.contended)
			}
		})
	}
}

// TestMigrationsByLevel: on one LLC without SMT every migration is to
// another core of the LLC; on two nodes hackbench's tasks also cross nodes;
// the levels add up to the total.
func TestMigrationsByLevel(t *testing.T) {
	for _, tc := range []struct {
		topology string
		node     bool
	}{{"1n1l8c1t", false}, {"2n2l2c2t", true}} {
		r := runExample(t, "hackbench", "linux", "machine.topology="+tc.topology, "duration_ms=200")
		l := r.Topology.MigrationsByLevel
		if sum := l.SMT + l.Core + l.LLC + l.Node; math.Abs(sum-r.MigrationsPerS) > 1e-6*r.MigrationsPerS || r.MigrationsPerS == 0 {
			t.Errorf("%s: levels %+v add up to %.1f/s, migrations %.1f/s", tc.topology, l, sum, r.MigrationsPerS)
		}
		if !tc.node && (l.SMT != 0 || l.LLC != 0 || l.Node != 0) {
			t.Errorf("%s: %+v: a flat LLC has only core-to-core moves", tc.topology, l)
		}
		if tc.node && l.Node == 0 {
			t.Errorf("%s: %+v: no move across nodes", tc.topology, l)
		}
	}
}

// TestSMTCheckpoint: a run on an SMT machine, with steps re-timed as
// siblings come and go, resumes from any checkpoint as the same run.
func TestSMTCheckpoint(t *testing.T) {
	for _, policy := range []string{"linux", "scx_simple"} {
		resumeIsTheSameRun(t, loadExample(t, "hackbench", "sched.policy="+policy, "machine.topology=1n2l2c2t",
			"workload.hackbench.loops=20", "duration_ms=150", "warmup_ms=20"))
	}
}

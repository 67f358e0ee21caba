package scxstar

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"schedplay/engine"
)

// TestKernelSelftests runs ports of the kernel's sched_ext selftests
// (tools/testing/selftests/sched_ext/, testdata/selftests/*.star) that need
// no BPF maps beyond what a dict or a user DSQ stands for: each runs
// hackbench on 4 CPUs and ends as the selftest expects, cleanly with every
// task done or ejected with the kernel's error.
func TestKernelSelftests(t *testing.T) {
	for _, tc := range []struct {
		name  string
		eject string // "" for a clean run; else what the exit reason says
		print string // a print the run must make (the selftest's flag)
	}{
		{name: "minimal"},
		{name: "select_cpu_dfl"},
		{name: "select_cpu_dfl_nodispatch"},
		{name: "select_cpu_dispatch"},
		{name: "select_cpu_dispatch_bad_dsq", eject: "select_cpu: selftests/select_cpu_dispatch_bad_dsq.star:5:19: dsq_insert: DSQ 51966 was never created"},
		{name: "select_cpu_dispatch_dbl_dsp", eject: "dispatching it twice"},
		{name: "select_cpu_vtime", print: "consumed"},
		{name: "dsp_local_on"},
		{name: "enq_select_cpu_fails", eject: "select_cpu_dfl: called from enqueue: only select_cpu may"},
		{name: "ddsp_bogus_dsq_fail", eject: "dsq_insert_vtime: DSQ 51966 was never created"},
		{name: "ddsp_vtimelocal_fail", eject: "dsq_insert_vtime: a local DSQ is FIFO"},
		{name: "peek_dsq", print: "phase 2: a pool DSQ peeked"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join("selftests", tc.name+".star")
			src, err := os.ReadFile(filepath.Join("testdata", file))
			if err != nil {
				t.Fatal(err)
			}
			sc := withPolicy(readExample(t, "hackbench", "machine.vcpus=4", "workload.hackbench.loops=20", "duration_ms=2000"), string(src))
			s, err := engine.NewSimScx(sc, CompilerNamed(file))
			if err != nil {
				t.Fatal(err)
			}
			s.SetVisual(false)
			var prints []string
			for _, d := range s.Decisions(nil) { // time 0's, made in NewSimScx
				if d.Kind == engine.DecPolicyPrint {
					prints = append(prints, d.Reason)
				}
			}
			s.Observe(func(e engine.VisEvent) {
				if e.Kind == engine.VisDecision {
					if d := s.DecisionAt(int(e.Arg)); d.Kind == engine.DecPolicyPrint {
						prints = append(prints, d.Reason)
					}
				}
			})
			r := s.Run()
			switch {
			case tc.eject == "" && r.ScxExit.Ejected():
				t.Fatalf("ejected: %s", r.ScxExit.Reason)
			case tc.eject != "" && !strings.Contains(r.ScxExit.Reason, tc.eject):
				t.Fatalf("exit %q, want one saying %q", r.ScxExit.Reason, tc.eject)
			}
			if r.Completed != 400 {
				t.Errorf("completed %d of hackbench's 400 tasks", r.Completed)
			}
			if tc.print != "" && !slices.Contains(prints, tc.print) {
				t.Errorf("the policy printed %q, not %q", prints, tc.print)
			}
		})
	}
}

// TestKernelSelftestExit ports exit.bpf.c: the policy unloads itself with
// scx.exit (scx_bpf_exit) from each callback in turn, and the run records
// the exit's code, the point's number, and the callback, with no error's
// traceback; the fair class runs every task after it.
func TestKernelSelftestExit(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "selftests", "exit.star"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		point, code int
		from        string
	}{{0, 0, "select_cpu"}, {1, 1, "enqueue"}, {2, 2, "dispatch"}, {3, 3, "enable"}, {5, 5, "init"}} {
		t.Run(tc.from, func(t *testing.T) {
			policy := strings.Replace(string(src), "EXIT_POINT = EXIT_INIT", "EXIT_POINT = "+strconv.Itoa(tc.point), 1)
			sc := withPolicy(readExample(t, "hackbench", "machine.vcpus=4", "workload.hackbench.loops=20", "duration_ms=2000"), policy)
			s, err := engine.NewSimScx(sc, CompilerNamed("exit.star"))
			if err != nil {
				t.Fatal(err)
			}
			s.SetVisual(false)
			r := s.Run()
			want := fmt.Sprintf("exit: code %d: %d (scx_bpf_exit, from %s)", tc.code, tc.code, tc.from)
			if r.ScxExit.Reason != want {
				t.Errorf("exit %q, want %q", r.ScxExit.Reason, want)
			}
			if r.Completed != 400 {
				t.Errorf("completed %d of hackbench's 400 tasks", r.Completed)
			}
		})
	}
}

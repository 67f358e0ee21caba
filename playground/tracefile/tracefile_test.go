package tracefile

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"schedplay/engine"
)

func TestMaxCPUsIsTheEngines(t *testing.T) {
	if MaxCPUs != engine.MaxVCPUs {
		t.Fatalf("tracefile.MaxCPUs %d, engine.MaxVCPUs %d", MaxCPUs, engine.MaxVCPUs)
	}
}

// textTrace is ftrace text of two processes on 2 CPUs: "server" (pid 100,
// threads 100 and 101) wakes "client" (pid 200) and back, 10 rounds 1 ms
// apart, each run 200 µs (the server's) or 100 µs (the client's).
func textTrace() []byte {
	var b strings.Builder
	b.WriteString("# tracer: nop\n")
	line := func(comm string, pid int, cpu int, us int64, event, args string) {
		fmt.Fprintf(&b, "%16s-%-5d [%03d] d..2. %d.%06d: %s: %s\n", comm, pid, cpu, us/1_000_000, us%1_000_000, event, args)
	}
	sw := func(cpu int, us int64, pc string, pp int, state string, nc string, np int) {
		line(pc, pp, cpu, us, "sched_switch", fmt.Sprintf("prev_comm=%s prev_pid=%d prev_prio=120 prev_state=%s ==> next_comm=%s next_pid=%d next_prio=120", pc, pp, state, nc, np))
	}
	wake := func(cpu int, us int64, wc string, wp int, comm string, pid int, target int) {
		line(wc, wp, cpu, us, "sched_waking", fmt.Sprintf("comm=%s pid=%d prio=120 target_cpu=%03d", comm, pid, target))
	}
	t := int64(1_000_000)
	for i := 0; i < 10; i++ {
		sw(0, t, "swapper/0", 0, "R", "server", 100)
		sw(0, t+200, "server", 100, "S", "worker", 101)
		wake(0, t+250, "worker", 101, "client", 200, 1)
		sw(1, t+260, "swapper/1", 0, "R", "client", 200)
		sw(0, t+300, "worker", 101, "S", "swapper/0", 0)
		sw(1, t+360, "client", 200, "S", "swapper/1", 0)
		t += 1000
	}
	return []byte(b.String())
}

func TestOpenSummarizes(t *testing.T) {
	f, err := Open("ping.txt", textTrace())
	if err != nil {
		t.Fatal(err)
	}
	s := f.Summary()
	if s.Format != "ftrace-text" || s.CPUs != 2 || s.Name != "ping.txt" {
		t.Fatalf("summary %+v: want ftrace-text on 2 CPUs named ping.txt", s)
	}
	if s.DurationMs < 9 || s.DurationMs > 10 {
		t.Errorf("duration %.3f ms, want about 9.4", s.DurationMs)
	}
	// Text without a tgid column: each thread is a process of its own. The
	// server runs 200 µs a round, worker and client 100 µs: busiest first.
	if len(s.Processes) != 3 || s.Threads != 3 {
		t.Fatalf("processes %+v: want server, worker and client", s.Processes)
	}
	srv, cli := s.Processes[0], s.Processes[2]
	if srv.Name != "server" || srv.Pid != 100 || len(srv.Threads) != 1 || srv.Threads[0].Tid != 100 || cli.Name != "client" || cli.Pid != 200 {
		t.Fatalf("processes %+v: want server first, client last (pid order among equals)", s.Processes)
	}
	if srv.CPUMs < 1.9 || srv.CPUMs > 2.1 || cli.CPUMs < 0.9 || cli.CPUMs > 1.1 {
		t.Errorf("CPU time: server %.3f ms, client %.3f ms; want about 2 and 1", srv.CPUMs, cli.CPUMs)
	}
}

func TestModelFilters(t *testing.T) {
	f, err := Open("ping.txt", textTrace())
	if err != nil {
		t.Fatal(err)
	}
	all, err := f.Model(Choice{})
	if err != nil {
		t.Fatal(err)
	}
	one, err := f.Model(Choice{Pids: []int32{200}})
	if err != nil {
		t.Fatal(err)
	}
	if len(all.Threads) != 3 || len(one.Threads) != 1 || one.Threads[0].Tid != 200 {
		t.Fatalf("threads: all %d, pid 200 %d: want 3 and the client alone", len(all.Threads), len(one.Threads))
	}
	half, err := f.Model(Choice{FromMs: 0, ToMs: 4.5})
	if err != nil {
		t.Fatal(err)
	}
	if w := float64(half.EndNs-half.StartNs) / 1e6; w < 4.4 || w > 4.6 {
		t.Errorf("window of 0-4.5 ms: model spans %.3f ms", w)
	}
	if !strings.Contains(fmt.Sprint(mustErr(f.Model(Choice{FromMs: 50}))), "not within the trace") {
		t.Errorf("a window past the end: %v", mustErr(f.Model(Choice{FromMs: 50})))
	}
	if !strings.Contains(fmt.Sprint(mustErr(f.Model(Choice{Pids: []int32{999}}))), "nothing to replay") {
		t.Errorf("an unknown pid: %v", mustErr(f.Model(Choice{Pids: []int32{999}})))
	}
}

func mustErr[T any](_ T, err error) error { return err }

// TestOpenRefusesBadInput: each bad file is an error that says what is
// wrong, never a panic.
func TestOpenRefusesBadInput(t *testing.T) {
	good := textTrace()
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "is empty"},
		{"junk", []byte("\x00\x01\x02 not a trace at all"), "unknown trace format"},
		{"corrupt", append(append([]byte{}, good...), "  server-100 [000] d..2. 1.020000: sched_switch: prev_comm=server prev_pid=x1\n"...), "line 62"},
		{"huge", make([]byte, MaxFileBytes+1), "above the page's limit of 64 MiB"},
	} {
		_, err := Open(c.name, c.data)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.want)
		}
	}
}

// TestOpenLISA: the LISA trace (kerneltrace's fixture) opens with its 6
// CPUs and its processes listed busiest first.
func TestOpenLISA(t *testing.T) {
	data, err := os.ReadFile("../../kerneltrace/testdata/lisa-trace.txt")
	if err != nil {
		t.Fatal(err)
	}
	f, err := Open("trace.txt", data)
	if err != nil {
		t.Fatal(err)
	}
	s := f.Summary()
	if s.CPUs != 6 || len(s.Processes) < 3 || s.Processes[0].CPUMs < s.Processes[1].CPUMs {
		t.Fatalf("summary: %d CPUs, processes %+v", s.CPUs, s.Processes)
	}
	if _, err := f.Model(Choice{FromMs: 0, ToMs: 1000}); err != nil {
		t.Fatal(err)
	}
}

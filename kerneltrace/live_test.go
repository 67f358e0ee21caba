package kerneltrace

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

const tracefs = "/sys/kernel/tracing"

// liveEvents are the sched events recorded (tracefs: docs/validation.md).
var liveEventNames = [...]string{"sched_switch", "sched_waking", "sched_wakeup_new", "sched_process_fork", "sched_process_exit", "sched_process_exec"}

// traceInstance makes a tracefs instance of its own, so the recording
// touches no global tracing state (another session may be tracing); cleanup
// turns it off and removes it, and unmounts tracefs if the test mounted it.
func traceInstance(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("recording a trace needs root (tracefs); not root here")
	}
	if _, err := os.Stat(filepath.Join(tracefs, "instances")); err != nil {
		if err := syscall.Mount("nodev", tracefs, "tracefs", 0, ""); err != nil {
			t.Skipf("tracefs is not mounted at %s and mounting it failed: %v", tracefs, err)
		}
		t.Cleanup(func() { _ = syscall.Unmount(tracefs, 0) })
	}
	dir := filepath.Join(tracefs, "instances", "schedplay-kerneltrace-"+strconv.Itoa(os.Getpid()))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Skipf("cannot make a tracefs instance: %v", err)
	}
	t.Cleanup(func() {
		_ = os.WriteFile(filepath.Join(dir, "tracing_on"), []byte("0"), 0)
		for _, ev := range liveEventNames {
			_ = os.WriteFile(filepath.Join(dir, "events/sched", ev, "enable"), []byte("0"), 0)
		}
		if err := os.Remove(dir); err != nil {
			t.Errorf("removing the tracefs instance %s: %v", dir, err)
		}
	})
	return dir
}

func writeTracefs(dir, file, v string) error {
	if err := os.WriteFile(filepath.Join(dir, file), []byte(v), 0); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	return nil
}

// pingPongSh: two shell processes hand a line back and forth over two FIFOs
// n times: each read blocks until the other writes, so every round is a
// wakeup of one by the other.
const pingPongSh = `set -e
mkfifo "$D/a" "$D/b"
( exec 3<"$D/a" 4>"$D/b"; while read x <&3; do echo "$x" >&4; done ) &
exec 5>"$D/a" 6<"$D/b"
i=0
while [ $i -lt $N ]; do echo $i >&5; read y <&6; i=$((i+1)); done
exec 5>&-
wait
`

// TestRecordedTrace records a real trace on this machine with tracefs,
// reads it, and finds the ping-pong's wakeups as edges between its two
// processes.
func TestRecordedTrace(t *testing.T) {
	if testing.Short() {
		t.Skip("records a trace with tracefs; skipped with -short")
	}
	dir := traceInstance(t)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(writeTracefs(dir, "buffer_size_kb", "8192"))
	must(writeTracefs(dir, "tracing_on", "0"))
	for _, ev := range liveEventNames {
		must(writeTracefs(dir, filepath.Join("events/sched", ev, "enable"), "1"))
	}
	const rounds = 300
	// On one CPU the two shells cannot run at once, so each round one of
	// them waits for the other (see the check below); without taskset they
	// may overlap on two CPUs and a round can pass with no wait.
	cmd := exec.Command("sh", "-c", pingPongSh)
	pinned := false
	if path, err := exec.LookPath("taskset"); err == nil {
		cmd, pinned = exec.Command(path, "-c", "0", "sh", "-c", pingPongSh), true
	}
	cmd.Env = append(os.Environ(), "D="+t.TempDir(), "N="+strconv.Itoa(rounds))
	must(writeTracefs(dir, "tracing_on", "1"))
	out, err := cmd.CombinedOutput()
	must(writeTracefs(dir, "tracing_on", "0"))
	if err != nil {
		t.Fatalf("workload: %v: %s", err, out)
	}
	data, err := os.ReadFile(filepath.Join(dir, "trace"))
	must(err)
	tr, err := Read(data)
	must(err)
	if tr.Format != FormatText || tr.CPUs < 1 {
		t.Fatalf("format %q, %d CPUs", tr.Format, tr.CPUs)
	}
	// The workload: the shell (cmd's pid) and the subshell it forked.
	parent := int32(cmd.Process.Pid)
	pids := []int32{parent}
	for _, e := range tr.Events {
		if e.Kind == KindNew && e.Pid == parent {
			pids = append(pids, e.Target)
		}
	}
	m, err := Build(tr, Options{Pids: pids})
	must(err)
	edges := map[[2]int32]int{}
	var report strings.Builder
	for _, th := range m.Threads {
		for _, s := range th.Segments {
			if s.End.Kind == EndWakeBy {
				edges[[2]int32{m.Threads[s.End.Waker].Tid, th.Tid}]++
			}
		}
		fmt.Fprintf(&report, "\n  %-6s %7d gen %d: %3d segments, cpu %.3f ms, wake-to-run p50 %.1f µs p99 %.1f µs, runnable %.3f ms, %d migrations",
			th.Name(), th.Tid, th.Gen, len(th.Segments), th.Recorded.CPUMs, th.Recorded.WakeLatP50Us, th.Recorded.WakeLatP99Us,
			th.Recorded.RunnableMs, th.Recorded.Migrations)
	}
	t.Logf("%d bytes, %d events, %d CPUs, lost %d; workload pids %v; edges %v%s", len(data), len(tr.Events), tr.CPUs, tr.LostEvents, pids, edges, report.String())
	if len(pids) < 2 {
		t.Fatalf("no fork of the subshell by %d in the trace", parent)
	}
	// Each round is a handoff each way, and a handoff is a wake edge when the
	// receiver already waits in its read. On one CPU every round has one at
	// least: after its write, the parent either blocks in its read (the
	// child's answer wakes it) or was preempted by the child it woke, which
	// was waiting in its read. Which one varies run to run.
	child := pids[len(pids)-1]
	pc, cp := edges[[2]int32{parent, child}], edges[[2]int32{child, parent}]
	if pinned && pc+cp < rounds*95/100 {
		t.Errorf("%d + %d wake edges between the two on one CPU, want at least one a round (%d)", pc, cp, rounds)
	}
	if !pinned && pc+cp < rounds*8/10 {
		t.Errorf("%d + %d wake edges between the two, want most of %d rounds", pc, cp, rounds)
	}
	for _, th := range m.Threads {
		if th.Tid == parent && th.Name() != "sh" {
			t.Errorf("the workload's shell is named %q, want sh (sched_process_exec)", th.Name())
		}
	}
	for _, th := range m.Threads {
		if th.Recorded.CPUMs <= 0 {
			t.Errorf("%s %d ran no time", th.Name(), th.Tid)
		}
	}
}

package kerneltrace

import (
	"strings"
	"testing"
)

// One event per line form; the fixtures are what each tool prints.
func TestTextLineForms(t *testing.T) {
	tests := []struct {
		desc string
		line string
		want Event
	}{
		{"tracefs without tgid",
			`          <idle>-0       [001] d..2.  1234.500000: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=sh prev 2 next_pid=42 next_prio=120`,
			Event{Ts: 1234_500_000_000, CPU: 1, Kind: KindSwitch, Pid: 0, PrevComm: "swapper/1", PrevPid: 0, PrevPrio: 120,
				NextComm: "sh prev 2", NextPid: 42, NextPrio: 120}},
		{"tracefs with tgid, comm with spaces and dashes",
			`  Web Content-x-77    (   70) [003] d..3   10.000001: sched_switch: prev_comm=Web Content-x prev_pid=77 prev_prio=120 prev_state=D|K ==> next_comm=swapper/3 next_pid=0 next_prio=120`,
			Event{Ts: 10_000_001_000, CPU: 3, Kind: KindSwitch, Pid: 77, PrevComm: "Web Content-x", PrevPid: 77, PrevPrio: 120,
				PrevState: StateUninterruptible, NextComm: "swapper/3", NextPid: 0, NextPrio: 120}},
		{"preempted, numeric state",
			`            foo-269   (-----) [006] ....    20.258854: sched_switch: prev_comm=foo prev_pid=269 prev_prio=120 prev_state=4096 ==> next_comm=bar next_pid=5 next_prio=130`,
			Event{Ts: 20_258_854_000, CPU: 6, Kind: KindSwitch, Pid: 269, PrevComm: "foo", PrevPid: 269, PrevPrio: 120,
				PrevState: StatePreempted, NextComm: "bar", NextPid: 5, NextPrio: 130}},
		{"waking in softirq",
			`          <idle>-0       [000] ..s1.  5.000000001: sched_waking: comm=my task pid=12 prio=120 target_cpu=001`,
			Event{Ts: 5_000_000_001, CPU: 0, Kind: KindWaking, Pid: 0, IRQ: true, Comm: "my task", Target: 12, Prio: 120, TargetCPU: 1}},
		{"trace-cmd -N, no flags column",
			`              sh-1234  [002]  7.25: sched_wakeup: comm=cat pid=99 prio=120 success=1 target_cpu=002`,
			Event{Ts: 7_250_000_000, CPU: 2, Kind: KindWaking, Pid: 1234, WakeupOnly: true, Comm: "cat", Target: 99, Prio: 120, TargetCPU: 2}},
		{"trace-cmd plugin switch",
			`       trace-cmd-4242  [000]  100.000100: sched_switch:         trace-cmd:4242 [120] S ==> kworker/0:1:31 [120]`,
			Event{Ts: 100_000_100_000, CPU: 0, Kind: KindSwitch, Pid: 4242, PrevComm: "trace-cmd", PrevPid: 4242, PrevPrio: 120,
				PrevState: StateInterruptible, NextComm: "kworker/0:1", NextPid: 31, NextPrio: 120}},
		{"trace-cmd plugin wakeup",
			`          <idle>-0     [001]  100.5: sched_waking:         rcu_sched:10 [120] CPU:001`,
			Event{Ts: 100_500_000_000, CPU: 1, Kind: KindWaking, Pid: 0, Comm: "rcu_sched", Target: 10, Prio: 120, TargetCPU: 1}},
		{"perf script raw",
			`            perf  1911 [000]  4357.123456:       sched:sched_switch: prev_comm=perf prev_pid=1911 prev_prio=120 prev_state=R+ ==> next_comm=migration/0 next_pid=12 next_prio=0`,
			Event{Ts: 4357_123_456_000, CPU: 0, Kind: KindSwitch, Pid: 1911, PrevComm: "perf", PrevPid: 1911, PrevPrio: 120,
				PrevState: StatePreempted, NextComm: "migration/0", NextPid: 12, NextPrio: 0}},
		{"perf script plugin with pid/tid and period",
			`         swapper     0/0     [001]    12.000001:          1 sched:sched_switch: swapper/1:0 [120] R ==> my thread:77 [100]`,
			Event{Ts: 12_000_001_000, CPU: 1, Kind: KindSwitch, Pid: 0, PrevComm: "swapper/1", PrevPid: 0, PrevPrio: 120,
				NextComm: "my thread", NextPid: 77, NextPrio: 100}},
		{"fork",
			`              sh-10    [000] .....    1.000000: sched_process_fork: comm=sh pid=10 child_comm=sh child_pid=11`,
			Event{Ts: 1_000_000_000, CPU: 0, Kind: KindNew, Pid: 10, Comm: "sh", Target: 11}},
		{"newtask",
			`              sh-10    [000] .....    1.000000: task_newtask: pid=11 comm=sh clone_flags=3d0f00 oom_score_adj=0`,
			Event{Ts: 1_000_000_000, CPU: 0, Kind: KindNew, Pid: 10, Comm: "sh", Target: 11, CloneFlags: 0x3d0f00}},
		{"rename",
			`              sh-11    [000] .....    1.000000: task_rename: pid=11 oldcomm=sh newcomm=cat x oom_score_adj=0`,
			Event{Ts: 1_000_000_000, CPU: 0, Kind: KindRename, Pid: 11, Comm: "cat x", Target: 11}},
		{"exec renames",
			`              sh-11    [000] .....    1.000000: sched_process_exec: filename=/usr/bin/my tool pid=11 old_pid=11`,
			Event{Ts: 1_000_000_000, CPU: 0, Kind: KindRename, Pid: 11, Comm: "my tool", Target: 11}},
		{"exit",
			`             cat-11    [001] .....    2.000000: sched_process_exit: comm=cat pid=11 prio=120 group_dead=1`,
			Event{Ts: 2_000_000_000, CPU: 1, Kind: KindExit, Pid: 11, Comm: "cat", Target: 11}},
		{"migrate",
			`          <idle>-0     [001] d..2.    2.000000: sched_migrate_task: comm=cat pid=11 prio=120 orig_cpu=1 dest_cpu=0`,
			Event{Ts: 2_000_000_000, CPU: 1, Kind: KindMigrate, Pid: 0, Comm: "cat", Target: 11, Prio: 120, OrigCPU: 1, TargetCPU: 0}},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			tr, err := readText([]byte(tc.line+"\n"), FormatText)
			if err != nil {
				t.Fatal(err)
			}
			if len(tr.Events) != 1 {
				t.Fatalf("%d events", len(tr.Events))
			}
			if got := tr.Events[0]; got != tc.want {
				t.Errorf("\n got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestTextHeadersAndTgid(t *testing.T) {
	in := `# tracer: nop
#
# entries-in-buffer/entries-written: 2/2   #P:4
#
#                                _-----=> irqs-off/BH-disabled
#           TASK-PID     TGID     CPU#  |||||  TIMESTAMP  FUNCTION
#              | |         |        |   |||||     |         |
              sh-10      (10) [000] d..2.     1.000000: sched_switch: prev_comm=sh prev_pid=10 prev_prio=120 prev_state=S ==> next_comm=worker next_pid=12 next_prio=120
          worker-12      (10) [000] d..2.     1.500000: sched_switch: prev_comm=worker prev_pid=12 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
`
	tr, err := Read([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if tr.Format != FormatText || tr.CPUs != 4 || tr.Tgid[12] != 10 || len(tr.Events) != 2 {
		t.Fatalf("format %q cpus %d tgid %v events %d", tr.Format, tr.CPUs, tr.Tgid, len(tr.Events))
	}
}

func TestTextTraceCmdHeaderAndLost(t *testing.T) {
	in := `version = 6
cpus=8
          <idle>-0     [001]     1.000000: sched_waking: comm=a pid=5 prio=120 target_cpu=001
CPU:1 [LOST 100 EVENTS]
          <idle>-0     [001]     2.000000: sched_waking: comm=a pid=5 prio=120 target_cpu=001
`
	tr, err := Read([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if tr.CPUs != 8 || tr.LostEvents != 1 || tr.ValidFromNs != 2_000_000_000 {
		t.Errorf("cpus %d lost %d valid from %d", tr.CPUs, tr.LostEvents, tr.ValidFromNs)
	}
}

func TestSystraceHTML(t *testing.T) {
	in := `<!DOCTYPE html>
<html><head></head><body>
<script class="trace-data" type="application/json">{"traceEvents": []}</script>
<script class="trace-data" type="application/text">
# tracer: nop
          <idle>-0     (-----) [000] d..3    1.000000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=foo next_pid=269 next_prio=130
</script>
</body></html>`
	tr, err := Read([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if tr.Format != FormatHTML || len(tr.Events) != 1 || tr.Events[0].NextComm != "foo" {
		t.Fatalf("%q %+v", tr.Format, tr.Events)
	}
}

func TestChromeJSONSystemTrace(t *testing.T) {
	in := `{"traceEvents": [{"ph": "M", "pid": 1}], "systemTraceEvents": "# tracer: nop\n` +
		`  sh-5 (5) [001] d..2. 2.000000: sched_switch: prev_comm=sh prev_pid=5 prev_prio=120 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120\n"}`
	tr, err := Read([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if tr.Format != FormatChrome || len(tr.Events) != 1 || tr.Events[0].PrevPid != 5 || tr.Tgid[5] != 5 {
		t.Fatalf("%q %+v", tr.Format, tr.Events)
	}
	if _, err := Read([]byte(`{"systemTraceEvents": 3}`)); err == nil || !strings.Contains(err.Error(), "chrome JSON") {
		t.Errorf("a number as systemTraceEvents: %v", err)
	}
}

func TestTextErrors(t *testing.T) {
	tests := []struct {
		desc, in, want string
	}{
		{"no events", "# tracer: nop\n", "no scheduler events"},
		{"bad pid", "# tracer: nop\n  a-1 [000] .... 1.0: sched_switch: prev_comm=a prev_pid=x prev_prio=1 prev_state=S ==> next_comm=b next_pid=2 next_prio=1\n",
			"line 2: sched_switch: prev_pid=\"x\""},
		{"bad state", "  a-1 [000] .... 1.0: sched_switch: prev_comm=a prev_pid=1 prev_prio=1 prev_state=Q ==> next_comm=b next_pid=2 next_prio=1\n",
			"line 1: sched_switch: prev_state=\"Q\""},
		{"bad time", "  a-1 [000] .... 1.x: sched_waking: comm=a pid=1 prio=1 target_cpu=0\n", "line 1: sched_waking: timestamp"},
		{"no pid", "  a-1 [000] .... 1.0: sched_waking: comm=a prio=1 target_cpu=0\n", "line 1: sched_waking"},
		{"bad plugin", "  a-1 [000] .... 1.0: sched_switch: a:1 S ==> b:2 [1]\n", "line 1: sched_switch"},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			_, err := readText([]byte(tc.in), FormatText)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestDetect(t *testing.T) {
	tests := []struct {
		desc string
		data []byte
		want Format
	}{
		{"perfetto", pingPong(), FormatPerfetto},
		{"perfetto compact", compactBundle(), FormatPerfetto},
		{"tracefs", []byte("# tracer: nop\n#\n"), FormatText},
		{"trace-cmd", []byte("version = 6\ncpus=2\n"), FormatText},
		{"bare event line", []byte("  a-1 [000] 1.0: sched_waking: comm=a pid=1 prio=1 target_cpu=0\n"), FormatText},
		{"html", []byte("<!DOCTYPE html><html>"), FormatHTML},
		{"trace.dat", []byte("\x17\x08\x44tracing6\x00"), FormatTraceDat},
		{"rt-app json", []byte(`{"tasks": {}}`), FormatUnknown},
		{"empty", nil, FormatUnknown},
		{"one byte", []byte{0x0a}, FormatUnknown},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			if got := Detect(tc.data); got != tc.want {
				t.Errorf("Detect = %q, want %q", got, tc.want)
			}
		})
	}
}

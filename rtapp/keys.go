package rtapp

import (
	"fmt"
	"strings"
)

// Status says what Decode does with a key.
type Status int

const (
	// Modelled: decoded into the model for the simulator to act on.
	Modelled Status = iota
	// NoOp: checked as rt-app checks it, recorded in Description.Notes,
	// and otherwise ignored, because it changes nothing a CPU scheduler
	// simulator models.
	NoOp
	// Refused: Decode fails, because ignoring the key would make the
	// simulated workload differ from what rt-app runs.
	Refused
)

func (s Status) String() string {
	switch s {
	case Modelled:
		return "modelled"
	case NoOp:
		return "no-op"
	case Refused:
		return "refused"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// KeyInfo is one row of KeyStatus.
type KeyInfo struct {
	Key    string
	Where  string // "root", "global", "task", "phase", "task, phase", "event"
	Status Status
	Why    string
}

// KeyStatus lists every key rt-app's parser (src/rt-app_parse_config.c)
// reads, where it may appear, and what Decode does with it. Event keys may
// carry trailing digits ("run0", "sleep12"). Any other key in a task or phase
// is an error; any other key in "global" is noted and ignored, as rt-app
// ignores it.
var KeyStatus = []KeyInfo{
	{"global", "root", Modelled, "parse_global; optional, defaults as rt-app"},
	{"tasks", "root", Modelled, "parse_tasks; required"},
	{"resources", "root", NoOp, "legacy declarations (parse_resources): rt-app creates every resource on first use"},
	{"taskgroups", "root", Modelled, "a schedplay extension rt-app ignores: the cgroup v2 files of the groups taskgroup keys name, {\"/a\": {\"cpu.weight\": 300, \"cpu.max\": \"20000 100000\"}} (sched.groups overrides them)"},

	{"duration", "global", Modelled, "seconds rt-app lives (the run covers them even when every task ends before); -1 or 0 runs until every task ends"},
	{"default_policy", "global", Modelled, "policy of tasks that name none"},
	{"calibration", "global", NoOp, "run durations are simulated CPU time: there is no busy loop to calibrate (a number of ns per loop divides the log's perf column, as in rt-app)"},
	{"pi_enabled", "global", NoOp, "only false is accepted; true is refused: priority-inheritance mutexes are not modelled"},
	{"lock_pages", "global", NoOp, "mlockall: the simulator has no paging"},
	{"logdir", "global", NoOp, "logging output"},
	{"log_basename", "global", NoOp, "logging output"},
	{"log_size", "global", Modelled, "where the logs go: to each thread's file as it runs (\"file\", \"auto\", the default), which costs a thread a write each time its 4 KB stdio buffer fills; or into memory (MB) or nowhere (\"disable\", 0), which costs nothing"},
	{"ftrace", "global", NoOp, "tracing output"},
	{"gnuplot", "global", NoOp, "logging output"},
	{"io_device", "global", NoOp, "used only by iorun events, which are refused"},
	{"mem_buffer_size", "global", NoOp, "used only by mem events, which are refused"},
	{"cumulative_slack", "global", NoOp, "changes only how slack is reported in rt-app's logs"},

	{"instance", "task", Modelled, "threads started from the task; 0..MaxInstances"},
	{"delay", "task", Modelled, "µs before the first phase"},
	{"phases", "task", Modelled, "phases in file order; without it the task's own events are its one phase"},
	{"loop", "task, phase", Modelled, "-1 forever, else 0..MaxLoop (a phase: 1..MaxLoop)"},
	{"cpus", "task, phase", Modelled, "affinity list of CPU numbers 0..MaxCPU"},
	{"policy", "task, phase", Modelled, "SCHED_OTHER, SCHED_BATCH, SCHED_IDLE, SCHED_FIFO, SCHED_RR, SCHED_DEADLINE (the classes under sched.policy=linux)"},
	{"priority", "task, phase", Modelled, "nice -20..19 for fair classes, 1..99 for SCHED_FIFO/RR"},
	{"nodes_membind", "task, phase", NoOp, "NUMA memory placement: memory is not modelled"},
	{"util_min", "task, phase", NoOp, "uclamp (checked <= 1024): steers frequency and capacity-aware placement; the simulated CPUs have one fixed speed"},
	{"util_max", "task, phase", NoOp, "uclamp (checked <= 1024): steers frequency and capacity-aware placement; the simulated CPUs have one fixed speed"},
	{"taskgroup", "task, phase", Modelled, "the task group (cgroup path, \"/\" the root) the thread runs in from the start (task) or from the phase on; its cpu.weight and cpu.max come from the scenario's sched.groups, as rt-app leaves them to whoever made the groups (sched.policy=linux; the empty string is no taskgroup)"},
	{"dl-runtime", "task, phase", Modelled, "SCHED_DEADLINE budget, or a custom slice on SCHED_OTHER and SCHED_BATCH (Linux 6.12+, sched_attr.sched_runtime; sched_ext schedules by its own slice and ignores it, as does OSv)"},
	{"dl-period", "task, phase", Modelled, "SCHED_DEADLINE period (default: dl-runtime)"},
	{"dl-deadline", "task, phase", Modelled, "SCHED_DEADLINE relative deadline (default: dl-period)"},
	{"period", "task", Modelled, "legacy spelling of dl-period at task level"},
	{"deadline", "task", Modelled, "legacy spelling of dl-deadline at task level"},

	{"run", "event", Modelled, "µs of work (rt-app scales it with CPU speed; the simulated CPUs have one speed)"},
	{"runtime", "event", Modelled, "µs of wall-clock busy time (at task level also the legacy dl-runtime, as parse_sched_data reads it)"},
	{"sleep", "event", Modelled, "µs asleep"},
	{"timer", "event", Modelled, "{ref, period µs, mode relative|absolute}; a ref starting with \"unique\" is one timer per thread"},
	{"lock", "event", Modelled, "mutex name (glibc's: an unlock wakes a sleeper and whoever asks first takes it); must be unlocked later in the same phase"},
	{"unlock", "event", Modelled, "mutex name; must be held"},
	{"wait", "event", Modelled, "{ref: condvar, mutex}; the mutex must be held"},
	{"signal", "event", Modelled, "condvar name; the waiters' mutex must be held"},
	{"broad", "event", Modelled, "condvar name (broadcast); the waiters' mutex must be held"},
	{"sync", "event", Modelled, "{ref: condvar, mutex}: signal then wait; the mutex must be held"},
	{"barrier", "event", Modelled, "barrier name; participants = instances of each task that names it, at least 2"},
	{"suspend", "event", Modelled, "a name (rt-app 1.0: a condition variable and mutex of that name, shared by every thread naming it): waits there until a resume names it; empty, or the key alone as workgen fills it, is the task's own name"},
	{"resume", "event", Modelled, "a name: wakes every thread suspended on it then (a resume finding none is lost); empty is the task's own name"},
	{"yield", "event", Modelled, "sched_yield; the value is ignored"},
	{"sem_post", "event", Modelled, "semaphore name"},
	{"sem_wait", "event", Modelled, "semaphore name"},
	{"mem", "event", Refused, "memory writes: their duration depends on memory bandwidth, which is not modelled"},
	{"memrun", "event", Refused, "memory access loops: their duration depends on caches and memory, which are not modelled"},
	{"iorun", "event", Refused, "writes to a device: IO is not modelled"},
	{"fork", "event", Modelled, "starts a thread of the named task (its own instance, running the task's script from its start), placed as wake_up_new_task places a new task"},
}

// KeyTable formats KeyStatus as an aligned text table (padded by hand:
// text/tabwriter would go into the engine workers that link this package).
func KeyTable() string {
	rows := [][4]string{{"KEY", "WHERE", "STATUS", "WHY"}}
	for _, k := range KeyStatus {
		rows = append(rows, [4]string{k.Key, k.Where, k.Status.String(), k.Why})
	}
	var width [3]int
	for _, r := range rows {
		for c := range width {
			width[c] = max(width[c], len(r[c]))
		}
	}
	var b strings.Builder
	for _, r := range rows {
		for c := range width {
			b.WriteString(r[c])
			b.WriteString(strings.Repeat(" ", width[c]-len(r[c])+2))
		}
		b.WriteString(r[3])
		b.WriteByte('\n')
	}
	return b.String()
}

func keyInfo(key, where string) (KeyInfo, bool) {
	for _, k := range KeyStatus {
		if k.Key == key && strings.Contains(k.Where, where) {
			return k, true
		}
	}
	return KeyInfo{}, false
}

package engine

// The parts of the scenario's sched section that hold more than a knob: a
// sched_ext policy's source, and task groups' settings.

// ScxConfig is a sched_ext policy given by its source (docs/policies.md).
type ScxConfig struct {
	// Source is the policy, in Starlark (at most MaxScxSourceBytes). Empty
	// runs the sched_ext core with no callbacks: the kernel's defaults. Only
	// sched.policy=scx runs it; under another policy it is kept and not run,
	// so that one scenario compares its policy with a built-in one (an arm
	// that sets sched.policy=scx_simple, say).
	Source string `json:"source,omitzero"`
	// WatchdogMs is the watchdog timeout: a task runnable this long without
	// running ejects the policy. 0 is the kernel's 30 s.
	WatchdogMs int64 `json:"watchdog_ms,omitzero"`
}

// MaxScxSourceBytes bounds sched.scx.source.
const MaxScxSourceBytes = 32 << 10

// TaskGroup is one cgroup's CPU controller settings.
type TaskGroup struct {
	// Path is the cgroup, as rt-app's taskgroup names it ("/a/b").
	Path string `json:"path"`
	// Weight is cpu.weight, 1 to 10000; 0 is the default, 100.
	Weight int64 `json:"weight,omitzero"`
	// MaxUs is cpu.max's quota: µs of CPU time per period for the group's
	// tasks on all CPUs together, 1000 or more; 0 is "max" (no limit).
	MaxUs int64 `json:"max_us,omitzero"`
	// PeriodUs is cpu.max's period, 1000 to 1000000; 0 is the default,
	// 100000.
	PeriodUs int64 `json:"period_us,omitzero"`
}

// MaxTaskGroups bounds sched.groups and the task groups a workload names.
const MaxTaskGroups = 64

package rtapp

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Decode reads an rt-app description the way rt-app reads it
// (parse_config → get_opts_from_json_object in src/rt-app_parse_config.c),
// with the leniency rt-app's documentation promises: C comments, trailing
// commas, and repeated keys, which are kept in file order as the workgen
// script keeps them (by renaming), so "run", "sleep", "run" is three events.
//
// It refuses what the simulator cannot run faithfully (see KeyStatus) and
// what would make rt-app misbehave silently (unbalanced locks, a resume of a
// task that does not exist, ...). Errors are *Error values naming the key
// path and line:col.
func Decode(data []byte) (*Description, error) {
	if len(data) > MaxInputBytes {
		return nil, &Error{Line: 1, Col: 1, Msg: fmt.Sprintf("input is %d bytes; the limit is %d (MaxInputBytes)", len(data), MaxInputBytes)}
	}
	cleaned, err := clean(data)
	if err != nil {
		return nil, err
	}
	src := newSource(data)
	root, err := parseTree(src, cleaned)
	if err != nil {
		return nil, err
	}
	d := &decoder{desc: &Description{Global: DefaultGlobal()}}
	if err := d.root(root); err != nil {
		return nil, err
	}
	if err := check(d.desc); err != nil {
		return nil, err
	}
	return d.desc, nil
}

type decoder struct {
	desc *Description
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func (d *decoder) note(path string, pos Pos, format string, args ...any) {
	d.desc.Notes = append(d.desc.Notes, Note{Path: path, Pos: pos, Msg: fmt.Sprintf(format, args...)})
}

func (d *decoder) noOp(path string, pos Pos, key, where string) {
	k, _ := keyInfo(key, where)
	d.note(path, pos, "no-op: %s", k.Why)
}

// unique fails on the second occurrence of a name among names that must not
// repeat: json-c would keep the last value, workgen would rename the key
// (and rt-app then use the first), so the file has no single meaning.
func unique(seen map[string]Pos, path string, m member) error {
	if p, ok := seen[m.name]; ok {
		return errorAt(m.pos, join(path, m.name), "repeated key (first at %s): readers of rt-app files disagree on which value counts", p)
	}
	seen[m.name] = m.pos
	return nil
}

func (d *decoder) root(n *node) error {
	if n.kind != '{' {
		return errorAt(n.pos, "", "want an object at the top level, got %s", n.describe())
	}
	seen := map[string]Pos{}
	var global, tasks *member
	for i := range n.members {
		m := &n.members[i]
		switch m.name {
		case "global", "tasks", "resources":
			if err := unique(seen, "", *m); err != nil {
				return err
			}
		}
		switch m.name {
		case "global":
			global = m
		case "tasks":
			tasks = m
		case "resources":
			if m.val.kind != '{' && m.val.kind != 'n' {
				return errorAt(m.val.pos, m.name, "want an object, got %s", m.val.describe())
			}
			d.noOp(m.name, m.pos, m.name, "root")
		default:
			d.note(m.name, m.pos, "ignored: not a key rt-app reads at the top level")
		}
	}
	if global != nil {
		if err := d.global(global.val); err != nil {
			return err
		}
	}
	if tasks == nil {
		return errorAt(n.pos, "", `no "tasks" object`)
	}
	return d.tasks(tasks.val)
}

// --- scalar helpers ---

var floatSyntax = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$`)

// integer reads a JSON integer within [lo, hi]; what says what it counts
// ("an integer number of µs").
func integer(n *node, path, what string, lo, hi int64) (int64, error) {
	if n.kind != '0' {
		return 0, errorAt(n.pos, path, "want %s, got %s", what, n.describe())
	}
	v, err := strconv.ParseInt(n.str, 10, 64)
	if err != nil {
		if floatSyntax.MatchString(n.str) && strings.ContainsAny(n.str, ".eE") {
			return 0, errorAt(n.pos, path, "want %s, got %s (rt-app reads only integers here)", what, n.str)
		}
		return 0, errorAt(n.pos, path, "want %s, got %s (out of range)", what, n.str)
	}
	if v < lo || v > hi {
		return 0, errorAt(n.pos, path, "want %s in %d..%d, got %d", what, lo, hi, v)
	}
	return v, nil
}

func str(n *node, path, what string) (string, error) {
	if n.kind != '"' {
		return "", errorAt(n.pos, path, "want %s, got %s", what, n.describe())
	}
	return n.str, nil
}

func name(n *node, path, what string) (string, error) {
	s, err := str(n, path, what)
	if err == nil && s == "" {
		err = errorAt(n.pos, path, "want %s, got an empty string", what)
	}
	return s, err
}

func boolean(n *node, path string) (bool, error) {
	switch n.kind {
	case 't':
		return true, nil
	case 'f':
		return false, nil
	}
	return false, errorAt(n.pos, path, "want true or false, got %s", n.describe())
}

func policy(n *node, path string) (Policy, error) {
	s, err := str(n, path, "a policy name")
	if err != nil {
		return "", err
	}
	switch p := Policy(s); p { // string_to_policy
	case SchedOther, SchedBatch, SchedIdle, SchedFIFO, SchedRR:
		return p, nil
	case SchedDeadline:
		return "", errorAt(n.pos, path, "refused: SCHED_DEADLINE is not modelled")
	}
	return "", errorAt(n.pos, path, "want one of SCHED_OTHER, SCHED_BATCH, SCHED_IDLE, SCHED_FIFO, SCHED_RR, got %s", n.describe())
}

// --- global ---

var calibrationCPU = regexp.MustCompile(`^CPU([0-9]+)$`)

func (d *decoder) global(n *node) error {
	const path = "global"
	if n.kind == 'n' {
		return nil
	}
	if n.kind != '{' {
		return errorAt(n.pos, path, "want an object, got %s", n.describe())
	}
	g := &d.desc.Global
	seen := map[string]Pos{}
	for _, m := range n.members {
		p := join(path, m.name)
		if err := unique(seen, path, m); err != nil {
			return err
		}
		v := m.val
		var err error
		switch m.name {
		case "duration":
			var x int64
			x, err = integer(v, p, "a number of seconds (-1: no limit)", -1, MaxDurationS)
			if err == nil && x == 0 {
				err = errorAt(v.pos, p, "want a number of seconds (-1: no limit), got 0")
			}
			g.Duration = int(x)
		case "default_policy":
			g.DefaultPolicy, err = policy(v, p)
		case "calibration":
			if v.kind == '0' {
				var x int64
				x, err = integer(v, p, "ns per loop or \"CPUn\"", 1, MaxDurationUS)
				g.CalibrationNs = int(x)
			} else {
				var s string
				s, err = str(v, p, "ns per loop or \"CPUn\"")
				if err == nil {
					sm := calibrationCPU.FindStringSubmatch(s)
					if sm == nil {
						err = errorAt(v.pos, p, "want ns per loop or \"CPUn\", got %s", v.describe())
					} else if cpu, e := strconv.Atoi(sm[1]); e != nil || cpu > MaxCPU {
						err = errorAt(v.pos, p, "want a CPU number 0..%d, got %s", MaxCPU, v.describe())
					} else {
						g.CalibrationCPU = cpu
					}
				}
			}
		case "pi_enabled":
			g.PIEnabled, err = boolean(v, p)
			if err == nil && g.PIEnabled {
				err = errorAt(v.pos, p, "refused: priority-inheritance mutexes are not modelled")
			}
		case "lock_pages":
			g.LockPages, err = boolean(v, p)
		case "gnuplot":
			g.Gnuplot, err = boolean(v, p)
		case "cumulative_slack":
			g.CumulativeSlack, err = boolean(v, p)
		case "logdir":
			g.LogDir, err = str(v, p, "a directory")
		case "log_basename":
			g.LogBasename, err = str(v, p, "a file name prefix")
		case "io_device":
			g.IODevice, err = str(v, p, "a file name")
		case "log_size":
			if v.kind == '0' {
				var x int64
				x, err = integer(v, p, "a size in MB", 0, 1<<11)
				g.LogSize = strconv.FormatInt(x, 10)
			} else {
				g.LogSize, err = str(v, p, "a size in MB or \"file\", \"disable\", \"auto\"")
			}
		case "ftrace":
			switch v.kind {
			case 't', 'f':
				g.Ftrace = v.describe()
			default:
				g.Ftrace, err = str(v, p, "a list of trace categories")
			}
		case "mem_buffer_size":
			var x int64
			x, err = integer(v, p, "a size in bytes", 0, MaxDurationUS)
			g.MemBufferSize = int(x)
		default:
			d.note(p, m.pos, "ignored: not a key rt-app reads in global")
			continue
		}
		if err != nil {
			return err
		}
		if k, ok := keyInfo(m.name, "global"); ok && k.Status == NoOp {
			d.note(p, m.pos, "no-op: %s", k.Why)
		}
	}
	return nil
}

// --- tasks ---

func (d *decoder) tasks(n *node) error {
	const path = "tasks"
	if n.kind != '{' {
		return errorAt(n.pos, path, "want an object of tasks, got %s", n.describe())
	}
	if len(n.members) == 0 {
		return errorAt(n.pos, path, "no tasks")
	}
	if len(n.members) > MaxTasks {
		return errorAt(n.members[MaxTasks].pos, path, "more than %d tasks (MaxTasks)", MaxTasks)
	}
	seen := map[string]Pos{}
	threads := 0
	for _, m := range n.members {
		if err := unique(seen, path, m); err != nil {
			return err
		}
		t, err := d.task(join(path, m.name), m)
		if err != nil {
			return err
		}
		threads += t.Instance
		if threads > MaxThreads {
			return errorAt(m.pos, join(path, m.name), "the tasks so far start %d threads, more than %d (MaxThreads)", threads, MaxThreads)
		}
		d.desc.Tasks = append(d.desc.Tasks, t)
	}
	return nil
}

// body is what a task or phase object holds: properties and events.
type body struct {
	loop    *member
	cpus    []int
	sched   *Sched
	events  []Event
	phases  *member
	props   map[string]member
	firstEv *member
}

// Property keys by level (parse_task_data, parse_task_phase_data,
// parse_sched_data, parse_cpuset_data, parse_numa_data,
// parse_taskgroup_data).
var (
	phaseProps = []string{"loop", "cpus", "policy", "priority", "nodes_membind", "util_min", "util_max", "taskgroup", "dl-runtime", "dl-period", "dl-deadline"}
	taskProps  = append([]string{"instance", "delay", "phases", "period", "deadline"}, phaseProps...)
)

func isProp(key string, task bool) bool {
	list := phaseProps
	if task {
		list = taskProps
	}
	for _, k := range list {
		if k == key {
			return true
		}
	}
	return false
}

// body reads a task or phase object: its properties, and its events in
// order. taskName is the task the events belong to; pol is the policy in
// force, to check a priority against.
func (d *decoder) body(path string, n *node, isTask bool, taskName string, pol Policy) (*body, error) {
	if n.kind != '{' {
		return nil, errorAt(n.pos, path, "want an object, got %s", n.describe())
	}
	b := &body{props: map[string]member{}}
	seen := map[string]Pos{}
	for i := range n.members {
		m := n.members[i]
		p := join(path, m.name)
		if isProp(m.name, isTask) {
			if err := unique(seen, path, m); err != nil {
				return nil, err
			}
			b.props[m.name] = m
			continue
		}
		kind, err := eventKind(m, p, isTask)
		if err != nil {
			return nil, err
		}
		if b.firstEv == nil {
			b.firstEv = &n.members[i]
		}
		if len(b.events) == MaxEventsPerPhase {
			return nil, errorAt(m.pos, p, "more than %d events in one phase (MaxEventsPerPhase)", MaxEventsPerPhase)
		}
		ev, err := decodeEvent(p, m, kind, taskName)
		if err != nil {
			return nil, err
		}
		b.events = append(b.events, ev)
	}

	// Scheduling (parse_sched_data): policy, then priority checked
	// against the policy in force.
	if m, ok := b.props["policy"]; ok {
		pp, err := policy(m.val, join(path, m.name))
		if err != nil {
			return nil, err
		}
		b.sched = &Sched{Policy: pp}
		pol = pp
	}
	if m, ok := b.props["priority"]; ok {
		lo, hi, what := int64(-20), int64(19), "a nice value"
		if pol.RealTime() {
			lo, hi, what = 1, 99, "an RT priority"
		}
		x, err := integer(m.val, join(path, m.name), what+" for "+string(pol), lo, hi)
		if err != nil {
			return nil, err
		}
		if b.sched == nil {
			b.sched = &Sched{}
		}
		b.sched.Priority, b.sched.PrioritySet = int(x), true
	}
	if m, ok := b.props["cpus"]; ok {
		cpus, err := cpuList(m.val, join(path, m.name))
		if err != nil {
			return nil, err
		}
		b.cpus = cpus
	}
	if m, ok := b.props["loop"]; ok {
		b.loop = &m
	}
	if m, ok := b.props["phases"]; ok {
		b.phases = &m
	}
	if m, ok := b.props["nodes_membind"]; ok {
		if _, err := cpuList(m.val, join(path, m.name)); err != nil {
			return nil, err
		}
		d.noOp(join(path, m.name), m.pos, m.name, "phase")
	}
	for _, k := range []string{"util_min", "util_max"} {
		if m, ok := b.props[k]; ok {
			if _, err := integer(m.val, join(path, k), "a utilization clamp (-1: unchanged)", -1, 1024); err != nil {
				return nil, err
			}
			d.noOp(join(path, k), m.pos, k, "phase")
		}
	}
	if m, ok := b.props["taskgroup"]; ok {
		s, err := str(m.val, join(path, m.name), "a taskgroup path")
		if err != nil {
			return nil, err
		}
		if s != "" {
			return nil, errorAt(m.val.pos, join(path, m.name), "refused: cgroup CPU shares (taskgroups) are not modelled")
		}
		d.note(join(path, m.name), m.pos, "no-op: an empty taskgroup is no taskgroup")
	}
	for _, k := range []string{"dl-runtime", "dl-period", "dl-deadline", "period", "deadline"} {
		if m, ok := b.props[k]; ok {
			x, err := integer(m.val, join(path, k), "an integer number of µs", 0, MaxDurationUS)
			if err != nil {
				return nil, err
			}
			if x != 0 {
				return nil, errorAt(m.pos, join(path, k), "refused: SCHED_DEADLINE parameters and custom slices are not modelled")
			}
		}
	}
	return b, nil
}

func cpuList(n *node, path string) ([]int, error) {
	if n.kind != '[' {
		return nil, errorAt(n.pos, path, "want an array of CPU numbers, got %s", n.describe())
	}
	if len(n.elems) == 0 {
		return nil, errorAt(n.pos, path, "empty list: a thread needs at least one CPU")
	}
	if len(n.elems) > MaxCPU+1 {
		return nil, errorAt(n.pos, path, "more than %d entries", MaxCPU+1)
	}
	out := make([]int, 0, len(n.elems))
	for _, e := range n.elems {
		x, err := integer(e, path, "a CPU number", 0, MaxCPU)
		if err != nil {
			return nil, err
		}
		out = append(out, int(x))
	}
	return out, nil
}

func loopValue(m *member, path string, phase bool) (int, error) {
	p := join(path, m.name)
	x, err := integer(m.val, p, "a loop count (-1: forever)", -1, MaxLoop)
	if err != nil {
		return 0, err
	}
	if phase && x == 0 {
		// rt-app ends a phase when its counter, incremented first, equals
		// loop: with 0 it would run until the counter overflows.
		return 0, errorAt(m.val.pos, p, "want a loop count >= 1 or -1 (forever); rt-app would run a phase with loop 0 until its counter overflows")
	}
	return int(x), nil
}

func (d *decoder) task(path string, m member) (*Task, error) {
	t := &Task{Name: m.name, Pos: m.pos, Instance: 1, Loop: LoopForever}
	if m.val.kind != '{' {
		return nil, errorAt(m.val.pos, path, "want a task object, got %s", m.val.describe())
	}
	// The task's own policy (default_policy when absent) is needed to check
	// priorities, so read it before the body.
	pol := d.desc.Global.DefaultPolicy
	b, err := d.body(path, m.val, true, t.Name, pol)
	if err != nil {
		return nil, err
	}
	t.Sched = Sched{Policy: pol}
	if b.sched != nil {
		if b.sched.Policy != "" {
			t.Sched.Policy = b.sched.Policy
		}
		t.Sched.Priority, t.Sched.PrioritySet = b.sched.Priority, b.sched.PrioritySet
	}
	if !t.Sched.PrioritySet && t.Sched.Policy.RealTime() {
		t.Sched.Priority = 10 // DEFAULT_THREAD_PRIORITY
	}
	t.CPUs = b.cpus
	if im, ok := b.props["instance"]; ok {
		x, err := integer(im.val, join(path, im.name), "a number of threads", 0, MaxInstances)
		if err != nil {
			return nil, err
		}
		t.Instance = int(x)
	}
	if dm, ok := b.props["delay"]; ok {
		x, err := integer(dm.val, join(path, dm.name), "an integer number of µs", 0, MaxDurationUS)
		if err != nil {
			return nil, err
		}
		t.Delay = x
	}

	if b.phases == nil {
		// No "phases": the task object is its only phase.
		if len(b.events) == 0 {
			return nil, errorAt(m.pos, path, "no events: a task needs events, directly or in \"phases\"")
		}
		ph := &Phase{Pos: m.pos, Loop: 1, Events: b.events}
		if b.loop != nil {
			if ph.Loop, err = loopValue(b.loop, path, true); err != nil {
				return nil, err
			}
			t.Loop = 1
		}
		t.Phases, t.Inline = []*Phase{ph}, true
		return t, nil
	}

	if b.firstEv != nil {
		return nil, errorAt(b.firstEv.pos, join(path, b.firstEv.name), "event beside \"phases\": rt-app reads only the phases")
	}
	if b.loop != nil {
		if t.Loop, err = loopValue(b.loop, path, false); err != nil {
			return nil, err
		}
	}
	pp := join(path, "phases")
	pv := b.phases.val
	if pv.kind != '{' {
		return nil, errorAt(pv.pos, pp, "want an object of phases, got %s", pv.describe())
	}
	if len(pv.members) == 0 {
		return nil, errorAt(pv.pos, pp, "no phases")
	}
	if len(pv.members) > MaxPhases {
		return nil, errorAt(pv.members[MaxPhases].pos, pp, "more than %d phases (MaxPhases)", MaxPhases)
	}
	// Repeated phase names are kept, in order, as workgen keeps them.
	cur := t.Sched.Policy
	for _, pm := range pv.members {
		ppath := join(pp, pm.name)
		pb, err := d.body(ppath, pm.val, false, t.Name, cur)
		if err != nil {
			return nil, err
		}
		if len(pb.events) == 0 {
			return nil, errorAt(pm.pos, ppath, "no events: rt-app refuses a phase without events")
		}
		ph := &Phase{Name: pm.name, Pos: pm.pos, Loop: 1, CPUs: pb.cpus, Sched: pb.sched, Events: pb.events}
		if pb.sched != nil && pb.sched.Policy != "" {
			cur = pb.sched.Policy
			if !pb.sched.PrioritySet && cur.RealTime() {
				ph.Sched.Priority = 10
			}
		}
		if pb.loop != nil {
			if ph.Loop, err = loopValue(pb.loop, ppath, true); err != nil {
				return nil, err
			}
		}
		t.Phases = append(t.Phases, ph)
	}
	return t, nil
}

// --- events ---

// eventNames in the order parse_task_event_data tests them; rt-app matches
// a key to the first name that is a prefix of it (obj_is_event uses strncmp
// too), so "runtime" is tested inside "run", and "memrun" before "mem".
var eventNames = []string{
	"runtime", "run", "sleep", "memrun", "mem", "iorun", "lock", "unlock",
	"signal", "broad", "wait", "sync", "barrier", "timer", "resume",
	"suspend", "yield", "fork", "sem_post", "sem_wait",
}

// eventKind resolves a key to an event kind: the key without its trailing
// digits must be an event name. rt-app accepts any key an event name is a
// prefix of ("runfast" is a run); that is refused here with a message, since
// it is more often a typo than a choice.
func eventKind(m member, path string, isTask bool) (Kind, error) {
	base := strings.TrimRight(m.name, "0123456789")
	for _, e := range eventNames {
		if base == e {
			return Kind(e), nil
		}
	}
	for _, e := range eventNames {
		if strings.HasPrefix(m.name, e) {
			return "", errorAt(m.pos, path, "unknown event: rt-app would read it as %q by its prefix; write %q or %q followed by digits", e, e, e)
		}
	}
	where := "phase"
	if isTask {
		where = "task"
	}
	if k, ok := keyInfo(m.name, "global"); ok {
		return "", errorAt(m.pos, path, "%q is a global key, not a %s key", k.Key, where)
	}
	if !isTask && isProp(m.name, true) {
		return "", errorAt(m.pos, path, "%q is a task key, not a phase key (rt-app ignores it here)", m.name)
	}
	return "", errorAt(m.pos, path, "unknown event or %s key", where)
}

func decodeEvent(path string, m member, kind Kind, taskName string) (Event, error) {
	ev := Event{Key: m.name, Kind: kind, Pos: m.pos}
	v := m.val
	var err error
	switch kind {
	case Run, Runtime, Sleep:
		ev.Duration, err = integer(v, path, "an integer number of µs", 0, MaxDurationUS)
	case Timer:
		err = eventObject(v, path, map[string]bool{"ref": true, "period": true, "mode": false}, func(k string, fv *node) error {
			var e error
			switch k {
			case "ref":
				ev.Ref, e = name(fv, join(path, k), "a timer name")
				ev.Unique = strings.HasPrefix(ev.Ref, "unique")
			case "period":
				ev.Duration, e = integer(fv, join(path, k), "an integer number of µs", 0, MaxDurationUS)
			case "mode":
				var s string
				s, e = str(fv, join(path, k), `"relative" or "absolute"`)
				if e == nil && s != string(Relative) && s != string(Absolute) {
					e = errorAt(fv.pos, join(path, k), `want "relative" or "absolute", got %s`, fv.describe())
				}
				ev.Mode = TimerMode(s)
			}
			return e
		})
		if ev.Mode == "" {
			ev.Mode = Relative
		}
	case Wait, Sync:
		err = eventObject(v, path, map[string]bool{"ref": true, "mutex": true}, func(k string, fv *node) error {
			var e error
			switch k {
			case "ref":
				ev.Ref, e = name(fv, join(path, k), "a condition variable name")
			case "mutex":
				ev.Mutex, e = name(fv, join(path, k), "a mutex name")
			}
			return e
		})
	case Lock, Unlock:
		ev.Ref, err = name(v, path, "a mutex name")
	case Signal, Broad:
		if v.kind == '{' {
			return ev, errorAt(v.pos, path, "want a condition variable name: %s takes a string; the mutex goes in lock/unlock around it", kind)
		}
		ev.Ref, err = name(v, path, "a condition variable name")
	case Barrier:
		ev.Ref, err = name(v, path, "a barrier name")
	case SemPost, SemWait:
		ev.Ref, err = name(v, path, "a semaphore name")
	case Resume:
		ev.Ref, err = name(v, path, "a task name")
	case Suspend:
		// rt-app suspends a thread on its own task's name whatever the
		// string says; a string naming something else is a
		// misunderstanding that leaves the thread asleep for ever.
		if v.kind != 'n' {
			ev.Ref, err = str(v, path, "the task's own name or \"\"")
			if err == nil && ev.Ref != "" && ev.Ref != taskName {
				err = errorAt(v.pos, path, "suspend names %q, but rt-app suspends a thread on its own task name (%q): resume %q wakes it", ev.Ref, taskName, taskName)
			}
		}
	case Yield:
		// rt-app ignores the value.
	default: // mem, memrun, iorun, fork
		k, _ := keyInfo(string(kind), "event")
		return ev, errorAt(m.pos, path, "refused: %s", k.Why)
	}
	return ev, err
}

// eventObject walks an event's object value; fields maps each allowed field
// to whether it is required.
func eventObject(v *node, path string, fields map[string]bool, f func(string, *node) error) error {
	if v.kind != '{' {
		var names []string
		for _, k := range []string{"ref", "period", "mode", "mutex"} {
			if _, ok := fields[k]; ok {
				names = append(names, k)
			}
		}
		return errorAt(v.pos, path, "want an object {%s}, got %s", strings.Join(names, ", "), v.describe())
	}
	seen := map[string]Pos{}
	for _, fm := range v.members {
		if _, ok := fields[fm.name]; !ok {
			return errorAt(fm.pos, join(path, fm.name), "unknown field")
		}
		if err := unique(seen, path, fm); err != nil {
			return err
		}
		if err := f(fm.name, fm.val); err != nil {
			return err
		}
	}
	for _, k := range []string{"ref", "period", "mutex"} {
		if fields[k] {
			if _, ok := seen[k]; !ok {
				return errorAt(v.pos, path, "missing %q (rt-app would silently use %s)", k, map[string]string{"ref": `"unknown"`, "mutex": `"unknown"`, "period": "0"}[k])
			}
		}
	}
	return nil
}

package rtapp

import "strconv"

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
	// taskgroup is the cgroup path the task or phase runs in, "" when unset.
	taskgroup string
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
	renamed := workgenNames(n.members)
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
		if renamed[i] != "" {
			d.repeated(p, m, renamed[i])
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
		if s == "" {
			d.note(join(path, m.name), m.pos, "no-op: an empty taskgroup is no taskgroup")
		} else if why := CheckTaskgroup(s); why != "" {
			return nil, errorAt(m.val.pos, join(path, m.name), "%q is not a taskgroup path: %s", s, why)
		}
		b.taskgroup = s
	}
	if err := dlParams(b, n, path, isTask); err != nil {
		return nil, err
	}
	return b, nil
}

// dlParams reads the reservation keys as parse_sched_data does: dl-runtime,
// dl-period (default: the runtime) and dl-deadline (default: the period),
// and at task level the legacy runtime, period and deadline where the dl-
// key is absent or 0 (a task-level "runtime" is also its runtime event).
func dlParams(b *body, n *node, path string, isTask bool) error {
	read := func(dlKey, legacy string) (int64, error) {
		if m, ok := b.props[dlKey]; ok {
			x, err := integer(m.val, join(path, dlKey), "an integer number of µs", 0, MaxDurationUS)
			if err != nil || x != 0 {
				return x, err
			}
		}
		if !isTask {
			return 0, nil
		}
		m, ok := b.props[legacy]
		for _, mm := range n.members {
			if !ok && legacy == "runtime" && mm.name == legacy {
				m, ok = mm, true
			}
		}
		if !ok {
			return 0, nil
		}
		return integer(m.val, join(path, legacy), "an integer number of µs", 0, MaxDurationUS)
	}
	runtime, err := read("dl-runtime", "runtime")
	if err != nil {
		return err
	}
	period, err := read("dl-period", "period")
	if err != nil {
		return err
	}
	deadline, err := read("dl-deadline", "deadline")
	if err != nil {
		return err
	}
	if runtime == 0 && period == 0 && deadline == 0 {
		return nil
	}
	if period == 0 {
		period = runtime
	}
	if deadline == 0 {
		deadline = period
	}
	if b.sched == nil {
		b.sched = &Sched{}
	}
	b.sched.DLRuntime, b.sched.DLPeriod, b.sched.DLDeadline = runtime, period, deadline
	return nil
}

// checkDL refuses a SCHED_DEADLINE reservation sched_setattr refuses
// (__checkparam_dl, with the default sched_dl_period_min and _max: 100 µs
// and 2^22 µs), where rt-app would exit.
func checkDL(s Sched, path string, pos Pos) error {
	if s.Policy != SchedDeadline {
		return nil
	}
	switch {
	case s.DLRuntime < 2:
		return errorAt(pos, path+".dl-runtime", "SCHED_DEADLINE needs a runtime of at least 2 µs (the kernel's minimum is 1024 ns), got %d", s.DLRuntime)
	case s.DLDeadline < s.DLRuntime || s.DLPeriod < s.DLDeadline:
		return errorAt(pos, path, "SCHED_DEADLINE needs runtime <= deadline <= period, got %d, %d, %d µs: sched_setattr refuses it", s.DLRuntime, s.DLDeadline, s.DLPeriod)
	case s.DLPeriod < 100 || s.DLPeriod > 1<<22:
		return errorAt(pos, path+".dl-period", "SCHED_DEADLINE period %d µs is outside the kernel's 100 µs to 4194304 µs (sched_dl_period_min_us, _max_us)", s.DLPeriod)
	}
	return nil
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
		t.Sched.DLRuntime, t.Sched.DLPeriod, t.Sched.DLDeadline = b.sched.DLRuntime, b.sched.DLPeriod, b.sched.DLDeadline
	}
	if !t.Sched.PrioritySet && t.Sched.Policy.RealTime() {
		t.Sched.Priority = 10 // DEFAULT_THREAD_PRIORITY
	}
	if err := checkDL(t.Sched, path, m.pos); err != nil {
		return nil, err
	}
	t.CPUs = b.cpus
	t.Taskgroup = b.taskgroup
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
	renamed := workgenNames(pv.members)
	for i, pm := range pv.members {
		ppath := join(pp, pm.name)
		if renamed[i] != "" {
			d.repeated(ppath, pm, renamed[i])
		}
		pb, err := d.body(ppath, pm.val, false, t.Name, cur)
		if err != nil {
			return nil, err
		}
		if len(pb.events) == 0 {
			return nil, errorAt(pm.pos, ppath, "no events: rt-app refuses a phase without events")
		}
		ph := &Phase{Name: pm.name, Pos: pm.pos, Loop: 1, CPUs: pb.cpus, Sched: pb.sched, Events: pb.events, Taskgroup: pb.taskgroup}
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

// workgenNames gives, by member index, the name workgen (doc/workgen's
// check_unikid_json) renames a repeated key to, "" for a key it keeps. Its
// counter is per object and starts at 1: a repeated key becomes key+counter,
// the counter growing while that name is taken, so "run", "run", "run" are
// run, run1, run2, and a "sleep" repeated after them becomes sleep2.
func workgenNames(members []member) []string {
	out := make([]string, len(members))
	taken := map[string]bool{}
	id := 1
	for i, m := range members {
		name := m.name
		if taken[name] {
			name = m.name + strconv.Itoa(id)
			for taken[name] {
				id++
				name = m.name + strconv.Itoa(id)
			}
			out[i] = name
		}
		taken[name] = true
	}
	return out
}

// repeated notes a repeated key that is kept, in its place, as workgen
// keeps it (renamed): rt-app reading the file itself would keep only the
// key's last value (json-c), so the two run different things.
func (d *decoder) repeated(path string, m member, as string) {
	d.note(path, m.pos, "%s (as %q); rt-app alone keeps only the last %q: number the keys so that both run the same", RepeatedKeyNote, as, m.name)
}

// RepeatedKeyNote begins the Note of every repeated key.
const RepeatedKeyNote = "repeated key kept as workgen keeps it"

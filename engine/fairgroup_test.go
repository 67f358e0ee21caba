package engine

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// runGroups runs the rt-app tasks (the inside of "tasks") under the linux
// policy with the task groups' settings, for ms on vcpus CPUs.
func runGroups(t *testing.T, tasks string, groups []TaskGroup, vcpus int, ms int64, seed uint64) Results {
	t.Helper()
	sc := rtappScenario(`{"tasks": {` + tasks + `}}`)
	sc.Sched.Policy = "linux"
	sc.Sched.Groups = groups
	sc.Machine.VCPUs = vcpus
	sc.DurationMs = ms
	sc.Seed = seed
	s, err := NewSim(sc)
	if err != nil {
		t.Fatal(err)
	}
	s.SetVisual(false)
	return s.Run()
}

func groupRes(t *testing.T, r Results, path string) TaskGroupResult {
	t.Helper()
	for _, g := range r.TaskGroups {
		if g.Path == path {
			return g
		}
	}
	t.Fatalf("no task group %q in %+v", path, r.TaskGroups)
	return TaskGroupResult{}
}

// hog is an rt-app task pinned to CPU 0 that runs 100 µs passes forever.
func hog(name, group string, instances int) string {
	return `"` + name + `": {"instance": ` + strconv.Itoa(instances) + `, "cpus": [0], "taskgroup": "` + group + `", "loop": -1, "run": 100}`
}

// TestTaskGroupShares: on one CPU, CPU time is shared between the entities
// of each level by weight (a group's entity weighs its cpu.weight as a
// nice-0 load), then within a group between its own: each case's ratio of
// one task's loop passes to another's is what the hierarchy's weights give.
func TestTaskGroupShares(t *testing.T) {
	for _, tc := range []struct {
		name   string
		tasks  []string
		groups []TaskGroup
		a, b   string
		want   float64 // a's passes per thread over b's
	}{
		// /a and /b get half each: /a's one task three times each of /b's three.
		{"equal groups, 1 task against 3", []string{hog("a", "/a", 1), hog("b", "/b", 3)}, nil, "a", "b", 3},
		// cpu.weight 300 against 100: 3:1.
		{"weights 300:100", []string{hog("a", "/a", 1), hog("b", "/b", 1)}, []TaskGroup{{Path: "/a", Weight: 300}}, "a", "b", 3},
		// /b's half against /a/x's and /a/y's quarters.
		{"nested groups", []string{hog("b", "/b", 1), hog("x", "/a/x", 1), hog("y", "/a/y", 1)}, nil, "b", "x", 2},
		// A task in the root weighs as much as a group of nice-0 tasks.
		{"root task against a group of two", []string{hog("r", "", 1), hog("g", "/g", 2)}, nil, "r", "g", 2},
		// Nice inside a group splits only the group's share.
		{"nice within a group", []string{`"n0": {"cpus": [0], "taskgroup": "/a", "loop": -1, "run": 100}`,
			`"n5": {"cpus": [0], "taskgroup": "/a", "priority": 5, "loop": -1, "run": 100}`, hog("b", "/b", 1)}, nil, "n0", "n5", 1024.0 / 335},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runGroups(t, strings.Join(tc.tasks, ","), tc.groups, 1, 4000, 1)
			a, b := rtTaskResOf(t, r, tc.a), rtTaskResOf(t, r, tc.b)
			got := float64(a.Loops) / float64(a.Threads) / (float64(b.Loops) / float64(b.Threads))
			if math.Abs(got/tc.want-1) > 0.05 {
				t.Errorf("%s:%s passes per thread = %.3f, want %.3f", tc.a, tc.b, got, tc.want)
			}
		})
	}
}

// TestTaskGroupUsage: cpu.stat's usage counts a group's own tasks and those
// of the groups below it, and adds up to the CPU the tasks ran.
func TestTaskGroupUsage(t *testing.T) {
	r := runGroups(t, strings.Join([]string{hog("b", "/b", 1), hog("x", "/a/x", 1), hog("y", "/a/y", 1)}, ","), nil, 1, 2000, 1)
	a, x, y, b := groupRes(t, r, "/a"), groupRes(t, r, "/a/x"), groupRes(t, r, "/a/y"), groupRes(t, r, "/b")
	if math.Abs(a.CPUMs-(x.CPUMs+y.CPUMs)) > 1e-6 {
		t.Errorf("/a used %.3f ms, its children %.3f + %.3f", a.CPUMs, x.CPUMs, y.CPUMs)
	}
	if total := a.CPUFrac + b.CPUFrac; total < 0.98 || total > 1.0001 {
		t.Errorf("the groups used %.4f of the one CPU, want nearly all", total)
	}
}

// TestTaskGroupCPUMax: a group with cpu.max runs its quota per period on
// all CPUs together, and cpu.stat counts the periods it was throttled in.
func TestTaskGroupCPUMax(t *testing.T) {
	for _, tc := range []struct {
		name          string
		quota, period int64
		threads, cpus int
		want          float64 // CPUs the group uses
	}{
		{"a fifth of one CPU", 20_000, 100_000, 1, 1, 0.2},
		{"half a CPU for two threads on two CPUs", 50_000, 100_000, 2, 2, 0.5},
		{"a quota above the period: 1.5 CPUs of 2", 150_000, 100_000, 2, 2, 1.5},
		{"a short period", 5_000, 10_000, 2, 2, 0.5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			task := `"q": {"instance": ` + strconv.Itoa(tc.threads) + `, "taskgroup": "/q", "loop": -1, "run": 100}`
			const ms = 3000
			r := runGroups(t, task, []TaskGroup{{Path: "/q", MaxUs: tc.quota, PeriodUs: tc.period}}, tc.cpus, ms, 1)
			g := groupRes(t, r, "/q")
			if math.Abs(g.CPUFrac/tc.want-1) > 0.03 {
				t.Errorf("the group used %.3f CPUs, want %.3f (its quota over its period)", g.CPUFrac, tc.want)
			}
			periods := ms * 1000 / tc.period
			if g.NrPeriods < periods-2 || g.NrThrottled < periods-2 || g.NrThrottled > g.NrPeriods {
				t.Errorf("%d periods, %d throttled; want about %d of each", g.NrPeriods, g.NrThrottled, periods)
			}
			if g.ThrottledMs <= 0 {
				t.Errorf("throttled for %.1f ms", g.ThrottledMs)
			}
		})
	}
}

// TestTaskGroupCPUMaxLeavesRest: a throttled group's CPU goes to the
// others; a group under its quota is never throttled.
func TestTaskGroupCPUMaxLeavesRest(t *testing.T) {
	tasks := hog("capped", "/capped", 1) + "," + hog("free", "/free", 1) + `, "light": {"cpus": [0], "taskgroup": "/light", "loop": -1, "run": 1000, "sleep": 9000}`
	r := runGroups(t, tasks, []TaskGroup{{Path: "/capped", MaxUs: 10_000}, {Path: "/light", MaxUs: 50_000}}, 1, 3000, 1)
	capped, free, light := groupRes(t, r, "/capped"), groupRes(t, r, "/free"), groupRes(t, r, "/light")
	if math.Abs(capped.CPUFrac-0.1) > 0.005 {
		t.Errorf("the capped group used %.3f CPUs, want its 0.1", capped.CPUFrac)
	}
	if want := 1 - capped.CPUFrac - light.CPUFrac; math.Abs(free.CPUFrac-want) > 0.02 {
		t.Errorf("the free group used %.3f CPUs, want the rest, %.3f", free.CPUFrac, want)
	}
	if light.NrThrottled != 0 {
		t.Errorf("the light group (10%% against a 50%% quota) was throttled in %d periods", light.NrThrottled)
	}
}

// TestTaskGroupQueuesConsistent steps runs with nested groups, sleepers,
// yields, a real-time task, nice and affinity changes, tasks moving between
// groups, and cpu.max quotas from loose to tight, and checks every queue at
// every step: its sums are its tree's and delayed entities', its tree is in
// deadline order, a group's entity is where its flags say, and every queued
// task is in one tree. Each group with a quota uses no more than it.
func TestTaskGroupQueuesConsistent(t *testing.T) {
	for _, tight := range []int64{1, 2, 3, 6} {
		sc := rtappScenario(`{"tasks": {
			"w": {"instance": 4, "taskgroup": "/web/front", "loop": -1, "run": 300, "sleep": 400},
			"b": {"instance": 2, "taskgroup": "/web/back", "priority": 3, "loop": -1, "run": 2000, "sleep": 100},
			"batch": {"instance": 3, "taskgroup": "/batch", "loop": -1, "run": 5000},
			"rt": {"policy": "SCHED_FIFO", "priority": 10, "taskgroup": "/batch", "loop": -1, "run": 200, "sleep": 3000},
			"r": {"instance": 2, "loop": -1, "run": 700, "sleep": 900},
			"y": {"taskgroup": "/web/front", "loop": -1, "run": 50, "yield": 0},
			"m": {"instance": 2, "loop": -1, "phases": {
				"p1": {"taskgroup": "/batch", "run": 500, "sleep": 100},
				"p2": {"taskgroup": "/web", "run": 400, "priority": 4},
				"p3": {"taskgroup": "/", "run": 300, "sleep": 50, "cpus": [1]},
				"p4": {"taskgroup": "/web/back", "run": 300, "cpus": [0, 1, 2]}}}}}`)
		sc.Sched.Policy = "linux"
		sc.Sched.Groups = []TaskGroup{{Path: "/batch", Weight: 50, MaxUs: 5_000, PeriodUs: 20_000},
			{Path: "/web", Weight: 400, MaxUs: 5_000 + 2_000*tight, PeriodUs: 10_000}, {Path: "/web/front", MaxUs: 3_000 * tight}}
		sc.Machine.VCPUs = 3
		sc.DurationMs = 600
		s, err := NewSim(sc)
		if err != nil {
			t.Fatal(err)
		}
		s.SetVisual(false)
		for s.Step() {
			checkGroupQueues(t, s)
		}
		if len(s.groups) != 4 {
			t.Fatalf("%d task groups, want /web, /web/front, /web/back, /batch", len(s.groups))
		}
		r := s.Results()
		if rtTaskResOf(t, r, "m").Loops < 10 {
			t.Fatalf("m did not move between the groups: %+v", r.RTApp.Tasks)
		}
		for _, spec := range sc.Sched.Groups {
			g := groupRes(t, r, spec.Path)
			tg := s.groups[slices.IndexFunc(s.groups, func(tg *taskGroup) bool { return tg.path == spec.Path })]
			// The pool gave out at most a quota at the start and one per
			// period since; a queue that ran past its runtime before its
			// next reschedule point (a tick at most) owes the overrun,
			// repaid from the next period (runtime_remaining below 0).
			var owed int64
			for _, q := range tg.rqs {
				if d := -q.grq.runtime; d > 0 {
					owed += d
					if d > s.tickNs {
						t.Errorf("quota %d: group %s's queue on CPU %d owes %d ns, more than a tick", tight, spec.Path, q.grq.cpu, d)
					}
				}
			}
			if given := tg.quotaNs * (1 + tg.nrPeriods); g.NrThrottled == 0 || tg.usageNs > given+owed {
				t.Errorf("quota %d: group %s used %d ns against %d ns its cpu.max %d/%d gave out and %d ns its queues owe, throttled in %d periods",
					tight, spec.Path, tg.usageNs, given, spec.MaxUs, cmp.Or(spec.PeriodUs, 100_000), owed, g.NrThrottled)
			}
		}
	}
}

func checkGroupQueues(t *testing.T, s *Sim) {
	t.Helper()
	for _, c := range s.cpus {
		queues := []*fairRQ{&c.cfs}
		for _, g := range s.groups {
			queues = append(queues, g.rqs[c.id])
		}
		inTree := 0
		for _, q := range queues {
			want := fairRQ{zero: q.zero}
			for i, e := range q.queued {
				want.add(e)
				if i > 0 && q.queued[i-1].deadline > e.deadline {
					t.Fatalf("at %d ns CPU %d: a tree out of deadline order", s.now, c.id)
				}
				if e.owner != nil {
					inTree++
					if e.owner.state != ThreadQueued || e.owner.cpu != c.id || taskRQ(c, e.owner) != q {
						t.Fatalf("at %d ns CPU %d: task %d in a tree is %v on CPU %d", s.now, c.id, e.owner.id, e.owner.state, e.owner.cpu)
					}
				} else if !e.onRQ || e.isCurr || e.delayed {
					t.Fatalf("at %d ns CPU %d: group %s's entity in a tree is onRQ %v curr %v delayed %v", s.now, c.id, e.my.grq.tg.path, e.onRQ, e.isCurr, e.delayed)
				}
			}
			for _, e := range q.delayed {
				want.add(e)
			}
			if want.sumW != q.sumW || want.sumWV != q.sumWV {
				path := "/ (root)"
				if q.grq != nil {
					path = q.grq.tg.path
				}
				t.Fatalf("at %d ns CPU %d, queue %s: sums (%d, %d), the entities add up to (%d, %d)\n%s", s.now, c.id, path, q.sumW, q.sumWV, want.sumW, want.sumWV, dumpQ(s, c))
			}
			if g := q.grq; g != nil {
				running := currAt(c, g.parent) == g.se
				if g.se.isCurr != running {
					t.Fatalf("at %d ns CPU %d: group %s's entity isCurr %v, running below it %v", s.now, c.id, g.tg.path, g.se.isCurr, running)
				}
				busy := q.waiting() > 0 || currAt(c, q) != nil
				if g.se.onRQ != (busy && !g.throttled) && !g.se.delayed {
					t.Fatalf("at %d ns CPU %d: group %s's entity onRQ %v with %d waiting, throttled %v", s.now, c.id, g.tg.path, g.se.onRQ, q.waiting(), g.throttled)
				}
			}
		}
		fairQueued := 0
		for _, x := range c.rq {
			if x.class == classFair {
				fairQueued++
			}
		}
		if inTree != fairQueued {
			t.Fatalf("at %d ns CPU %d: %d tasks in trees, %d fair tasks queued", s.now, c.id, inTree, fairQueued)
		}
	}
}

// TestTaskGroupRefusals: a taskgroup under OSv, and sched.groups entries
// cgroup v2 would not take, are refused naming the field.
func TestTaskGroupRefusals(t *testing.T) {
	for _, tc := range []struct {
		name   string
		policy string
		groups []TaskGroup
		want   string
	}{
		{"osv has no cgroups", "osv", nil, "tasks.a.taskgroup"},
		{"relative path", "linux", []TaskGroup{{Path: "a"}}, "sched.groups[0].path"},
		{"the root", "linux", []TaskGroup{{Path: "/"}}, "sched.groups[0].path"},
		{"twice", "linux", []TaskGroup{{Path: "/a"}, {Path: "/a", Weight: 5}}, "sched.groups[1].path"},
		{"weight", "linux", []TaskGroup{{Path: "/a", Weight: 10_001}}, "sched.groups[0].weight"},
		{"quota", "linux", []TaskGroup{{Path: "/a", MaxUs: 999}}, "sched.groups[0].max_us"},
		{"period", "linux", []TaskGroup{{Path: "/a", PeriodUs: 2_000_000}}, "sched.groups[0].period_us"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := rtappScenario(`{"tasks": {"a": {"taskgroup": "/a", "loop": -1, "run": 100}}}`)
			sc.Sched.Policy = tc.policy
			sc.Sched.Groups = tc.groups
			_, err := NewSim(sc)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error naming %s", err, tc.want)
			}
		})
	}
}

// TestTaskGroupsHaveNoCheckpoint: a run with task groups refuses a
// checkpoint with the reason, and runs on.
func TestTaskGroupsHaveNoCheckpoint(t *testing.T) {
	sc := rtappScenario(`{"tasks": {"a": {"taskgroup": "/a", "loop": -1, "run": 100}}}`)
	sc.Sched.Policy = "linux"
	s, err := NewSim(sc)
	if err != nil {
		t.Fatal(err)
	}
	s.RunUntil(1_000_000)
	if _, err := s.AppendCheckpoint(nil, CheckpointOptions{}); err != ErrCheckpointTaskGroups {
		t.Fatalf("checkpoint: %v, want ErrCheckpointTaskGroups", err)
	}
	if r := s.Run(); groupRes(t, r, "/a").CPUFrac < 0.2 {
		t.Errorf("the run did not go on: %+v", r.TaskGroups)
	}
}

// dumpQ describes c's queues, for a failure message.
func dumpQ(s *Sim, c *cpu) string {
	out := ""
	qs := []*fairRQ{&c.cfs}
	for _, g := range s.groups {
		qs = append(qs, g.rqs[c.id])
	}
	name := func(e *fairEntity) string {
		if e.owner != nil {
			return fmt.Sprintf("task%d", e.owner.id)
		}
		return e.my.grq.tg.path
	}
	for _, q := range qs {
		p := "/"
		if q.grq != nil {
			p = fmt.Sprintf("%s thr=%v se{w=%d onRQ=%v cur=%v del=%v rt=%d}", q.grq.tg.path, q.grq.throttled, q.grq.se.weight, q.grq.se.onRQ, q.grq.se.isCurr, q.grq.se.delayed, q.grq.runtime)
		}
		out += fmt.Sprintf("  Q %s sumW=%d tree:", p, q.sumW)
		for _, e := range q.queued {
			out += fmt.Sprintf(" %s(w%d)", name(e), e.weight)
		}
		out += " delayed:"
		for _, e := range q.delayed {
			out += fmt.Sprintf(" %s(w%d)", name(e), e.weight)
		}
		out += "\n"
	}
	if c.cur != nil {
		g := "/"
		if c.cur.fair.grp != nil {
			g = c.cur.fair.grp.path
		}
		out += fmt.Sprintf("  cur task%d class %d grp %s\n", c.cur.id, c.cur.class, g)
	}
	return out
}

// TestTaskGroupSettingsInTheDescription: the rt-app description's root
// "taskgroups" sets its groups' cpu.weight and cpu.max (rt-app ignores the
// key), and sched.groups overrides it.
func TestTaskGroupSettingsInTheDescription(t *testing.T) {
	desc := `{"taskgroups": {"/a": {"cpu.weight": 300}, "/b": {"cpu.max": "10000 100000"}},
		"tasks": {` + hog("a", "/a", 1) + `, ` + hog("b", "/b", 1) + `, ` + hog("c", "/c", 1) + `}}`
	for _, tc := range []struct {
		name   string
		groups []TaskGroup
		want   map[string]float64
	}{
		{"the description's", nil, map[string]float64{"/a": 0.675, "/b": 0.1, "/c": 0.225}},
		{"sched.groups overrides", []TaskGroup{{Path: "/a", Weight: 100}}, map[string]float64{"/a": 0.45, "/b": 0.1, "/c": 0.45}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := rtappScenario(desc)
			sc.Sched.Policy = "linux"
			sc.Sched.Groups = tc.groups
			sc.Machine.VCPUs = 1
			sc.DurationMs = 3000
			s, err := NewSim(sc)
			if err != nil {
				t.Fatal(err)
			}
			s.SetVisual(false)
			r := s.Run()
			for path, want := range tc.want {
				if got := groupRes(t, r, path).CPUFrac; math.Abs(got-want) > 0.02 {
					t.Errorf("group %s used %.3f CPUs, want %.3f", path, got, want)
				}
			}
		})
	}
}

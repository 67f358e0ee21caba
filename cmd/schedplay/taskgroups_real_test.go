package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"schedplay/engine"
)

// Task groups against the kernel they model (docs/validation.md, Task groups
// against Linux 6.18). rt-app 1.0 ignores its taskgroup key, so the real side
// runs one rt-app per group, each put into its cgroup of the cgroup-v1 cpu
// controller this machine mounts (/sys/fs/cgroup/cpu: cpu.shares is tg->shares,
// cgroup v2's cpu.weight times 1024/100; cpu.cfs_quota_us and
// cpu.cfs_period_us are cpu.max). schedplay runs the same threads in one
// description with taskgroup keys and sched.groups. What is compared follows
// from the groups' weights and quotas alone: how pinned threads share CPU 0
// (passes per thread, each pass the same work), and a capped group's CPU (the
// time the kernel charged its threads: chargedShare).

// cpuCgroupRoot is where the cgroup-v1 cpu controller is mounted.
const cpuCgroupRoot = "/sys/fs/cgroup/cpu"

// tgGroup is one task group of a case: its threads (pinned to CPU 0 unless
// spread), weight (cgroup v2's) and cpu.max quota (0: none).
type tgGroup struct {
	path    string
	threads int
	weight  int64
	quotaUs int64
	spread  bool
}

// tgCase compares num's passes per thread with den's, or with capped set, the
// CPUs capped's threads used.
type tgCase struct {
	name     string
	groups   []tgGroup
	num, den string
	capped   string
	rule     string
	want     float64
	tol      float64
}

func taskGroupCases() []tgCase {
	return []tgCase{
		{name: "1 thread against 3, equal groups", groups: []tgGroup{{path: "/sp-a", threads: 1}, {path: "/sp-b", threads: 3}},
			num: "/sp-a", den: "/sp-b", rule: "each group half the CPU, shared by its threads", want: 3, tol: 0.10},
		{name: "cpu.weight 300 against 100", groups: []tgGroup{{path: "/sp-a", threads: 1, weight: 300}, {path: "/sp-b", threads: 1}},
			num: "/sp-a", den: "/sp-b", rule: "shares 3072 : 1024", want: 3, tol: 0.10},
		{name: "a group against two nested ones", groups: []tgGroup{{path: "/sp-b", threads: 1}, {path: "/sp-n/x", threads: 1}, {path: "/sp-n/y", threads: 1}},
			num: "/sp-b", den: "/sp-n/x", rule: "/sp-n's half split between x and y", want: 2, tol: 0.10},
		// A capped group weighs cpu.weight 10000, so that other work on the
		// machine (CI runs packages in parallel) does not keep it below its
		// quota: what is measured is the quota's cap.
		{name: "cpu.max 20 ms of 100 ms, one thread", groups: []tgGroup{{path: "/sp-q", threads: 1, weight: 10_000, quotaUs: 20_000}},
			capped: "/sp-q", rule: "quota / period", want: 0.2, tol: 0.05},
		{name: "cpu.max 50 ms of 100 ms, two threads on two CPUs", groups: []tgGroup{{path: "/sp-q", threads: 2, weight: 10_000, quotaUs: 50_000, spread: true}},
			capped: "/sp-q", rule: "quota / period, over all CPUs", want: 0.5, tol: 0.05},
	}
}

// taskName is the rt-app task of a group's threads.
func taskName(path string) string { return "g" + strings.ReplaceAll(path, "/", "_") }

func (g tgGroup) taskKeys() string {
	cpus := `"cpus": [0], `
	if g.spread {
		cpus = ""
	}
	return fmt.Sprintf(`%q: {"instance": %d, %s"loop": -1, "run": 1000`, taskName(g.path), g.threads, cpus)
}

const tgDurS = 3

func TestTaskGroupsAgainstRealKernel(t *testing.T) {
	bin := realRTApp(t)
	if os.Geteuid() != 0 {
		t.Skip("needs root: making cgroups")
	}
	if _, err := os.Stat(filepath.Join(cpuCgroupRoot, "cpu.shares")); err != nil {
		t.Skipf("no cgroup-v1 cpu controller at %s: %v", cpuCgroupRoot, err)
	}
	var table []string
	for _, c := range taskGroupCases() {
		t.Run(c.name, func(t *testing.T) {
			var real []float64
			for run := range classRuns {
				real = append(real, realGroupRun(t, bin, c, run))
			}
			sim := simGroupRun(t, c)
			slices.Sort(real)
			med := real[len(real)/2]
			lo, hi := c.want*(1-c.tol), c.want*(1+c.tol)
			table = append(table, fmt.Sprintf("| %s | %s: %.2f | %.3f (%.3f-%.3f) | %.3f | %+.1f%% |", c.name, c.rule, c.want, med, real[0], real[len(real)-1], sim, 100*(sim/med-1)))
			for i, r := range real {
				if r < lo || r > hi {
					t.Errorf("the real kernel gave %.3f, the rule %.3f-%.3f (run %d of %v)", r, lo, hi, i, real)
				}
			}
			if sim < lo || sim > hi {
				t.Errorf("schedplay gave %.3f, the rule %.3f-%.3f", sim, lo, hi)
			}
		})
	}
	t.Logf("docs/validation.md rows (real: median of %d runs, range):\n%s", classRuns, strings.Join(table, "\n"))
}

// realGroupRun makes c's cgroups, runs one rt-app per group inside its
// cgroup, and measures c.
func realGroupRun(t *testing.T, bin string, c tgCase, run int) float64 {
	t.Helper()
	dir := filepath.Join(t.TempDir(), fmt.Sprint(run))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var cmds []*exec.Cmd
	for _, g := range c.groups {
		cg := makeCgroup(t, g)
		file := filepath.Join(dir, taskName(g.path)+".json")
		desc := fmt.Sprintf(`{"global": {"duration": %d, "logdir": %q, "log_basename": "x", "calibration": 100}, "tasks": {%s}}}`, tgDurS, dir, g.taskKeys())
		if err := os.WriteFile(file, []byte(desc), 0o644); err != nil {
			t.Fatal(err)
		}
		// The shell joins the cgroup, then becomes rt-app: every thread
		// rt-app starts is in it.
		cmd := exec.Command("sh", "-c", `echo $$ > "$1/cgroup.procs" && exec "$2" "$3"`, "sh", cg, bin, file)
		cmd.Dir = dir
		cmd.WaitDelay = 10 * time.Second
		cmds = append(cmds, cmd)
	}
	if c.capped != "" {
		// The CPU time charged to the group's threads, which is what its
		// quota budgets (chargedShare says why not their logs).
		return chargedShare(t, cmds[0], 0.5, tgDurS-0.5)
	}
	for _, cmd := range cmds {
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("rt-app in its cgroup: %v", err)
		}
	}
	// Every process ran the same span, started within milliseconds: count
	// the passes of the span all of them ran.
	passes := byTask(countPassesWithin(t, dir, "x-", (tgDurS*1000-200)*time.Millisecond))
	return perThread(t, c, passes)
}

// perThread is num's passes per thread over den's.
func perThread(t *testing.T, c tgCase, passes map[string]int) float64 {
	t.Helper()
	threads := map[string]int{}
	for _, g := range c.groups {
		threads[g.path] = g.threads
	}
	num := float64(passes[taskName(c.num)]) / float64(threads[c.num])
	den := float64(passes[taskName(c.den)]) / float64(threads[c.den])
	if num == 0 || den == 0 {
		t.Fatalf("passes %v: a side made none", passes)
	}
	return num / den
}

// makeCgroup makes g's cgroup (and its parents) with g's settings, removed
// when the test ends.
func makeCgroup(t *testing.T, g tgGroup) string {
	t.Helper()
	dir := cpuCgroupRoot
	for _, name := range strings.Split(strings.TrimPrefix(g.path, "/"), "/") {
		dir = filepath.Join(dir, name)
		if err := os.Mkdir(dir, 0o755); err != nil && !os.IsExist(err) {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Remove(dir) })
	}
	write := func(file string, v int64) {
		if err := os.WriteFile(filepath.Join(dir, file), []byte(strconv.FormatInt(v, 10)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	weight := max(g.weight, 100)
	write("cpu.shares", (weight*1024+50)/100)
	write("cpu.cfs_period_us", 100_000)
	quota := int64(-1)
	if g.quotaUs > 0 {
		quota = g.quotaUs
	}
	write("cpu.cfs_quota_us", quota)
	return dir
}

// simGroupRun runs c in schedplay: one description, each group's threads
// with their taskgroup, the groups' settings in sched.groups.
func simGroupRun(t *testing.T, c tgCase) float64 {
	t.Helper()
	var tasks []string
	var groups []engine.TaskGroup
	for _, g := range c.groups {
		tasks = append(tasks, g.taskKeys()+fmt.Sprintf(`, "taskgroup": %q}`, g.path))
		groups = append(groups, engine.TaskGroup{Path: g.path, Weight: g.weight, MaxUs: g.quotaUs})
	}
	sc := engine.DefaultScenario()
	sc.Workload.Kind = engine.WorkloadRTApp
	sc.Workload.RTApp = `{"tasks": {` + strings.Join(tasks, ", ") + `}}`
	sc.Sched.Policy = "linux"
	sc.Sched.Groups = groups
	sc.Machine.VCPUs = runtime.NumCPU()
	sc.DurationMs, sc.WarmupMs = tgDurS*1000, 0
	r, err := engine.Run(sc)
	if err != nil {
		t.Fatal(err)
	}
	if c.capped != "" {
		for _, g := range r.TaskGroups {
			if g.Path == c.capped {
				return g.CPUFrac
			}
		}
		t.Fatalf("no group %s in %+v", c.capped, r.TaskGroups)
	}
	passes := map[string]int{}
	for _, k := range r.RTApp.Tasks {
		passes[k.Name] = int(k.Loops)
	}
	return perThread(t, c, passes)
}

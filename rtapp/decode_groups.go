package rtapp

import (
	"fmt"
	"strconv"
	"strings"
)

// Task groups: the taskgroup paths tasks and phases name, and the root's
// "taskgroups" settings (a schedplay extension rt-app ignores).

// MaxTaskgroupDepth bounds how deep a taskgroup path goes.
const MaxTaskgroupDepth = 8

// CheckTaskgroup says why s is not a taskgroup path rt-app could create (an
// absolute path of cgroup names), or "".
func CheckTaskgroup(s string) string {
	if s == "" || s[0] != '/' {
		return "it must start with / (the root task group)"
	}
	if s == "/" {
		return ""
	}
	names := strings.Split(s[1:], "/")
	if len(names) > MaxTaskgroupDepth {
		return fmt.Sprintf("deeper than %d groups", MaxTaskgroupDepth)
	}
	for _, n := range names {
		switch {
		case n == "" || n == "." || n == "..":
			return "a group name is empty, . or .."
		case len(n) > 64:
			return "a group name is longer than 64 bytes"
		case strings.ContainsFunc(n, func(r rune) bool {
			return !(r == '_' || r == '-' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
		}):
			return "a group name has a character other than letters, digits, _, - and ."
		}
	}
	return ""
}

// TaskGroupSettings is one entry of the root's "taskgroups" object: a task
// group's cgroup v2 CPU controller files, for the groups taskgroup keys
// name (a schedplay extension: rt-app ignores a root key it does not read,
// and leaves the groups' settings to whoever made them).
type TaskGroupSettings struct {
	Path string
	Pos  Pos
	// Weight is cpu.weight (0: unset); MaxUs and PeriodUs are cpu.max's
	// quota and period in µs (MaxUs 0: "max"; PeriodUs 0: unset).
	Weight, MaxUs, PeriodUs int64
}

// taskgroups reads the root's "taskgroups": {"/path": {"cpu.weight": W,
// "cpu.max": "QUOTA PERIOD"}}, with cgroup v2's ranges.
func (d *decoder) taskgroups(n *node) error {
	const path = "taskgroups"
	if n.kind != '{' {
		return errorAt(n.pos, path, "want an object of task groups by path, got %s", n.describe())
	}
	seen := map[string]Pos{}
	for _, m := range n.members {
		p := join(path, m.name)
		if why := CheckTaskgroup(m.name); why != "" || m.name == "/" {
			if why == "" {
				why = "the root group has no cpu.weight or cpu.max to set"
			}
			return errorAt(m.pos, p, "%q is not a taskgroup path: %s", m.name, why)
		}
		if err := unique(seen, path, m); err != nil {
			return err
		}
		if m.val.kind != '{' {
			return errorAt(m.val.pos, p, "want an object of cgroup files (cpu.weight, cpu.max), got %s", m.val.describe())
		}
		g := TaskGroupSettings{Path: m.name, Pos: m.pos}
		for _, f := range m.val.members {
			fp := join(p, f.name)
			switch f.name {
			case "cpu.weight":
				w, err := integer(f.val, fp, "a cgroup weight", 1, 10_000)
				if err != nil {
					return err
				}
				g.Weight = w
			case "cpu.max":
				s, err := str(f.val, fp, `"QUOTA PERIOD" in µs, or "max" or "max PERIOD"`)
				if err != nil {
					return err
				}
				if g.MaxUs, g.PeriodUs, err = cpuMax(s); err != nil {
					return errorAt(f.val.pos, fp, "%q: %v", s, err)
				}
			default:
				return errorAt(f.pos, fp, "refused: a task group here takes cpu.weight and cpu.max")
			}
		}
		d.desc.TaskGroups = append(d.desc.TaskGroups, g)
	}
	return nil
}

// cpuMax reads cgroup v2's cpu.max: "QUOTA PERIOD", "max PERIOD" or "max",
// the quota 1000 µs or more, the period 1000 to 1000000 µs.
func cpuMax(s string) (quota, period int64, err error) {
	f := strings.Fields(s)
	if len(f) == 0 || len(f) > 2 {
		return 0, 0, fmt.Errorf(`want "QUOTA PERIOD", "max PERIOD" or "max"`)
	}
	if f[0] != "max" {
		if quota, err = strconv.ParseInt(f[0], 10, 64); err != nil || quota < 1000 || quota > 1<<40 {
			return 0, 0, fmt.Errorf("the quota is a whole number of µs, 1000 or more, or max")
		}
	}
	if len(f) == 2 {
		if period, err = strconv.ParseInt(f[1], 10, 64); err != nil || period < 1000 || period > 1_000_000 {
			return 0, 0, fmt.Errorf("the period is a whole number of µs from 1000 to 1000000")
		}
	}
	return quota, period, nil
}

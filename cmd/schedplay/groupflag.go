package main

import (
	"fmt"
	"strconv"
	"strings"

	"schedplay/engine"
)

// groupFlags is --group, repeatable: a task group's cpu.weight and cpu.max
// (engine.TaskGroup, the scenario's sched.groups), for rt-app descriptions
// whose taskgroup keys name groups rt-app leaves to whoever made them.
type groupFlags []engine.TaskGroup

func (g *groupFlags) String() string { return fmt.Sprint(*g) }

// Set reads PATH[,weight=W][,max=QUOTA[/PERIOD]] (µs, as cgroup v2's
// cpu.weight and cpu.max: "max=20000/100000").
func (g *groupFlags) Set(v string) error {
	parts := strings.Split(v, ",")
	tg := engine.TaskGroup{Path: parts[0]}
	for _, p := range parts[1:] {
		key, val, ok := strings.Cut(p, "=")
		if !ok {
			return fmt.Errorf("%q: want key=value after the path (weight=300, max=20000/100000)", p)
		}
		num := func(s, what string) (int64, error) {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return 0, fmt.Errorf("%s %q is not a whole number", what, s)
			}
			return n, nil
		}
		var err error
		switch key {
		case "weight":
			tg.Weight, err = num(val, "weight")
		case "max":
			quota, period, hasPeriod := strings.Cut(val, "/")
			if quota != "max" {
				tg.MaxUs, err = num(quota, "max's quota (µs)")
			}
			if err == nil && hasPeriod {
				tg.PeriodUs, err = num(period, "max's period (µs)")
			}
		default:
			return fmt.Errorf("%q: a group takes weight and max", key)
		}
		if err != nil {
			return err
		}
	}
	for i, old := range *g {
		if old.Path == tg.Path {
			(*g)[i] = tg
			return nil
		}
	}
	*g = append(*g, tg)
	return nil
}

// apply puts the groups in sc's sched.groups (replacing an entry of the
// same path) and checks the scenario again.
func (g groupFlags) apply(sc *engine.Scenario) error {
	if len(g) == 0 {
		return nil
	}
	for _, tg := range g {
		i := 0
		for i < len(sc.Sched.Groups) && sc.Sched.Groups[i].Path != tg.Path {
			i++
		}
		if i == len(sc.Sched.Groups) {
			sc.Sched.Groups = append(sc.Sched.Groups, tg)
		} else {
			sc.Sched.Groups[i] = tg
		}
	}
	return sc.Validate()
}

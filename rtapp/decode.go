package rtapp

import (
	"fmt"
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
	cleaned, bare, err := clean(data)
	if err != nil {
		return nil, err
	}
	src := newSource(data)
	root, err := parseTree(src, cleaned, bare)
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
		case "global", "tasks", "resources", "taskgroups":
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
		case "taskgroups":
			if err := d.taskgroups(m.val); err != nil {
				return err
			}
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

// isFloat reports whether s is a JSON number with a fraction or an exponent
// (-?D+(.D+)?([eE][-+]?D+)?, with one of the optional parts): hand-written
// rather than a regexp, which would add half a megabyte to the engine
// workers that link this package.
func isFloat(s string) bool {
	digits := func(i int) int { // the index after the digits from i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i
	}
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	j := digits(i)
	if j == i {
		return false
	}
	frac := false
	if j < len(s) && s[j] == '.' {
		k := digits(j + 1)
		if k == j+1 {
			return false
		}
		j, frac = k, true
	}
	exp := false
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		j++
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		k := digits(j)
		if k == j {
			return false
		}
		j, exp = k, true
	}
	return j == len(s) && (frac || exp)
}

// integer reads a JSON integer within [lo, hi]; what says what it counts
// ("an integer number of µs").
func integer(n *node, path, what string, lo, hi int64) (int64, error) {
	if n.kind != '0' {
		return 0, errorAt(n.pos, path, "want %s, got %s", what, n.describe())
	}
	v, err := strconv.ParseInt(n.str, 10, 64)
	if err != nil {
		if isFloat(n.str) {
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
	case SchedOther, SchedBatch, SchedIdle, SchedFIFO, SchedRR, SchedDeadline:
		return p, nil
	}
	return "", errorAt(n.pos, path, "want one of SCHED_OTHER, SCHED_BATCH, SCHED_IDLE, SCHED_FIFO, SCHED_RR, SCHED_DEADLINE, got %s", n.describe())
}

// --- global ---

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
			// main sleeps the duration only when it is above 0; 0, as
			// -1, waits for the threads (src/rt-app.c).
			x, err = integer(v, p, "a number of seconds (0 or -1: no limit)", -1, MaxDurationS)
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
					num, isCPU := strings.CutPrefix(s, "CPU")
					if !isCPU || num == "" || strings.Trim(num, "0123456789") != "" {
						err = errorAt(v.pos, p, "want ns per loop or \"CPUn\", got %s", v.describe())
					} else if cpu, e := strconv.Atoi(num); e != nil || cpu > MaxCPU {
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
				if err == nil && g.LogSize != "file" && g.LogSize != "disable" && g.LogSize != "auto" {
					err = errorAt(v.pos, p, "want a size in MB or \"file\", \"disable\", \"auto\", got %s", v.describe())
				}
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

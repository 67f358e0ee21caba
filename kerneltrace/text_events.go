package kerneltrace

// The arguments of the sched events in ftrace text: the raw print formats
// (`prev_comm=%s prev_pid=%d ...`, include/trace/events/sched.h), and the
// libtraceevent plugin forms that `trace-cmd report` and perf print by default
// (`prev:pid [prio] S ==> next:pid [prio]`, `comm:pid [prio] CPU:003`).

import (
	"fmt"
	"strconv"
	"strings"
)

// sched returns the decoder of a known event name.
func sched(name string) (func(textLine) (Event, error), bool) {
	switch name {
	case "sched_switch":
		return textSwitch, true
	case "sched_waking", "sched_wakeup":
		return textWaking, true
	case "sched_wakeup_new":
		return textWakeupNew, true
	case "sched_process_fork":
		return textFork, true
	case "task_newtask":
		return textNewtask, true
	case "task_rename":
		return textRename, true
	case "sched_process_exec":
		return textExec, true
	case "sched_process_exit", "sched_process_free":
		return textExit, true
	case "sched_migrate_task":
		return textMigrate, true
	}
	return nil, false
}

func base(l textLine, k Kind) Event {
	return Event{Ts: l.ts, CPU: l.cpu, Kind: k, Pid: l.pid, IRQ: l.irq()}
}

// keyAt finds "key=" at the start of args or after a space; -1 if absent.
func keyAt(args, key string) int {
	for from := 0; ; {
		i := strings.Index(args[from:], key+"=")
		if i < 0 {
			return -1
		}
		i += from
		if i == 0 || args[i-1] == ' ' {
			return i + len(key) + 1
		}
		from = i + 1
	}
}

// str reads a string value that may hold spaces: it runs to " next=" (the key
// the kernel prints after it), or to the end when next is absent.
func str(args, key, next string) (string, error) {
	i := keyAt(args, key)
	if i < 0 {
		return "", fmt.Errorf("no %s=", key)
	}
	rest := args[i:]
	if j := keyAt(rest, next); j >= 0 {
		return strings.TrimSuffix(rest[:j-len(next)-1], " "), nil
	}
	if next == "" {
		return strings.TrimSpace(rest), nil
	}
	// The next key is missing (an older format): the value is one token.
	v, _, _ := strings.Cut(rest, " ")
	return v, nil
}

// token reads a value without spaces.
func token(args, key string) (string, bool) {
	i := keyAt(args, key)
	if i < 0 {
		return "", false
	}
	v, _, _ := strings.Cut(args[i:], " ")
	return v, true
}

// num reads an integer value (decimal, or hex with 0x).
func num(args, key string) (int64, error) {
	v, ok := token(args, key)
	if !ok {
		return 0, fmt.Errorf("no %s=", key)
	}
	n, err := strconv.ParseInt(v, 0, 64)
	if err != nil || n != int64(int32(n)) {
		return 0, fmt.Errorf("%s=%q is not a 32-bit integer", key, v)
	}
	return n, nil
}

// textState reads prev_state: letters (R, R+, S, D, D|K, I, ...) or a number.
func textState(v string) (State, error) {
	if v == "" {
		return 0, fmt.Errorf("prev_state is empty")
	}
	if v[0] >= '0' && v[0] <= '9' {
		n, err := strconv.ParseInt(v, 0, 64)
		if err != nil {
			return 0, fmt.Errorf("prev_state=%q: %v", v, err)
		}
		return stateFromRaw(n, false), nil
	}
	var s State
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case 'R', '|', 'K', 'W', 'N', 'n':
		case '+':
			s |= StatePreempted
		case 'S':
			s |= StateInterruptible
		case 'D':
			s |= StateUninterruptible
		case 'T':
			s |= StateStopped
		case 't':
			s |= StateTraced
		case 'X', 'x':
			s |= StateDead
		case 'Z':
			s |= StateZombie
		case 'P':
			s |= StateParked
		case 'I':
			s |= StateIdle
		default:
			return 0, fmt.Errorf("prev_state=%q: unknown state %q", v, v[i])
		}
	}
	return s, nil
}

func textSwitch(l textLine) (Event, error) {
	e := base(l, KindSwitch)
	a := l.args
	if keyAt(a, "prev_pid") < 0 {
		return plugSwitch(l, e)
	}
	var err error
	if e.PrevComm, err = str(a, "prev_comm", "prev_pid"); err != nil {
		return e, err
	}
	if e.NextComm, err = str(a, "next_comm", "next_pid"); err != nil {
		return e, err
	}
	prev, err := num(a, "prev_pid")
	if err != nil {
		return e, err
	}
	next, err := num(a, "next_pid")
	if err != nil {
		return e, err
	}
	e.PrevPid, e.NextPid = int32(prev), int32(next)
	// Priorities are informative only: a vendor format without them still replays.
	if p, err := num(a, "prev_prio"); err == nil {
		e.PrevPrio = int32(p)
	}
	if p, err := num(a, "next_prio"); err == nil {
		e.NextPrio = int32(p)
	}
	st, ok := token(a, "prev_state")
	if !ok {
		return e, fmt.Errorf("no prev_state=")
	}
	e.PrevState, err = textState(st)
	return e, err
}

// plugTask reads "comm:pid [prio]" from the plugin form.
func plugTask(s string) (comm string, pid, prio int32, rest string, err error) {
	s = strings.TrimSpace(s)
	open := strings.LastIndex(s, " [")
	if open < 0 {
		return "", 0, 0, "", fmt.Errorf("%q: want comm:pid [prio]", s)
	}
	closeAt := strings.IndexByte(s[open:], ']')
	if closeAt < 0 {
		return "", 0, 0, "", fmt.Errorf("%q: want comm:pid [prio]", s)
	}
	pr, err := strconv.Atoi(s[open+2 : open+closeAt])
	if err != nil {
		return "", 0, 0, "", fmt.Errorf("%q: prio: %v", s, err)
	}
	task := s[:open]
	k := strings.LastIndexByte(task, ':')
	if k < 0 || !isDigits(task[k+1:]) {
		return "", 0, 0, "", fmt.Errorf("%q: want comm:pid", task)
	}
	return task[:k], atoi32(task[k+1:]), int32(pr), strings.TrimSpace(s[open+closeAt+1:]), nil
}

// plugSwitch reads "prev:pid [prio] S ==> next:pid [prio]".
func plugSwitch(l textLine, e Event) (Event, error) {
	left, right, ok := strings.Cut(l.args, " ==> ")
	if !ok {
		return e, fmt.Errorf("neither prev_pid= nor ==> in %q", l.args)
	}
	// The state is the last token of the left side, after "[prio]".
	cut := strings.LastIndexByte(left, ']')
	if cut < 0 {
		return e, fmt.Errorf("%q: want prev:pid [prio] state", left)
	}
	var err error
	e.PrevComm, e.PrevPid, e.PrevPrio, _, err = plugTask(left[:cut+1])
	if err != nil {
		return e, err
	}
	if e.PrevState, err = textState(strings.TrimSpace(left[cut+1:])); err != nil {
		return e, err
	}
	e.NextComm, e.NextPid, e.NextPrio, _, err = plugTask(right)
	return e, err
}

// wakee reads the woken or new task: "comm= pid= prio= target_cpu=" or the
// plugin's "comm:pid [prio] [success=1] CPU:003".
func wakee(l textLine, e *Event) error {
	a := l.args
	if keyAt(a, "pid") < 0 {
		end := strings.IndexByte(a, ']')
		if end < 0 {
			return fmt.Errorf("neither pid= nor comm:pid [prio] in %q", a)
		}
		comm, pid, prio, _, err := plugTask(a[:end+1])
		if err != nil {
			return err
		}
		rest := a[end+1:]
		e.Comm, e.Target, e.Prio = comm, pid, prio
		if i := strings.Index(rest, "CPU:"); i >= 0 {
			c, _ := strconv.Atoi(leadingDigits(rest[i+4:]))
			e.TargetCPU = int32(c)
		}
		return nil
	}
	var err error
	if e.Comm, err = str(a, "comm", "pid"); err != nil {
		return err
	}
	n, err := num(a, "pid")
	if err != nil {
		return err
	}
	e.Target = int32(n)
	if n, err := num(a, "prio"); err == nil {
		e.Prio = int32(n)
	}
	if n, err := num(a, "target_cpu"); err == nil {
		e.TargetCPU = int32(n)
	}
	return nil
}

func textWaking(l textLine) (Event, error) {
	e := base(l, KindWaking)
	e.WakeupOnly = l.event == "sched_wakeup"
	return e, wakee(l, &e)
}

func textWakeupNew(l textLine) (Event, error) {
	e := base(l, KindNew)
	return e, wakee(l, &e)
}

// textFork reads "comm=parent pid=N child_comm=X child_pid=M".
func textFork(l textLine) (Event, error) {
	e := base(l, KindNew)
	n, err := num(l.args, "child_pid")
	if err != nil {
		return e, err
	}
	e.Target = int32(n)
	e.Comm, err = str(l.args, "child_comm", "child_pid")
	if p, err2 := num(l.args, "pid"); err2 == nil {
		e.Pid = int32(p)
	}
	return e, err
}

// textNewtask reads "pid=N comm=X clone_flags=hex oom_score_adj=N".
func textNewtask(l textLine) (Event, error) {
	e := base(l, KindNew)
	n, err := num(l.args, "pid")
	if err != nil {
		return e, err
	}
	e.Target = int32(n)
	if e.Comm, err = str(l.args, "comm", "clone_flags"); err != nil {
		return e, err
	}
	if v, ok := token(l.args, "clone_flags"); ok {
		f, err := strconv.ParseUint(strings.TrimPrefix(v, "0x"), 16, 64)
		if err != nil {
			return e, fmt.Errorf("clone_flags=%q: %v", v, err)
		}
		e.CloneFlags = f
	}
	return e, nil
}

// textRename reads "pid=N oldcomm=X newcomm=Y oom_score_adj=N".
func textRename(l textLine) (Event, error) {
	e := base(l, KindRename)
	n, err := num(l.args, "pid")
	if err != nil {
		return e, err
	}
	e.Target = int32(n)
	e.Comm, err = str(l.args, "newcomm", "oom_score_adj")
	return e, err
}

// textExec reads "filename=/usr/bin/sh pid=N old_pid=N": exec renames the
// task to the file's base name (as the kernel's comm does), and task_rename
// does not fire for it.
func textExec(l textLine) (Event, error) {
	e := base(l, KindRename)
	file, err := str(l.args, "filename", "pid")
	if err != nil {
		return e, err
	}
	n, err := num(l.args, "pid")
	e.Target, e.Comm = int32(n), file[strings.LastIndexByte(file, '/')+1:]
	return e, err
}

// textExit reads sched_process_exit and sched_process_free: "comm= pid= prio=".
func textExit(l textLine) (Event, error) {
	k := KindExit
	if l.event == "sched_process_free" {
		k = KindFree
	}
	e := base(l, k)
	var err error
	if e.Comm, err = str(l.args, "comm", "pid"); err != nil {
		return e, err
	}
	n, err := num(l.args, "pid")
	e.Target = int32(n)
	return e, err
}

// textMigrate reads "comm= pid= prio= orig_cpu= dest_cpu=".
func textMigrate(l textLine) (Event, error) {
	e := base(l, KindMigrate)
	var err error
	if e.Comm, err = str(l.args, "comm", "pid"); err != nil {
		return e, err
	}
	n, err := num(l.args, "pid")
	if err != nil {
		return e, err
	}
	e.Target = int32(n)
	if p, err := num(l.args, "prio"); err == nil {
		e.Prio = int32(p)
	}
	o, err := num(l.args, "orig_cpu")
	if err != nil {
		return e, err
	}
	d, err := num(l.args, "dest_cpu")
	e.OrigCPU, e.TargetCPU = int32(o), int32(d)
	return e, err
}

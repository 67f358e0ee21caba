package scxstar

import (
	"fmt"

	"go.starlark.net/starlark"

	"schedplay/engine"
)

// The binding's own kernel-side state (apiState): the performance levels
// cpuperf_set keeps and the policy's timers.
//
// Timers. A BPF scheduler has as many timers as its maps hold struct
// bpf_timer values, each with its callback (bpf_timer_set_callback) and
// armed with bpf_timer_start. Here a timer is named by its callback:
// scx.timer_start(ns, callback) arms the timer of callback, a top-level def
// taking no arguments (no callback: the timer of timer(), as before); a
// timer armed again is replaced, as bpf_timer_start on an armed timer is.
// Each fires once, on the CPU whose callback armed it (CPU 0 from init),
// with the helpers timer() has. The core keeps one timer event (ScxKernel's
// timer); the binding arms it for the earliest of its timers and, when it
// fires, runs that one and arms it for the next, so timers due at the same
// ns run one after the other, earliest armed first, each on its CPU.

// apiState is kept in the policy's checkpoint state under apiStateKey, when
// it is not the initial one.
type apiState struct {
	perfs  []int // by CPU, what cpuperf_set set; shorter: CPUPERF_ONE
	timers []polTimer
	seq    int64 // arms so far, ordering timers due at the same ns
}

// polTimer is one timer: its callback's name ("" for timer()), when it fires
// (-1: not armed), the CPU it fires on, and when it was armed, in arms.
type polTimer struct {
	name string
	at   int64
	cpu  int
	seq  int64
}

func (a *apiState) perf(cpu int) int {
	if cpu < len(a.perfs) {
		return a.perfs[cpu]
	}
	return cpuperfOne
}

func (a *apiState) setPerf(cpu, perf, nrCPUs int) {
	for len(a.perfs) < nrCPUs {
		a.perfs = append(a.perfs, cpuperfOne)
	}
	a.perfs[cpu] = perf
}

// named reports whether the state holds anything but the default timer,
// which the core's own checkpoint keeps.
func (a *apiState) named() bool {
	if len(a.perfs) > 0 {
		return true
	}
	for _, t := range a.timers {
		if t.name != "" && t.at >= 0 {
			return true
		}
	}
	return false
}

// maxTimers bounds the timers of a policy (a BPF map's max_entries).
const maxTimers = 64

// timerStart is scx.timer_start(ns, callback=None).
// cb is nil or None for timer().
func (p *Policy) timerStart(k *engine.ScxKernel, ns int64, cb starlark.Value) (starlark.Value, error) {
	name := ""
	if cb != nil && cb != starlark.None {
		f, ok := cb.(*starlark.Function)
		if !ok || p.globals[f.Name()] != f {
			return nil, fmt.Errorf("timer_start: callback: want a def of the policy's top level, got %s", cb.Type())
		}
		if f.NumParams() != 0 {
			return nil, fmt.Errorf("timer_start: callback %s takes %d arguments: a timer's callback takes none", f.Name(), f.NumParams())
		}
		name = f.Name()
		if name == "timer" {
			name = ""
		}
	}
	if ns < 1000 || ns > 60e9 {
		return nil, fmt.Errorf("timer_start: %d ns: want 1 µs (1000) to 60 s", ns)
	}
	a := &p.api
	i := 0
	for i < len(a.timers) && a.timers[i].name != name {
		i++
	}
	if i == len(a.timers) {
		if i == maxTimers {
			return nil, fmt.Errorf("timer_start: %d timers is the limit", maxTimers)
		}
		a.timers = append(a.timers, polTimer{name: name, at: -1})
	}
	a.seq++
	a.timers[i].at, a.timers[i].cpu, a.timers[i].seq = k.NowNs()+ns, max(k.ThisCPU(), 0), a.seq
	p.rearm(k, i)
	return starlark.None, nil
}

// earliest is the index of the timer that fires first, or -1.
func (a *apiState) earliest() int {
	e := -1
	for i, t := range a.timers {
		if t.at >= 0 && (e < 0 || t.at < a.timers[e].at || t.at == a.timers[e].at && t.seq < a.timers[e].seq) {
			e = i
		}
	}
	return e
}

// rearm arms the core's timer for the earliest timer, unless it is armed
// for it already; started is the timer just armed (-1: none), for which it
// always arms, as the core's timer_start always did.
func (p *Policy) rearm(k *engine.ScxKernel, started int) {
	e := p.api.earliest()
	if e < 0 {
		return
	}
	t := p.api.timers[e]
	if at, cpu := k.TimerArmed(); e == started || at != t.at || cpu != t.cpu {
		k.TimerArmAt(t.at, t.cpu)
	}
}

// Timer runs the timer due now: the core's timer fired for it.
func (p *Policy) Timer(k *engine.ScxKernel) error {
	a := &p.api
	e := a.earliest()
	if e < 0 || a.timers[e].at > k.NowNs() {
		// No timer recorded (a run resumed from a checkpoint of the
		// default timer alone, which the core keeps): it is timer()'s.
		if p.fns[timerIndex] == nil {
			return nil
		}
		_, err := p.call(k, engine.ScxOpTimer, 0)
		return err
	}
	t := &a.timers[e]
	t.at = -1
	var err error
	switch {
	case t.name == "" && p.fns[timerIndex] != nil:
		_, err = p.call(k, engine.ScxOpTimer, 0)
	case t.name != "":
		_, err = p.callAs(k, engine.ScxOpTimer, p.globals[t.name].(starlark.Callable), t.name)
	}
	if err != nil {
		return err
	}
	p.rearm(k, -1)
	return nil
}

// apiStateKey names apiState in the policy's checkpoint state: no global
// can be named so.
const apiStateKey = "\x00api"

// value is the state as a Starlark value, for the checkpoint:
// (perfs, ((name, at, cpu, seq), ...), seq).
func (a *apiState) value() starlark.Value {
	perfs := make(starlark.Tuple, len(a.perfs))
	for i, v := range a.perfs {
		perfs[i] = starlark.MakeInt(v)
	}
	timers := make(starlark.Tuple, len(a.timers))
	for i, t := range a.timers {
		timers[i] = starlark.Tuple{starlark.String(t.name), starlark.MakeInt64(t.at), starlark.MakeInt(t.cpu), starlark.MakeInt64(t.seq)}
	}
	return starlark.Tuple{perfs, timers, starlark.MakeInt64(a.seq)}
}

// load reads value's form back.
func (a *apiState) load(v starlark.Value) error {
	bad := fmt.Errorf("the saved state's timers and performance levels do not read back")
	t, ok := v.(starlark.Tuple)
	if !ok || len(t) != 3 {
		return bad
	}
	perfs, ok1 := t[0].(starlark.Tuple)
	timers, ok2 := t[1].(starlark.Tuple)
	if !ok1 || !ok2 || len(timers) > maxTimers || starlark.AsInt(t[2], &a.seq) != nil {
		return bad
	}
	a.perfs = make([]int, len(perfs))
	for i, x := range perfs {
		if starlark.AsInt(x, &a.perfs[i]) != nil || a.perfs[i] < 0 || a.perfs[i] > cpuperfOne {
			return bad
		}
	}
	a.timers = make([]polTimer, len(timers))
	for i, x := range timers {
		f, ok := x.(starlark.Tuple)
		if !ok || len(f) != 4 {
			return bad
		}
		name, ok := f[0].(starlark.String)
		if !ok || starlark.AsInt(f[1], &a.timers[i].at) != nil || starlark.AsInt(f[2], &a.timers[i].cpu) != nil || starlark.AsInt(f[3], &a.timers[i].seq) != nil {
			return bad
		}
		a.timers[i].name = string(name)
	}
	return nil
}

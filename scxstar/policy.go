package scxstar

import (
	"errors"
	"fmt"
	"math/bits"
	"strings"
	"unicode/utf8"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"schedplay/engine"
)

// Step budgets: what one callback, and the top level with init, may execute
// (Starlark's implementation-defined steps, fixed by the pinned version). A
// policy over budget is ejected, never left to stall the run.
const (
	CallbackSteps = 100_000
	InitSteps     = 2_000_000
)

// callbacks are the ops a policy may define, in engine.ScxOp bit order. A
// callback's engine.ScxOps method fills its arguments into p.argsOf(op) and
// runs it with p.call(k, op, n); a helper is an fn(name, params, f) in
// newModule.
var callbackNames = [...]string{"init", "enable", "select_cpu", "enqueue", "dispatch", "runnable",
	"running", "stopping", "quiescent", "update_idle", "tick", "timer", "cpu_acquire", "cpu_release",
	"init_task", "exit_task", "set_weight", "dequeue"}

// timerIndex is timer's place in callbackNames (Policy.Timer, timers.go).
var timerIndex = bits.TrailingZeros32(uint32(engine.ScxOpTimer))

// Policy is a compiled Starlark policy: engine.ScxOps over its callbacks.
type Policy struct {
	name    string
	thread  *starlark.Thread
	globals starlark.StringDict
	fns     [len(callbackNames)]starlark.Callable
	defined engine.ScxOpSet
	flags   int64 // the top-level flags (sched_ext_ops.flags)
	// k is the core during a callback (the helpers act on it), else nil.
	k *engine.ScxKernel
	// args are each callback's argument tuple, filled anew for every call
	// rather than allocated: the interpreter copies a Starlark function's
	// arguments into its frame before running it and never keeps the tuple.
	args [len(callbackNames)][maxCallbackArgs]starlark.Value
	// tasks are the policy's task values by pid (Policy.task).
	tasks []*task
	// cpuIdle are select_cpu_dfl's results by CPU, (cpu, False) and
	// (cpu, True), made once each: a tuple is immutable, so every call that
	// answers the same may return the same one.
	cpuIdle [][2]starlark.Value
	// api is the binding's kernel-side state: performance levels and
	// timers (timers.go).
	api apiState
}

// maxCallbackArgs is the most arguments a callback takes (select_cpu's p,
// prev_cpu, wake_flags).
const maxCallbackArgs = 3

// Compile parses and runs a policy's top level (name is what errors call the
// file; sliceDflNs is scx.SLICE_DFL). Its errors name the file, line and
// column.
func Compile(name, src string, sliceDflNs int64) (*Policy, error) {
	p := &Policy{name: name}
	predeclared := minMaxBuiltins()
	predeclared["scx"] = newModule(p, sliceDflNs)
	opts := &syntax.FileOptions{While: true, TopLevelControl: true, GlobalReassign: false, Recursion: false}
	_, prog, err := starlark.SourceProgramOptions(opts, name, src, predeclared.Has)
	if err != nil {
		return nil, compileError(err, src)
	}
	p.thread = &starlark.Thread{Name: name, Print: p.print}
	p.thread.SetMaxExecutionSteps(InitSteps)
	globals, err := prog.Init(p.thread, predeclared)
	if err != nil {
		return nil, p.runError("the top level", InitSteps, err)
	}
	p.globals = globals
	if v, ok := globals["flags"]; ok {
		// sched_ext_ops.flags: a top-level int of scx.OPS_* flags.
		f, ok := v.(starlark.Int)
		n, exact := f.Int64()
		if !ok || !exact {
			return nil, fmt.Errorf("%s: flags is a %s, not ops flags: set it to scx.OPS_* flags, or name the variable otherwise", name, v.Type())
		}
		if bad := n &^ (engine.ScxOpsKeepBuiltinIdle | engine.ScxOpsEnqLast | engine.ScxOpsBuiltinIdlePerNode); bad != 0 {
			return nil, fmt.Errorf("%s: flags %#x: only scx.OPS_KEEP_BUILTIN_IDLE, scx.OPS_ENQ_LAST and scx.OPS_BUILTIN_IDLE_PER_NODE are modelled", name, bad)
		}
		p.flags = n
	}
	for i, n := range callbackNames {
		v, ok := globals[n]
		if !ok {
			continue
		}
		fn, ok := v.(*starlark.Function)
		if !ok {
			return nil, fmt.Errorf("%s: %s is a %s, not a function: a callback is a def", name, n, v.Type())
		}
		p.fns[i] = fn
		p.defined |= 1 << i
	}
	return p, nil
}

// Flags are the policy's ops flags: its top-level flags, 0 without one.
func (p *Policy) Flags() int64 { return p.flags }

// Compiler is an engine.ScxCompiler for Compile.
func Compiler(name, src string, sliceDflNs int64) (engine.ScxOps, error) {
	p, err := Compile(name, src, sliceDflNs)
	if err != nil {
		return nil, err
	}
	return p, nil
}

// CompilerNamed is Compiler with errors naming the file name, whatever the
// engine calls the source.
func CompilerNamed(name string) engine.ScxCompiler {
	return func(_, src string, sliceDflNs int64) (engine.ScxOps, error) { return Compiler(name, src, sliceDflNs) }
}

func compileError(err error, src string) error {
	var se syntax.Error
	if errors.As(err, &se) {
		place := se.Pos.String()
		if strings.Contains(se.Msg, "got newline") && se.Pos.Line > 0 && se.Pos.Col > 0 {
			line, col := newlinePlace(src, int(se.Pos.Line), int(se.Pos.Col))
			place = fmt.Sprintf("%s:%d:%d", se.Pos.Filename(), line, col)
		}
		return fmt.Errorf("%s: syntax error: %s", place, se.Msg)
	}
	return err // resolve errors already read "file:line:col: msg"
}

// newlinePlace moves a syntax error about a NEWLINE token ("got newline,
// want ':'") from where go.starlark.net reports it to where the token is.
// The parser reports most errors at its scanner's position, which after a
// NEWLINE is column 1 of the next line: "def f(p)" with its body below is
// then reported on the body's line, not on the line that lacks the ':'. A
// NEWLINE ends the line it is on, so the error goes to that line, just past
// its code: a trailing comment, a line continuation and trailing spaces are
// not code, and the ':' (or whatever is wanted) goes before them. Blank and
// comment-only lines are skipped upwards, as the scanner emits no NEWLINE
// for them. Line and col are 1-based; col counts runes, as Starlark's do.
func newlinePlace(src string, line, col int) (int, int) {
	lines := strings.Split(src, "\n")
	if col == 1 {
		line-- // the newline that ended the previous line
	}
	for l := min(line, len(lines)); l >= 1; l-- {
		if code := codeOf(lines[l-1]); code != "" {
			return l, utf8.RuneCountInString(code) + 1
		}
	}
	return max(line, 1), col
}

// codeOf is a line without its trailing comment, line continuation and
// spaces: what a NEWLINE at its end follows. A '#' in a string is not a
// comment; a string that began on an earlier line (a triple-quoted one) is
// not seen, so such a line's comment stays in.
func codeOf(line string) string {
	var quote byte
	end := len(line)
scan:
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0 && c == '\\':
			i++ // the escaped character
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
		case c == '"' || c == '\'':
			quote = c
		case c == '#':
			end = i
			break scan
		}
	}
	code := strings.TrimRight(line[:end], " \t\r\f")
	code = strings.TrimSuffix(code, "\\")
	return strings.TrimRight(code, " \t\r\f")
}

// runError reports a Starlark error as file:line:col of the innermost
// Starlark frame, the message, and the traceback.
func (p *Policy) runError(where string, budget uint64, err error) error {
	var exit *engine.ScxExitRequest
	if errors.As(err, &exit) {
		return exit // not an error: the core records the exit's code and message
	}
	var ee *starlark.EvalError
	if !errors.As(err, &ee) {
		return fmt.Errorf("%s: %v", where, err)
	}
	pos := p.name
	for i := len(ee.CallStack) - 1; i >= 0; i-- {
		if fr := ee.CallStack[i]; fr.Pos.Filename() != "<builtin>" {
			pos = fr.Pos.String()
			break
		}
	}
	msg := ee.Msg
	if strings.Contains(msg, "too many steps") {
		msg = fmt.Sprintf("%s is over its step budget (%d steps): a callback must return promptly", where, budget)
	}
	return fmt.Errorf("%s: %s\n%s", pos, msg, ee.Backtrace())
}

// call runs callback op under the step budget with the first n of its
// p.args, which the caller has filled.
func (p *Policy) call(k *engine.ScxKernel, op engine.ScxOp, n int) (starlark.Value, error) {
	i := bits.TrailingZeros32(uint32(op))
	p.k = k
	defer func() { p.k = nil }()
	budget := uint64(CallbackSteps)
	if op == engine.ScxOpInit {
		budget = InitSteps
	}
	p.thread.SetMaxExecutionSteps(p.thread.Steps + budget)
	v, err := starlark.Call(p.thread, p.fns[i], p.args[i][:n:n], nil)
	if err != nil {
		p.thread.Uncancel()
		return nil, p.runError(callbackNames[i], budget, err)
	}
	return v, nil
}

// callAs runs fn, a def of the policy's top level named name, as callback
// op with no arguments (a timer's callback), under op's step budget.
func (p *Policy) callAs(k *engine.ScxKernel, op engine.ScxOp, fn starlark.Callable, name string) (starlark.Value, error) {
	p.k = k
	defer func() { p.k = nil }()
	p.thread.SetMaxExecutionSteps(p.thread.Steps + CallbackSteps)
	v, err := starlark.Call(p.thread, fn, nil, nil)
	if err != nil {
		p.thread.Uncancel()
		return nil, p.runError(name, CallbackSteps, err)
	}
	return v, nil
}

// argsOf is callback op's argument array, for its method to fill.
func (p *Policy) argsOf(op engine.ScxOp) *[maxCallbackArgs]starlark.Value {
	return &p.args[bits.TrailingZeros32(uint32(op))]
}

// Steps is the Starlark steps the policy has executed so far, its top level
// and init included. It measures the policy's work the same way on every host
// (steps are fixed by the pinned Starlark), so a share's preview can charge a
// policy's work to its budget beside the engine's events and still be the
// same preview natively and in the Cloudflare Worker (preview.Compute).
func (p *Policy) Steps() uint64 { return p.thread.Steps }

func (p *Policy) print(_ *starlark.Thread, msg string) {
	if p.k != nil {
		p.k.Print(msg)
	}
}

// The engine.ScxOps methods.

// Defined is the callbacks the policy defines, and timer always: a timer
// may run any def (timer_start's callback), and Timer runs none when no
// timer is due (timers.go).
func (p *Policy) Defined() engine.ScxOpSet { return p.defined | engine.ScxOpTimer }

func (p *Policy) Init(k *engine.ScxKernel) error {
	_, err := p.call(k, engine.ScxOpInit, 0)
	return err
}

func (p *Policy) Enable(k *engine.ScxKernel, t engine.ScxTask) error {
	p.argsOf(engine.ScxOpEnable)[0] = p.task(t)
	_, err := p.call(k, engine.ScxOpEnable, 1)
	return err
}

func (p *Policy) SelectCPU(k *engine.ScxKernel, t engine.ScxTask, prevCPU int, wakeFlags int64) (int, error) {
	a := p.argsOf(engine.ScxOpSelectCPU)
	a[0], a[1], a[2] = p.task(t), starlark.MakeInt(prevCPU), starlark.MakeInt64(wakeFlags)
	r, err := p.call(k, engine.ScxOpSelectCPU, 3)
	if err != nil {
		return 0, err
	}
	cpu, err := starlark.AsInt32(r)
	if err != nil {
		return 0, fmt.Errorf("%s: select_cpu returned %s, not a CPU number", p.name, r.Type())
	}
	return cpu, nil
}

func (p *Policy) Enqueue(k *engine.ScxKernel, t engine.ScxTask, enqFlags int64) error {
	a := p.argsOf(engine.ScxOpEnqueue)
	a[0], a[1] = p.task(t), starlark.MakeInt64(enqFlags)
	_, err := p.call(k, engine.ScxOpEnqueue, 2)
	return err
}

func (p *Policy) Dispatch(k *engine.ScxKernel, cpu int, prev engine.ScxTask) error {
	a := p.argsOf(engine.ScxOpDispatch)
	a[0], a[1] = starlark.MakeInt(cpu), p.task(prev)
	_, err := p.call(k, engine.ScxOpDispatch, 2)
	return err
}

func (p *Policy) Runnable(k *engine.ScxKernel, t engine.ScxTask, enqFlags int64) error {
	a := p.argsOf(engine.ScxOpRunnable)
	a[0], a[1] = p.task(t), starlark.MakeInt64(enqFlags)
	_, err := p.call(k, engine.ScxOpRunnable, 2)
	return err
}

func (p *Policy) Running(k *engine.ScxKernel, t engine.ScxTask) error {
	p.argsOf(engine.ScxOpRunning)[0] = p.task(t)
	_, err := p.call(k, engine.ScxOpRunning, 1)
	return err
}

func (p *Policy) Stopping(k *engine.ScxKernel, t engine.ScxTask, runnable bool) error {
	a := p.argsOf(engine.ScxOpStopping)
	a[0], a[1] = p.task(t), starlark.Bool(runnable)
	_, err := p.call(k, engine.ScxOpStopping, 2)
	return err
}

func (p *Policy) Quiescent(k *engine.ScxKernel, t engine.ScxTask, deqFlags int64) error {
	a := p.argsOf(engine.ScxOpQuiescent)
	a[0], a[1] = p.task(t), starlark.MakeInt64(deqFlags)
	_, err := p.call(k, engine.ScxOpQuiescent, 2)
	return err
}

func (p *Policy) UpdateIdle(k *engine.ScxKernel, cpu int, idle bool) error {
	a := p.argsOf(engine.ScxOpUpdateIdle)
	a[0], a[1] = starlark.MakeInt(cpu), starlark.Bool(idle)
	_, err := p.call(k, engine.ScxOpUpdateIdle, 2)
	return err
}

func (p *Policy) Tick(k *engine.ScxKernel, t engine.ScxTask) error {
	p.argsOf(engine.ScxOpTick)[0] = p.task(t)
	_, err := p.call(k, engine.ScxOpTick, 1)
	return err
}

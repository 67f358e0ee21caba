package playground

// A sched_ext policy of the page's user: the Starlark source the editor runs
// as sched.scx.source (SetPolicy), carried in the URL while it is short
// (urlstate's policy key) and in a share otherwise, and run by the policy
// workers, which the page starts only when an arm needs them (rebuild asks
// Options.PolicyRunner). The editor's section (PolicyUI) says which source
// the arms run, where it came from, and where the engine refused or ejected it.

import (
	"strconv"
	"strings"

	"schedplay/engine"
	"schedplay/examples/policies"
	"schedplay/playground/runner"
	"schedplay/view"
)

// PolicyFile is the name the page's policy compiles under: errors read
// policy.star:LINE:COL.
const PolicyFile = view.PolicyFile

// PolicyUI is the policy editor's section of the snapshot.
type PolicyUI struct {
	// Runs says an arm runs sched.policy=scx with a source: the page shows the
	// editor.
	Runs bool `json:"runs"`
	// Source is the policy the scenario carries ("" for none); Title its
	// first comment line.
	Source string `json:"source"`
	Title  string `json:"title,omitzero"`
	// Origin says where Source came from: "page" (Run in the editor, or a
	// link's policy key), "shared" (the shared scenario's own), "" for none.
	Origin string `json:"origin"`
	// Shared is the shared scenario's own policy, when the page's replaces
	// it: the editor offers to go back to it.
	Shared string `json:"shared,omitzero"`
	// InLink says the page's link carries the policy; false for a page
	// policy too long for a fragment (Copy link then says to use Share).
	InLink bool `json:"in_link"`
	// Errors are where the engine refused the policy (it did not compile) or
	// ejected it (a runtime error, its step budget, the watchdog), per arm.
	Errors []PolicyError `json:"errors,omitzero"`
	// Waiting are the arms whose policy has left a task runnable and not
	// running for WaitingAfterNs or longer: tasks parked where nothing runs
	// them, which the watchdog ejects only after its timeout (30 s unless
	// sched.scx.watchdog_ms says less), so a run can do nothing with no
	// error to show.
	Waiting []PolicyWaiting `json:"waiting,omitzero"`
	// Runner says where the arms run ("1 worker (policy)").
	Runner string `json:"runner"`
}

// WaitingAfterNs is how long a task waits to run before the editor's section
// names it: a second of simulated time is far beyond any queueing a working
// policy gives the playground's workloads, and well inside the watchdog's
// 30 s, which the presets' runs do not reach.
const WaitingAfterNs = 1e9

// PolicyWaiting is one arm's tasks waiting to run (engine.ScxWaiting) when
// the longest of them has waited WaitingAfterNs.
type PolicyWaiting struct {
	Arm string `json:"arm"`
	// Count is every task waiting, however briefly; Tasks are the
	// longest-waiting few the engine lists, the longest first.
	Count int           `json:"count"`
	Tasks []WaitingTask `json:"tasks"`
	// Message says it in a line: how many wait, and the first few with
	// since when and where.
	Message string `json:"message"`
}

// WaitingTask is one task waiting to run: its pid and name, since when
// (SinceNs, and written as the page writes times), and on which DSQ.
type WaitingTask struct {
	PID     int    `json:"pid"`
	Name    string `json:"name"`
	SinceNs int64  `json:"since_ns"`
	Since   string `json:"since"`
	Where   string `json:"where"`
}

// waitingNamed is how many waiting tasks a PolicyWaiting's message names.
const waitingNamed = 3

// policyWaiting reads an arm's waiting tasks as of nowNs, under a watchdog of
// watchdogMs (0 for the kernel's 30 s); false when none has waited
// WaitingAfterNs (or the engine knows no since for the longest).
func policyWaiting(arm string, w engine.ScxWaiting, nowNs, watchdogMs int64) (PolicyWaiting, bool) {
	if len(w.Tasks) == 0 || w.Tasks[0].SinceNs < 0 || nowNs-w.Tasks[0].SinceNs < WaitingAfterNs {
		return PolicyWaiting{}, false
	}
	p := PolicyWaiting{Arm: arm, Count: w.Count}
	var named []string
	for _, t := range w.Tasks {
		wt := WaitingTask{PID: t.PID, Name: t.Name, SinceNs: t.SinceNs, Since: "?", Where: t.Where}
		if t.SinceNs >= 0 {
			wt.Since = view.SimTime(t.SinceNs)
		}
		p.Tasks = append(p.Tasks, wt)
		if len(named) < waitingNamed {
			// How long it has waited says more to a reader than the
			// moment it began (kept in Since).
			waited := "?"
			if t.SinceNs >= 0 {
				waited = view.Duration(float64(nowNs - t.SinceNs))
			}
			named = append(named, "pid "+strconv.Itoa(t.PID)+" ("+t.Name+") on "+t.Where+", waiting "+waited)
		}
	}
	tasks := " tasks are"
	if w.Count == 1 {
		tasks = " task is"
	}
	p.Message = strconv.Itoa(w.Count) + tasks + " runnable and not running; the longest-waiting: " + strings.Join(named, ", ")
	if rest := w.Count - len(named); rest > 0 {
		p.Message += ", and " + strconv.Itoa(rest) + " more"
	}
	watchdog := "30 s, the kernel's default"
	if watchdogMs > 0 {
		watchdog = strconv.FormatInt(watchdogMs, 10) + " ms (sched.scx.watchdog_ms)"
	}
	p.Message += ". The watchdog ejects the policy once a task has waited " + watchdog + "."
	return p, true
}

// PolicyError is one arm's refusal or ejection of the policy. Line and Col
// (from 1) point into the source when the message names policy.star; 0
// when it names no place (a watchdog ejection, a scenario error).
type PolicyError struct {
	Arm     string `json:"arm"`
	Ejected bool   `json:"ejected"`
	AtNs    int64  `json:"at_ns,omitzero"`
	At      string `json:"at,omitzero"`
	Line    int    `json:"line,omitzero"`
	Col     int    `json:"col,omitzero"`
	Message string `json:"message"`
}

// PolicyExample is one example policy the editor offers.
type PolicyExample struct {
	Name   string `json:"name"`
	Title  string `json:"title"`
	Source string `json:"source"`
}

// withPolicy is the setup with the page's policy set ("" takes it away),
// the page's workload kept, the knobs reapplied (own.go).
func (s setup) withPolicy(policy string) (setup, []string, error) {
	return s.withOwn(policy, s.src.rtapp)
}

// SetPolicy runs source as the scenario's sched_ext policy from time zero:
// the editor's Run. The scheduler becomes "your own policy" unless a
// comparison already sets it per arm; "" takes the page's policy away. It
// returns "" or why the engine refused the scenario (a policy that does not
// compile is not refused here: its arm says so, as the editor's errors).
func (m *Model) SetPolicy(source string) string {
	m.edits++
	m.message = ""
	if len(source) > engine.MaxScxSourceBytes {
		m.message = "policy: the source is " + strconv.Itoa(len(source)) + " bytes, above the limit " + strconv.Itoa(engine.MaxScxSourceBytes)
		return m.message
	}
	s, probs, err := m.setup.withPolicy(source)
	if err != nil {
		m.message = "policy: " + err.Error()
		return m.message
	}
	if source != "" && m.view.Compare != "sched.policy" {
		if s2, err := s.withKnob("sched.policy", "scx"); err == nil {
			s = s2
		}
	}
	m.restartWith(s, probs)
	return ""
}

// policyExample is the policy "your own policy" starts from when the
// scenario carries none: the first example (scx_simple).
func policyExample() string {
	if ex := policies.Examples(); len(ex) > 0 {
		return ex[0].Source
	}
	return ""
}

// startFromExample gives the scenario the example policy when it or a
// compared arm runs "your own policy" (sched.policy=scx) without a source:
// in the page that choice means the editor's policy, which starts as the
// example, not the kernel's default ops an empty source runs in the CLI.
func (m *Model) startFromExample(comp comparison) {
	if m.setup.base.Sched.Scx.Source != "" {
		return
	}
	needs := m.setup.base.Sched.Policy == "scx"
	for _, a := range comp.arms {
		needs = needs || a.Set["sched.policy"] == "scx"
	}
	if !needs {
		return
	}
	if s, probs, err := m.setup.withPolicy(policyExample()); err == nil {
		m.setup = s
		m.problems = append(m.problems, probs...)
	}
}

// runsPolicy reports whether sc runs a sched_ext policy's source, which only
// the policy workers can compile.
func runsPolicy(sc engine.Scenario) bool {
	return sc.Sched.Policy == "scx" && sc.Sched.Scx.Source != ""
}

// useRunnerFor switches to the policy workers when an arm runs a policy and
// the page's runner cannot; the arms are (re)started afterwards by rebuild.
func (m *Model) useRunnerFor(arms []engine.ArmScenario) {
	if m.policyRun || m.newPolicyRun == nil {
		return
	}
	for _, a := range arms {
		if runsPolicy(a.Scenario) {
			m.run, m.runName = m.newPolicyRun()
			m.policyRun = true
			return
		}
	}
}

// scxSourceField starts the engine's message about the policy's source.
const scxSourceField = "sched.scx.source: "

// policyError reads an arm's refusal or ejection message into a PolicyError.
func policyError(arm, msg string) PolicyError {
	if _, after, ok := strings.Cut(msg, scxSourceField); ok {
		msg = after
	}
	// The editor shows the message's first line beside the mark and the
	// whole (with the traceback) in its status.
	_, line, col := view.PolicyMessage(msg)
	return PolicyError{Arm: arm, Line: line, Col: col, Message: msg}
}

// policyUI builds the editor's section.
func (m *Model) policyUI() PolicyUI {
	u := PolicyUI{Source: m.setup.base.Sched.Scx.Source, Runner: m.runName}
	if u.Source != "" {
		u.Title = view.PolicyTitle(u.Source)
	}
	switch {
	case m.setup.src.policy != "":
		u.Origin = "page"
		if m.setup.src.shared {
			if sc, err := engine.DecodeScenario(m.setup.src.plain); err == nil {
				u.Shared = sc.Sched.Scx.Source
			}
		}
		u.InLink = m.ownInLink("policy")
	case u.Source != "" && m.setup.src.shared:
		u.Origin, u.InLink = "shared", true
	}
	for i, a := range m.arms {
		if runsPolicy(a.Sc) {
			u.Runs = true
		}
		name := string(rune('A' + i))
		if a.Name != "" {
			name += " (" + a.Name + ")"
		}
		switch {
		case a.err != "" && a.Sc.Sched.Policy == "scx":
			u.Errors = append(u.Errors, policyError(name, a.err))
		case a.scxExit().Ejected():
			x := a.scxExit()
			e := policyError(name, x.Reason)
			e.Ejected, e.AtNs, e.At = true, x.AtNs, view.SimTime(x.AtNs)
			u.Errors = append(u.Errors, e)
		}
		if w, ok := policyWaiting(name, a.scxWaiting(), a.resultsAt, a.Sc.Sched.Scx.WatchdogMs); ok {
			u.Waiting = append(u.Waiting, w)
		}
	}
	return u
}

// policyExamples lists the example policies for the editor (Meta.Policies).
func policyExamples() []PolicyExample {
	var out []PolicyExample
	for _, ex := range policies.Examples() {
		out = append(out, PolicyExample{Name: ex.Name, Title: view.PolicyTitle(ex.Source), Source: ex.Source})
	}
	return out
}

// scxExit is the arm's policy ejection as of its newest results.
func (a *Arm) scxExit() engine.ScxExit {
	if a.inWarmup && a.warmup.ScxExit.Ejected() {
		return a.warmup.ScxExit
	}
	return a.results.ScxExit
}

// scxWaiting are the tasks the arm's policy leaves waiting, as of its newest
// results.
func (a *Arm) scxWaiting() engine.ScxWaiting {
	if a.inWarmup {
		return a.warmup.ScxWaiting
	}
	return a.results.ScxWaiting
}

// policyRunner is how the model starts the policy workers.
type policyRunner = func() (runner.Runner, string)

// problem is what the arm's pane says over its tiles: the engine's refusal
// when another arm plays on (a refusal of every arm covers the stage
// instead), or its policy's ejection to the fair class.
func (a *Arm) problem(arms int) string {
	switch {
	case a.policyRefused() && arms > 1:
		_, msg, _ := strings.Cut(a.err, scxSourceField)
		return "The policy does not compile: " + firstLine(msg)
	case a.scxExit().Ejected():
		x := a.scxExit()
		return "Policy ejected at " + view.SimTime(x.AtNs) + ", tasks back on the fair class: " + firstLine(x.Reason)
	}
	return ""
}

// firstLine is s up to its first newline (a Starlark traceback follows).
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// policyRefused reports whether the engine refused the arm for its policy's
// source (it does not compile), rather than for its scenario or a worker.
func (a *Arm) policyRefused() bool {
	return a.err != "" && runsPolicy(a.Sc) && strings.Contains(a.err, scxSourceField)
}

// playable reports whether the arm runs (the engine did not refuse it).
func (a *Arm) playable() bool { return a.err == "" }

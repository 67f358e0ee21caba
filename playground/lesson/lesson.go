// Package lesson reads the playground's lessons for a classroom
// (examples/lessons/*.json): scripts of steps that each set knobs, run the
// simulation to a moment or until something happens, pause there, point at a
// vCPU or a thread and say what it shows, with the numbers filled in from the
// run itself. A lesson is untrusted input like a URL: Decode is strict, bounds
// every size and names the step and field of whatever it rejects; Check then
// resolves each step against the presets it names.
//
// The format, one JSON object per file (the file's stem is the lesson's name):
//
//	{
//	  "version": 1,
//	  "title": "One waker, more workers than vCPUs",
//	  "summary": "one line for `schedplay lessons`",
//	  "preset": "tpcb-32vcpu",                  // the scenario it starts from
//	  "set": {"workload.clients": "64"},         // knobs, as --set writes them
//	  "compare": "arms",                         // as the URL's compare=
//	  "steps": [{
//	    "caption": "vCPU 0 has {arm.A.cpu.0.queue} threads waiting",
//	    "at": "1s",                              // run to this moment, or:
//	    "until": {"event": "pull_ipi", "arm": "B", "after": "100ms", "within": "1s"},
//	    "highlight": {"arm": "A", "cpu": 0},     // or "thread": 12, "role": "waker", "event": true
//	    "set": {...}, "preset": "...", "compare": "...", "speed": "20us",
//	    "policy": {"example": "scx_simple", "replace": [["FIFO = False", "FIFO = True"]]},
//	    "workload": {"example": "four_hogs"}   // an rt-app description of examples/rtapp
//	  }]
//	}
//
// Knobs, compare, speed, policy and workload carry over from step to step; a
// step that names a preset starts again from that preset's knobs and
// workload (a policy carries on). A step stops at its moment ("at")
// or right after the first event of a kind ("until", the events of runner.Event:
// pull_ipi, donation, migration, halt, spin_grow, spin_shrink, done), looked for
// from "after" for "within" in one arm. Captions hold
// placeholders (placeholder.go) that the playground fills from the live run once
// the step is reached, so no number in a lesson is typed in. docs/lessons.md is
// the guide to writing one.
package lesson

import (
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"

	"schedplay/engine"
	"schedplay/examples/lessons"
	"schedplay/playground/runner"
	"schedplay/playground/urlstate"
)

// Limits: a lesson is read by a page from a file anyone may edit; these keep a
// caption readable from the back of a room and the work a lesson causes bounded.
const (
	MaxBytes        = 64 << 10
	MaxSteps        = 40
	MaxCaptionBytes = 320
	MaxTitleBytes   = 80
	MaxSummaryBytes = 240
	MaxKnobs        = 32
)

// Lesson is a decoded lesson.
type Lesson struct {
	// Name is the file's stem (lesson=NAME in the URL); not in the file.
	Name    string            `json:"-"`
	Version int               `json:"version"`
	Title   string            `json:"title"`
	Summary string            `json:"summary"`
	Preset  string            `json:"preset"`
	Set     map[string]string `json:"set,omitzero"`
	Compare string            `json:"compare,omitzero"`
	Steps   []Step            `json:"steps"`
}

// Step is one stop of a lesson.
type Step struct {
	Caption   string            `json:"caption"`
	Preset    string            `json:"preset,omitzero"`
	Set       map[string]string `json:"set,omitzero"`
	Compare   string            `json:"compare,omitzero"`
	At        string            `json:"at,omitzero"`
	Until     *Until            `json:"until,omitzero"`
	Highlight *Highlight        `json:"highlight,omitzero"`
	Speed     string            `json:"speed,omitzero"`
	// Policy is the sched_ext policy the step's scenario runs as its own
	// (policy.go): an example with edits, shown in the page's editor.
	Policy *Policy `json:"policy,omitzero"`
	// Workload is an rt-app description the step's scenario runs as its
	// workload (policy.go): an example, shown in the page's workload editor.
	Workload *Workload `json:"workload,omitzero"`

	// Read by Decode from the fields above.
	AtNs         int64         `json:"-"`
	Placeholders []Placeholder `json:"-"`
}

// Until stops a step right after the first event of a kind in one arm.
type Until struct {
	Event  string `json:"event"`
	Arm    string `json:"arm,omitzero"`    // "A" (the default) or "B"
	After  string `json:"after,omitzero"`  // where to start looking (default 0)
	Within string `json:"within,omitzero"` // how long to look (default: to the horizon)

	// Read by Decode.
	Kind              runner.Event `json:"-"`
	ArmIndex          int          `json:"-"`
	AfterNs, WithinNs int64        `json:"-"` // WithinNs 0: to the horizon
}

// Highlight selects a vCPU, a thread by id or by role, or (in a step that runs
// until an event) the vCPU where the event happened, in one arm.
type Highlight struct {
	Arm    string `json:"arm,omitzero"`
	CPU    *int   `json:"cpu,omitzero"`
	Thread *int   `json:"thread,omitzero"`
	Role   string `json:"role,omitzero"` // "waker" or "spawner": the first such thread
	// Event points at the vCPU where the step's event happened (the sender of a
	// pull IPI, the vCPU a thread left, ...), with the engine's decision about it.
	Event bool `json:"event,omitzero"`

	ArmIndex int `json:"-"`
}

// Version is the format version lessons declare.
const Version = 1

// Error is a problem with one field of a lesson: Step is 1-based as the page
// counts steps (0 for the lesson's own fields), Field the path within it.
type Error struct {
	Step  int
	Field string
	Msg   string
}

func (e *Error) Error() string {
	where := e.Field
	if e.Step > 0 {
		where = fmt.Sprintf("step %d", e.Step)
		if e.Field != "" {
			where += ": " + e.Field
		}
	}
	if where == "" {
		return e.Msg
	}
	return where + ": " + e.Msg
}

func stepErr(step int, field, format string, args ...any) error {
	return &Error{Step: step, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// Decode reads one lesson strictly: unknown or duplicate fields, wrong types,
// missing captions or targets, bad moments, events, knobs, compare and speed
// values, and unknown placeholders are errors naming the step and field.
func Decode(name string, data []byte) (Lesson, error) {
	var l Lesson
	if len(data) > MaxBytes {
		return l, stepErr(0, "", "the lesson is %d bytes, above the limit of %d", len(data), MaxBytes)
	}
	if err := json.Unmarshal(data, &l, json.RejectUnknownMembers(true)); err != nil {
		return Lesson{}, decodeError(err)
	}
	l.Name = name
	if err := l.check(); err != nil {
		return Lesson{}, err
	}
	return l, nil
}

// decodeError names the step and field of a JSON library error: the engine
// words it (engine.JSONFieldError), as it does for scenario files, and the
// step's index in "steps" becomes the step number the page shows.
func decodeError(err error) error {
	fe := engine.JSONFieldError(err)
	step, field := 0, fe.Path
	if rest, ok := strings.CutPrefix(field, "steps."); ok {
		i, tail, _ := strings.Cut(rest, ".")
		if n, err := strconv.Atoi(i); err == nil && n >= 0 {
			step, field = n+1, tail
		}
	}
	return stepErr(step, field, "%s", shorten(fe.Msg, 200))
}

// check validates what the JSON types do not: required fields, sizes, syntax of
// moments and values, and the placeholders; it fills the parsed fields.
func (l *Lesson) check() error {
	switch {
	case l.Version != Version:
		return stepErr(0, "version", "is %d; this page reads version %d", l.Version, Version)
	case strings.TrimSpace(l.Title) == "" || len(l.Title) > MaxTitleBytes:
		return stepErr(0, "title", "want 1 to %d bytes", MaxTitleBytes)
	case len(l.Summary) > MaxSummaryBytes:
		return stepErr(0, "summary", "is %d bytes, above the limit of %d", len(l.Summary), MaxSummaryBytes)
	case l.Preset == "":
		return stepErr(0, "preset", "is missing: name the scenario the lesson starts from")
	case len(l.Steps) == 0 || len(l.Steps) > MaxSteps:
		return stepErr(0, "steps", "has %d steps; want 1 to %d", len(l.Steps), MaxSteps)
	}
	if err := checkKnobs(0, l.Set); err != nil {
		return err
	}
	if err := checkCompare(0, l.Compare); err != nil {
		return err
	}
	for i := range l.Steps {
		if err := l.Steps[i].check(i + 1); err != nil {
			return err
		}
	}
	return nil
}

func (s *Step) check(n int) error {
	if strings.TrimSpace(s.Caption) == "" || len(s.Caption) > MaxCaptionBytes {
		return stepErr(n, "caption", "want 1 to %d bytes (it is read from the back of a room)", MaxCaptionBytes)
	}
	var err error
	if s.Placeholders, err = parseCaption(s.Caption); err != nil {
		return stepErr(n, "caption", "%v", err)
	}
	if err := checkKnobs(n, s.Set); err != nil {
		return err
	}
	if err := checkCompare(n, s.Compare); err != nil {
		return err
	}
	if s.Policy != nil {
		if err := s.Policy.check(n); err != nil {
			return err
		}
	}
	if s.Workload != nil {
		if err := s.Workload.check(n); err != nil {
			return err
		}
	}
	if s.Speed != "" {
		if _, _, err := urlstate.ParseSpeed(s.Speed); err != nil {
			return stepErr(n, "speed", "%v", err)
		}
	}
	switch {
	case (s.At == "") == (s.Until == nil):
		return stepErr(n, "", `give either "at" (a moment) or "until" (an event)`)
	case s.At != "":
		if s.AtNs, err = urlstate.ParseMoment(s.At); err != nil {
			return stepErr(n, "at", "%v", err)
		}
	default:
		if err := s.Until.check(n); err != nil {
			return err
		}
	}
	if h := s.Highlight; h != nil {
		if err := h.check(n); err != nil {
			return err
		}
		if h.Event && (s.Until == nil || h.Arm != "" && h.ArmIndex != s.Until.ArmIndex) {
			return stepErr(n, "highlight.event", `points at the step's event: the step needs "until", in the same arm`)
		}
		if h.Event {
			h.ArmIndex = s.Until.ArmIndex
		}
	}
	return nil
}

func (u *Until) check(n int) error {
	var ok bool
	if u.Kind, ok = runner.EventNamed(u.Event); !ok {
		return stepErr(n, "until.event", "%q is not one of %s", u.Event, strings.Join(EventNames(), ", "))
	}
	var err error
	if u.ArmIndex, err = armIndex(n, "until.arm", u.Arm); err != nil {
		return err
	}
	if u.After != "" {
		if u.AfterNs, err = urlstate.ParseMoment(u.After); err != nil {
			return stepErr(n, "until.after", "%v", err)
		}
	}
	if u.Within != "" {
		if u.WithinNs, err = urlstate.ParseMoment(u.Within); err != nil || u.WithinNs == 0 {
			return stepErr(n, "until.within", "%s is not a moment after 0 like 500ms or 2s", quote(u.Within))
		}
	}
	return nil
}

func (h *Highlight) check(n int) error {
	var err error
	if h.ArmIndex, err = armIndex(n, "highlight.arm", h.Arm); err != nil {
		return err
	}
	given := 0
	for _, set := range []bool{h.CPU != nil, h.Thread != nil, h.Role != "", h.Event} {
		if set {
			given++
		}
	}
	switch {
	case given != 1:
		return stepErr(n, "highlight", `give one of "cpu", "thread", "role" or "event"`)
	case h.CPU != nil && *h.CPU < 0:
		return stepErr(n, "highlight.cpu", "%d is not a vCPU: they count from 0", *h.CPU)
	case h.Thread != nil && *h.Thread < 0:
		return stepErr(n, "highlight.thread", "%d is not a thread: they count from 0", *h.Thread)
	case h.Role != "" && h.Role != "waker" && h.Role != "spawner":
		return stepErr(n, "highlight.role", "%s is not waker or spawner", quote(h.Role))
	}
	return nil
}

// armIndex reads an arm letter: "" and "A" are the first arm, "B" the second.
func armIndex(n int, field, arm string) (int, error) {
	switch arm {
	case "", "A":
		return 0, nil
	case "B":
		return 1, nil
	}
	return 0, stepErr(n, field, "%s is not A or B", quote(arm))
}

func checkKnobs(n int, set map[string]string) error {
	if len(set) > MaxKnobs {
		return stepErr(n, "set", "has %d knobs, above the limit of %d", len(set), MaxKnobs)
	}
	for _, k := range slices.Sorted(maps.Keys(set)) {
		if _, err := engine.KnobValue(k, set[k]); err != nil {
			return stepErr(n, "set", "%v", err)
		}
	}
	return nil
}

func checkCompare(n int, c string) error {
	if _, _, _, err := urlstate.ParseCompare(c); err != nil {
		return stepErr(n, "compare", "%v", err)
	}
	return nil
}

// EventNames lists the events a step may stop at, in runner.Event order.
func EventNames() []string {
	var out []string
	for _, e := range runner.Events() {
		out = append(out, e.String())
	}
	return out
}

// quote renders a value from the file for a message, shortened.
func quote(s string) string { return fmt.Sprintf("%q", shorten(s, 40)) }

// shorten cuts s to at most n bytes, marking the cut (a cut may split a
// character; the message is for reading, not for parsing).
func shorten(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// FileError is a lesson file that does not decode: Name is its stem.
type FileError struct {
	Name string
	Err  error
}

func (e *FileError) Error() string { return e.Name + ".json: " + e.Err.Error() }
func (e *FileError) Unwrap() error { return e.Err }

// Load decodes every *.json lesson in fsys, sorted by name. A lesson that does
// not decode is left out and reported as a *FileError, by file and field.
func Load(fsys fs.FS) ([]Lesson, []error) {
	names, err := fs.Glob(fsys, "*.json")
	if err != nil {
		return nil, []error{err}
	}
	slices.Sort(names)
	var out []Lesson
	var errs []error
	for _, n := range names {
		name := strings.TrimSuffix(path.Base(n), ".json")
		data, err := fs.ReadFile(fsys, n)
		if err == nil {
			var l Lesson
			if l, err = Decode(name, data); err == nil {
				out = append(out, l)
				continue
			}
		}
		errs = append(errs, &FileError{Name: name, Err: err})
	}
	return out, errs
}

// Builtin decodes the lessons in examples/lessons.
func Builtin() ([]Lesson, []error) { return Load(lessons.FS) }

// Find returns the lesson named name.
func Find(ls []Lesson, name string) (Lesson, bool) {
	i := slices.IndexFunc(ls, func(l Lesson) bool { return l.Name == name })
	if i < 0 {
		return Lesson{}, false
	}
	return ls[i], true
}

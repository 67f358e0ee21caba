package playground

// An rt-app workload of the page's user: a description
// (github.com/scheduler-tools/rt-app's JSON) pasted or uploaded into the
// workload editor and run as the scenario's workload (SetWorkload: see
// own.go for what it replaces), carried in the URL while it is short
// (urlstate's rtapp key) and in a share otherwise, like a policy. The
// editor's section (WorkloadUI) says what runs, where the engine refused the
// description (by key path and line), and each arm's per-task rt-app figures.

import (
	"fmt"
	"strconv"
	"strings"

	"schedplay/engine"
	rtappex "schedplay/examples/rtapp"
	"schedplay/rtapp"
	"schedplay/view"
)

// WorkloadUI is the workload editor's section of the snapshot.
type WorkloadUI struct {
	// Runs says the scenario's workload is an rt-app description.
	Runs bool `json:"runs"`
	// Source is the description ("" for none); Title its first comment line.
	Source string `json:"source"`
	Title  string `json:"title,omitzero"`
	// Origin: "page" (the editor's Run, or a link's rtapp key), "shared"
	// (the shared scenario's), "" for none.
	Origin string `json:"origin"`
	// InLink says the page's link carries the description (else use Share).
	InLink bool `json:"in_link"`
	// Error is the engine's refusal of the text last run, which is then not
	// running; Line and Col point into it (0: no place).
	Error *TextError `json:"error,omitzero"`
	// Groups are the description's tasks in chip colour order (CSS colour).
	Groups []WorkloadGroup `json:"groups,omitzero"`
	// Arms are each arm's rt-app figures, as of its newest results.
	Arms []WorkloadArm `json:"arms,omitzero"`
}

// TextError is the engine's refusal of a text the page gave it.
type TextError struct {
	Path    string `json:"path,omitzero"`
	Line    int    `json:"line,omitzero"`
	Col     int    `json:"col,omitzero"`
	Message string `json:"message"`
}

// WorkloadGroup is one rt-app task and its chips' colour.
type WorkloadGroup struct {
	Name  string `json:"name"`
	Color string `json:"color"`
}

// WorkloadArm is one arm's rt-app figures.
type WorkloadArm struct {
	Arm      string                    `json:"arm"`
	Tasks    []engine.RTAppTaskResults `json:"tasks"`
	Deadlock string                    `json:"deadlock,omitzero"`
	Ignored  []string                  `json:"ignored,omitzero"`
	// Notes: how the description was read where readers differ, slips,
	// and a run that covers only the start of its global.duration
	// (engine.RTAppResults.Notes).
	Notes []string `json:"notes,omitzero"`
	// Groups is each task group's cpu.stat (taskgroup keys under
	// sched.policy=linux), over the whole run so far.
	Groups []engine.TaskGroupResult `json:"task_groups,omitzero"`
}

// WorkloadExample is one example description the editor offers.
type WorkloadExample struct {
	Name  string `json:"name"`
	Title string `json:"title"`
	Text  string `json:"text"`
}

// setRTApp makes desc sc's workload (see source.withOwn and
// engine.Scenario.UseRTApp, which a lesson's step uses too).
func setRTApp(sc *engine.Scenario, desc string) { sc.UseRTApp(desc) }

// SetWorkload runs desc, an rt-app description, as the scenario's workload
// from time zero: the workload editor's Run. "" takes the page's workload
// away. A description the engine refuses leaves the run as it was; the
// refusal is returned and shown in the editor at its line.
func (m *Model) SetWorkload(desc string) string {
	m.edits++
	m.message = ""
	if len(desc) > engine.MaxRTAppBytes {
		m.workloadErr = &TextError{Message: "the description is " + strconv.Itoa(len(desc)) + " bytes, above the limit " + strconv.Itoa(engine.MaxRTAppBytes)}
		return m.workloadErr.Message
	}
	s, probs, err := m.setup.withOwn(m.setup.src.policy, desc)
	if err != nil {
		m.workloadErr = textError(err.Error())
		return err.Error()
	}
	m.workloadErr = nil
	m.restartWith(s, probs)
	return ""
}

// textError reads the engine's refusal of a description into a TextError:
// "workload.rtapp: PATH: line L col C: why" (engine/rtapp_scenario.go), the
// path left out when the error is about the whole file. Read by hand, not
// with a regexp, which would add to the page's wasm.
func textError(msg string) *TextError {
	e := &TextError{Message: strings.TrimPrefix(msg, "workload.rtapp: ")}
	head, _, ok := strings.Cut(e.Message, " col ")
	if !ok {
		return e
	}
	path, lineS, ok := strings.Cut(head, "line ")
	rest := e.Message[len(head)+len(" col "):]
	colS, _, ok2 := strings.Cut(rest, ": ")
	line, err1 := strconv.Atoi(lineS)
	col, err2 := strconv.Atoi(colS)
	if !ok || !ok2 || err1 != nil || err2 != nil || line < 1 || col < 1 || (path != "" && !strings.HasSuffix(path, ": ")) {
		return e
	}
	e.Path, e.Line, e.Col = strings.TrimSuffix(path, ": "), line, col
	return e
}

// workloadUI builds the workload editor's section.
func (m *Model) workloadUI() WorkloadUI {
	base := m.setup.base
	u := WorkloadUI{Runs: base.Workload.Kind == engine.WorkloadRTApp, Error: m.workloadErr}
	if u.Runs {
		u.Source = base.Workload.RTApp
		u.Title = RTAppTitle(u.Source)
	}
	switch {
	case m.setup.src.rtapp != "":
		u.Origin = "page"
		u.InLink = m.ownInLink("rtapp")
	case u.Runs && m.setup.src.shared:
		u.Origin, u.InLink = "shared", true
	}
	if !u.Runs {
		return u
	}
	if d, err := rtapp.Decode([]byte(u.Source)); err == nil {
		for i, t := range d.Tasks {
			u.Groups = append(u.Groups, WorkloadGroup{Name: t.Name, Color: m.pal.GroupColor(i + 1).CSS()})
		}
	}
	for i, a := range m.arms {
		res := a.results
		if a.inWarmup {
			res = a.warmup
		}
		r := res.RTApp
		wa := WorkloadArm{Arm: string(rune('A' + i)), Tasks: r.Tasks, Ignored: r.Ignored, Notes: r.Notes, Groups: res.TaskGroups}
		if d := r.Deadlock; len(d.Threads) > 0 {
			var parts []string
			for _, t := range d.Threads {
				parts = append(parts, t.Thread+" on "+t.On)
			}
			wa.Deadlock = "deadlock at " + view.Duration(d.AtMs*1e6) + ": " + strings.Join(parts, ", ")
		}
		u.Arms = append(u.Arms, wa)
	}
	return u
}

// ownInLink reports whether the page's link carries its own text under key
// (policy or rtapp): a lesson's link names its step, which carries it.
func (m *Model) ownInLink(key string) bool {
	st := m.urlState()
	if st.Policy == "" && st.RTApp == "" {
		return true
	}
	return strings.Contains(m.Fragment(), "&"+key+"=")
}

// RTAppTitle names an rt-app description by the first sentence of its
// opening comment (rt-app files open with a /* */ block or // lines), or
// "rt-app workload".
func RTAppTitle(desc string) string {
	var words []string
	for line := range strings.Lines(desc) {
		line = strings.TrimSpace(line)
		line = strings.TrimLeft(line, "{/* ")
		line = strings.TrimSpace(strings.TrimSuffix(line, "*/"))
		if line == "" {
			if len(words) > 0 {
				break // the comment's first paragraph ends
			}
			continue
		}
		if strings.HasPrefix(line, `"`) {
			break // a key: the comment is over
		}
		words = append(words, line)
		if strings.Contains(line, ". ") || strings.HasSuffix(line, ".") {
			break
		}
	}
	if len(words) == 0 {
		return "rt-app workload"
	}
	title := strings.Join(words, " ")
	if i := strings.Index(title, ". "); i > 0 {
		title = title[:i+1]
	}
	return view.Clip(title, 80)
}

// rtappLabel sizes an rt-app workload for a pane's title: its tasks and
// threads ("rt-app: 4 tasks, 5 threads").
func rtappLabel(desc string) string {
	d, err := rtapp.Decode([]byte(desc))
	if err != nil {
		return "rt-app"
	}
	threads := 0
	for _, t := range d.Tasks {
		threads += t.Instance
	}
	return fmt.Sprintf("rt-app: %d tasks, %d threads", len(d.Tasks), threads)
}

// workloadExamples lists the example descriptions (Meta.Workloads).
func workloadExamples() []WorkloadExample {
	var out []WorkloadExample
	for _, ex := range rtappex.Examples() {
		out = append(out, WorkloadExample{Name: ex.Name, Title: RTAppTitle(ex.Text), Text: ex.Text})
	}
	return out
}

// chipGroups maps an rt-app arm's threads to their task's chip colour
// group (view.Chip.Group): thread names are "task-instance" (the engine's
// rt-app workload), tasks numbered in the description's order.
func (a *Arm) chipGroup(t engine.ThreadSnap) int {
	if a.Sc.Workload.Kind != engine.WorkloadRTApp || t.Role != engine.RoleWorker {
		return 0
	}
	if a.groups == nil {
		a.groups = map[string]int{}
		if d, err := rtapp.Decode([]byte(a.Sc.Workload.RTApp)); err == nil {
			for i, tk := range d.Tasks {
				a.groups[tk.Name] = i + 1
			}
		}
	}
	task := t.Name
	if i := strings.LastIndexByte(task, '-'); i > 0 {
		task = task[:i]
	}
	return a.groups[task]
}

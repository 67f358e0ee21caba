package main

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"schedplay/playground/lesson"
)

// cmdLessons: schedplay lessons [NAME] — the lessons for a classroom
// (examples/lessons), one line each, or one lesson's steps. Each lesson is
// checked against the presets it names, so a broken one is listed as such
// rather than failing in front of a class.
func (a *app) cmdLessons(args []string) error {
	fs0 := a.newFlagSet("lessons", "[NAME]")
	pos, err := parse(fs0, args, a)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return wantArgs(fs0, pos, "NAME")
	}
	ls, errs := lesson.Load(a.lessons)
	presetData := func(name string) ([]byte, bool) {
		data, err := fs.ReadFile(a.examples, name+".json")
		return data, err == nil
	}
	if len(pos) == 1 {
		l, ok := lesson.Find(ls, pos[0])
		if !ok {
			for _, err := range errs {
				if fe := (*lesson.FileError)(nil); errors.As(err, &fe) && fe.Name == pos[0] {
					return err
				}
			}
			return fmt.Errorf("there is no lesson %q (see schedplay lessons)", pos[0])
		}
		if err := l.Check(presetData); err != nil {
			return fmt.Errorf("%s: %w", l.Name, err)
		}
		_, err := fmt.Fprint(a.stdout, lessonSteps(l))
		return err
	}
	t := table{}
	t.add("lesson", "steps", "preset", "title")
	for _, l := range ls {
		title := l.Title
		if err := l.Check(presetData); err != nil {
			title = "(invalid: " + err.Error() + ")"
		}
		t.add(l.Name, fmt.Sprint(len(l.Steps)), l.Preset, title)
	}
	for _, err := range errs {
		name := "?"
		if fe := (*lesson.FileError)(nil); errors.As(err, &fe) {
			name, err = fe.Name, fe.Err
		}
		t.add(name, "", "", "(invalid: "+err.Error()+")")
	}
	var b strings.Builder
	t.write(&b)
	b.WriteString("\nOpen one in the playground with #lesson=NAME (schedplay serve); schedplay lessons NAME lists its steps.\n")
	_, err = fmt.Fprint(a.stdout, b.String())
	return err
}

// lessonSteps describes a lesson step by step: where each stops, what it
// points at, and its caption as written (numbers still placeholders: the run
// fills them).
func lessonSteps(l lesson.Lesson) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n%s\n\n", l.Name, l.Title, l.Summary)
	t := table{}
	t.add("step", "scenario", "stops", "points at", "caption")
	for i, st := range l.Steps {
		s := l.Setup(i)
		scenario := s.Preset
		if s.Compare != "" {
			scenario += ", compare " + s.Compare
		}
		if s.RTApp != "" {
			scenario += ", rt-app " + rtappExample(l, i)
		}
		if p := st.Policy; p != nil {
			scenario += ", policy " + p.Example
			if n := len(p.Replace); n > 0 {
				scenario += fmt.Sprintf(" (edits: %d)", n)
			}
		}
		stop := "at " + st.At
		if u := st.Until; u != nil {
			stop = fmt.Sprintf("first %s in %c", u.Event, 'A'+u.ArmIndex)
			if u.Event == "done" {
				stop = fmt.Sprintf("when %c's workload ends", 'A'+u.ArmIndex)
			}
			if u.After != "" {
				stop += " after " + u.After
			}
			if u.Within != "" {
				stop += " within " + u.Within
			}
		}
		t.add(fmt.Sprint(i+1), scenario, stop, highlightWords(st.Highlight), st.Caption)
	}
	t.write(&b)
	return b.String()
}

func highlightWords(h *lesson.Highlight) string {
	if h == nil {
		return ""
	}
	arm := string(rune('A' + h.ArmIndex))
	switch {
	case h.Event:
		return "the event's vCPU"
	case h.CPU != nil:
		return fmt.Sprintf("%s vCPU %d", arm, *h.CPU)
	case h.Thread != nil:
		return fmt.Sprintf("%s thread %d", arm, *h.Thread)
	}
	return arm + " " + h.Role
}

// rtappExample names the rt-app example step i (0-based) of l runs: the
// last set since the last step that named a preset.
func rtappExample(l lesson.Lesson, i int) string {
	name := ""
	for _, st := range l.Steps[:i+1] {
		if st.Preset != "" {
			name = ""
		}
		if st.Workload != nil {
			name = st.Workload.Example
		}
	}
	return name
}

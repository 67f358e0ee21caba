package playground_test

import (
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"schedplay/playground"
	"schedplay/playground/lesson"
	"schedplay/playground/runner"
	"schedplay/scxstar"
)

// lessonModel is a model over the shipped presets and lessons, in process.
func lessonModel(t *testing.T, frag string) *playground.Model {
	t.Helper()
	ps, probs := playground.BuiltinPresets()
	ls, errs := lesson.Builtin()
	if len(probs) > 0 || len(errs) > 0 {
		t.Fatalf("presets %v, lessons %v", probs, errs)
	}
	c := &fakeClock{step: 0.01}
	// A lesson step may run its own policy: the page then moves to the policy
	// workers, which link the Starlark binding (the test links it here; the
	// playground itself does not).
	policyRunner := func() (runner.Runner, string) {
		l := runner.NewLocal(c.read)
		l.SetCompiler(scxstar.CompilerNamed(playground.PolicyFile))
		return l, "local (policy)"
	}
	return playground.New(playground.Options{Presets: ps, Lessons: ls, Clock: c.read, BudgetMs: 5, Runner: runner.NewLocal(c.read),
		PolicyRunner: policyRunner, Fragment: frag})
}

// untilSettled runs frames until the open step is no longer running and returns
// its panel.
func untilSettled(t *testing.T, m *playground.Model) playground.LessonState {
	t.Helper()
	for i := 1; ; i++ {
		u := playground.LessonPanel(m)
		if u.State != "running" {
			return u
		}
		if i > 200_000 {
			t.Fatalf("step %d still running after 200 000 frames: %s", u.Step, u.Status)
		}
		m.Update(float64(i) * 16)
	}
}

// captionText is a filled caption as one string, and whether every number in
// it was filled.
func captionText(u playground.LessonState) (string, bool) {
	var b strings.Builder
	filled := true
	for _, s := range u.Caption {
		b.WriteString(s.Text)
		filled = filled && !(s.Value && s.Text == lesson.Unfilled)
	}
	return b.String(), filled
}

// Every step of every lesson shipped decodes, reaches its moment through the
// view model and an in-process runner, and fills all of its numbers; the URL
// then names the lesson and step alone, and opening that URL afresh shows the
// same numbers (the run is deterministic, whichever way the step was reached).
func TestLessonsPlay(t *testing.T) {
	ls, _ := lesson.Builtin()
	for _, l := range ls {
		t.Run(l.Name, func(t *testing.T) {
			m := lessonModel(t, "#v=1&lesson="+l.Name)
			for n := 1; n <= len(l.Steps); n++ {
				if n > 1 {
					if msg := m.Set("step", strconv.Itoa(n)); msg != "" {
						t.Fatalf("step %d: %s", n, msg)
					}
				}
				u := untilSettled(t, m)
				text, filled := captionText(u)
				if u.State != "reached" || u.Status != "" || !filled {
					t.Errorf("step %d: %s (%q): %q", n, u.State, u.Status, text)
				}
				st := m.State()
				step := l.Steps[n-1]
				switch {
				case step.Until == nil && st.NowNs != step.AtNs:
					t.Errorf("step %d stopped at %d ns, want %s", n, st.NowNs, step.At)
				case step.Until != nil && st.NowNs <= step.Until.AfterNs:
					t.Errorf("step %d stopped at %d ns, before it starts looking (%s)", n, st.NowNs, step.Until.After)
				}
				if !slices.ContainsFunc(playground.Speeds(), func(o playground.Option) bool { return o.Value == st.Speed }) {
					t.Errorf("step %d: the speed %q is not one the picker offers", n, st.Speed)
				}
				if want := "v=1&lesson=" + l.Name + "&step=" + strconv.Itoa(n); st.Fragment != want {
					t.Errorf("step %d: fragment %q, want %q", n, st.Fragment, want)
				}
				if step.Highlight != nil {
					if st.Selected.CPU < 0 {
						t.Errorf("step %d highlights nothing", n)
					}
					for i := 0; i < 10 && strings.Contains(m.Explain(), "looking up"); i++ {
						m.Update(float64(1e6 + i*16))
					}
					if e := m.Explain(); e == "" || strings.Contains(e, "looking up") || strings.Contains(e, "no scheduling decision") {
						t.Errorf("step %d explains its highlight as %q", n, e)
					}
				}
				// Replaying every step from its link doubles the test's cost: under
				// js/wasm (a few times slower) the native run's check stands.
				if testing.Short() || runtime.GOOS == "js" {
					continue
				}
				fresh := lessonModel(t, "#"+st.Fragment)
				again, _ := captionText(untilSettled(t, fresh))
				if again != text || fresh.State().NowNs != st.NowNs {
					t.Errorf("step %d opened from its link:\n got %q at %d ns\nwant %q at %d ns", n, again, fresh.State().NowNs, text, st.NowNs)
				}
			}
		})
	}
}

// Going back runs the run again from zero to the earlier step and shows what
// going forward showed; changing a knob takes the lesson off script (numbers
// gone, the URL keeps the knob), a link to that reopens it so, and going to the
// step again returns to the script.
func TestLessonScript(t *testing.T) {
	m := lessonModel(t, "#v=1&lesson=wake-sync&step=2&theme=light")
	first, _ := captionText(untilSettled(t, m))
	m.Set("step", "3")
	untilSettled(t, m)
	if msg := m.Set("step", "2"); msg != "" {
		t.Fatal(msg)
	}
	u := untilSettled(t, m)
	if back, _ := captionText(u); back != first || u.State != "reached" {
		t.Errorf("back at step 2: %s %q, want %q", u.State, back, first)
	}
	if st := m.State(); st.Fragment != "v=1&lesson=wake-sync&step=2&theme=light" {
		t.Errorf("fragment %q", st.Fragment)
	}

	m.Set("machine.vcpus", "4")
	m.Update(5e6)
	u = playground.LessonPanel(m)
	frag := m.State().Fragment
	if text, filled := captionText(u); u.State != "off-script" || filled || !strings.Contains(text, lesson.Unfilled) {
		t.Errorf("after a knob change: %s, %q", u.State, text)
	}
	if !strings.Contains(frag, "lesson=wake-sync&step=2") || !strings.Contains(frag, "machine.vcpus=4") || !strings.Contains(frag, "preset=hackbench") {
		t.Errorf("off script, the fragment %q lacks the lesson or the scenario", frag)
	}
	reopened := lessonModel(t, "#"+frag)
	reopened.Update(16)
	if u := playground.LessonPanel(reopened); u.State != "off-script" || u.Step != 2 || reopened.State().Scenario == nil || len(reopened.State().CPUs) != 4 {
		t.Errorf("the off-script link reopens %s at step %d with %d vCPUs", u.State, u.Step, len(reopened.State().CPUs))
	}
	m.Set("step", "2")
	if u := untilSettled(t, m); u.State != "reached" || len(m.State().CPUs) != 8 {
		t.Errorf("step 2 again: %s with %d vCPUs", u.State, len(m.State().CPUs))
	}
	if m.Set("lesson", ""); playground.LessonPanel(m).Open || strings.Contains(m.State().Fragment, "lesson") {
		t.Errorf("closed, the lesson still shows: %+v, %q", playground.LessonPanel(m), m.State().Fragment)
	}
}

// Bad lesson keys are reported by name and the page carries on.
func TestLessonErrors(t *testing.T) {
	tests := []struct {
		desc, frag string
		probs      []string // prefixes, in order
		open       bool
		step       int
	}{
		{"unknown lesson", "#v=1&lesson=nope&step=2", []string{`lesson: there is no lesson "nope"`}, false, 0},
		{"step past the end", "#v=1&lesson=wake-sync&step=9", []string{"step: lesson wake-sync has 6 steps"}, true, 1},
		{"step without a lesson", "#v=1&step=2", []string{"step: needs lesson="}, false, 0},
		{"t with a lesson", "#v=1&lesson=wake-sync&t=2s", []string{"t: a lesson step runs to its own moment"}, true, 1},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			m := lessonModel(t, tc.frag)
			probs := m.Problems()
			if len(probs) != len(tc.probs) {
				t.Fatalf("problems %q, want %q", probs, tc.probs)
			}
			for i, p := range tc.probs {
				if !strings.HasPrefix(probs[i], p) {
					t.Errorf("problem %q, want %q", probs[i], p)
				}
			}
			if u := playground.LessonPanel(m); u.Open != tc.open || u.Step != tc.step {
				t.Errorf("lesson open %v at step %d, want %v at %d", u.Open, u.Step, tc.open, tc.step)
			}
		})
	}
	m := lessonModel(t, "")
	for _, c := range []struct{ key, value, want string }{
		{"step", "2", "step: no lesson is open"},
		{"lesson", "nope", `lesson: there is no lesson "nope"`},
	} {
		if msg := m.Set(c.key, c.value); msg != c.want {
			t.Errorf("Set(%s, %s) = %q, want %q", c.key, c.value, msg, c.want)
		}
	}
	m.Set("lesson", "wake-sync")
	for _, c := range []struct{ value, want string }{{"7", "step: lesson wake-sync has 6 steps"}, {"x", "step: \"x\" is not a step number from 1 to 99"}} {
		if msg := m.Set("step", c.value); msg != c.want {
			t.Errorf("Set(step, %s) = %q, want %q", c.value, msg, c.want)
		}
	}
}

// workerLessonModel is a model over the shipped presets and lessons whose arms
// run in one loopback worker, answering only when the test lets it work.
func workerLessonModel(frag string) (*playground.Model, *runner.Loopback) {
	ps, _ := playground.BuiltinPresets()
	ls, _ := lesson.Builtin()
	c := &fakeClock{step: 0.01}
	l := runner.NewLoopback(1, c.read)
	return playground.New(playground.Options{Presets: ps, Lessons: ls, Clock: c.read, BudgetMs: 5, Runner: l.Remote, Fragment: frag}), l
}

// A pause while a step looks for its event (here in workers that have not yet
// answered) stops the step, and going to it again finds the event.
func TestLessonPausedOnTheWay(t *testing.T) {
	m, l := workerLessonModel("#v=1&lesson=wake-sync&step=3")
	frame := 0
	run := func(work float64, until func(playground.LessonState) bool) playground.LessonState {
		t.Helper()
		for ; frame < 100_000; frame++ {
			if u := playground.LessonPanel(m); until(u) {
				return u
			}
			l.Work(0, work)
			m.Update(float64(frame) * 16)
		}
		t.Fatalf("after %d frames: %+v", frame, playground.LessonPanel(m))
		return playground.LessonState{}
	}
	run(0.5, func(u playground.LessonState) bool { return strings.HasPrefix(u.Status, "Running until") })
	m.Pause()
	if u := run(0.5, func(u playground.LessonState) bool { return u.State != "running" }); u.State != "stopped" {
		t.Errorf("after a pause on the way: %s (%q)", u.State, u.Status)
	}
	m.Set("step", "3")
	if u := run(5, func(u playground.LessonState) bool { return u.State != "running" }); u.State != "reached" {
		t.Errorf("step 3 again: %s (%q)", u.State, u.Status)
	}
}

// Play, RunTo or a jump while a step looks for its event stop the step first:
// the page then runs on from where it is, and its time never goes back (the
// search's answer would otherwise bring the arms back to just after the event,
// behind targets already shown).
func TestLessonSearchInterrupted(t *testing.T) {
	for _, tc := range []struct {
		desc string
		act  func(m *playground.Model)
	}{
		{"play", func(m *playground.Model) { m.Set("speed", "max"); m.Play() }},
		{"run to", func(m *playground.Model) { m.RunTo(3_000_000_000) }},
		{"jump", func(m *playground.Model) { m.JumpTo(3_000_000_000) }},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			m, l := workerLessonModel("#v=1&lesson=wake-sync&step=3")
			frame := 0
			for ; !strings.HasPrefix(playground.LessonPanel(m).Status, "Running until"); frame++ {
				if frame > 100_000 {
					t.Fatalf("the step never started looking: %+v", playground.LessonPanel(m))
				}
				l.Work(0, 0.5)
				m.Update(float64(frame) * 16)
			}
			tc.act(m)
			last := m.State().NowNs
			for end := frame + 400; frame < end; frame++ {
				l.Work(0, 2)
				m.Update(float64(frame) * 16)
				if now := m.State().NowNs; now < last {
					t.Fatalf("frame %d: the page went back from %d ns to %d", frame, last, now)
				} else {
					last = now
				}
			}
			if u := playground.LessonPanel(m); u.State != "stopped" {
				t.Errorf("the step is %s (%q), want stopped", u.State, u.Status)
			}
			if last == 0 {
				t.Error("the page did not move on")
			}
		})
	}
}

// Going back a step shows it as going forward did: its own moment, and the
// speed it (or the last step before it) set, not the speed of the step left.
// The URL says the same either way.
func TestLessonBackIsForward(t *testing.T) {
	ls, _ := lesson.Builtin()
	for _, l := range ls {
		t.Run(l.Name, func(t *testing.T) {
			last := len(l.Steps)
			forward := lessonModel(t, "#v=1&lesson="+l.Name+"&step="+strconv.Itoa(last-1))
			untilSettled(t, forward)
			want := forward.State()
			m := lessonModel(t, "#v=1&lesson="+l.Name+"&step="+strconv.Itoa(last))
			untilSettled(t, m)
			if msg := m.Set("step", strconv.Itoa(last-1)); msg != "" {
				t.Fatal(msg)
			}
			untilSettled(t, m)
			got := m.State()
			if got.Fragment != want.Fragment || got.Speed != want.Speed || got.NowNs != want.NowNs {
				t.Errorf("back to step %d: fragment %q, speed %q at %d ns; forward gives %q, %q at %d ns",
					last-1, got.Fragment, got.Speed, got.NowNs, want.Fragment, want.Speed, want.NowNs)
			}
		})
	}
}

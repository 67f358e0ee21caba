package playground_test

import (
	"io/fs"
	"strconv"
	"testing"

	"schedplay/engine"
	"schedplay/examples"
	"schedplay/playground/lesson"
)

// TestLessonArmsAreThePagesArms: a lesson is checked by the code that runs it.
// At every step of every lesson shipped, the scenarios lesson.Check resolves
// (Setup.Arms) are the scenarios the page's arms run.
func TestLessonArmsAreThePagesArms(t *testing.T) {
	ls, _ := lesson.Builtin()
	canonical := func(sc engine.Scenario) string {
		t.Helper()
		sc.Arms = nil // the page names compared knobs after their controls
		b, err := sc.Canonical()
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, l := range ls {
		for i := range l.Steps {
			s := l.Setup(i)
			data, err := fs.ReadFile(examples.FS, s.Preset+".json")
			if err != nil {
				t.Fatal(err)
			}
			want, err := s.Arms(data)
			if err != nil {
				t.Fatalf("%s step %d: %v", l.Name, i+1, err)
			}
			m := lessonModel(t, "#v=1&lesson="+l.Name+"&step="+strconv.Itoa(i+1))
			got := m.Arms()
			if len(got) != len(want) {
				t.Errorf("%s step %d: the page runs %d arms, the check resolved %d", l.Name, i+1, len(got), len(want))
				continue
			}
			for j := range got {
				if a, b := canonical(got[j].Sc), canonical(want[j]); a != b {
					t.Errorf("%s step %d arm %d: the page runs\n%s\nthe check resolved\n%s", l.Name, i+1, j, a, b)
				}
			}
		}
	}
}

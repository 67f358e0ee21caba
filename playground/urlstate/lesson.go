package urlstate

// Lessons: lesson=NAME&step=N opens a lesson (examples/lessons/NAME.json) at its
// Nth step, counted from 1 as the page shows it.

import (
	"fmt"
	"strconv"
)

// MaxLessonStep bounds step=: longer than any lesson (package lesson allows 40
// steps), short enough to quote.
const MaxLessonStep = 99

// ParseLessonStep reads step=: a whole number from 1 to MaxLessonStep.
func ParseLessonStep(tok string) (int, error) {
	n, err := strconv.Atoi(tok)
	if err != nil || n < 1 || n > MaxLessonStep || strconv.Itoa(n) != tok {
		return 0, fmt.Errorf("%s is not a step number from 1 to %d", quote(tok), MaxLessonStep)
	}
	return n, nil
}

// setLessonKey applies lesson= or step=.
func (st *State) setLessonKey(key, val string) (Problem, bool) {
	if key == "lesson" {
		if !validName(val) {
			return Problem{key, fmt.Sprintf("%s is not a lesson name", quote(val))}, false
		}
		st.View.Lesson = val
		return Problem{}, true
	}
	n, err := ParseLessonStep(val)
	if err != nil {
		return Problem{key, err.Error()}, false
	}
	st.View.LessonStep = n
	return Problem{}, true
}

// checkLesson reports a step= without a lesson= (it is dropped).
func (st *State) checkLesson() (Problem, bool) {
	if st.View.LessonStep > 0 && st.View.Lesson == "" {
		st.View.LessonStep = 0
		return Problem{"step", "needs lesson=NAME; ignored"}, false
	}
	return Problem{}, true
}

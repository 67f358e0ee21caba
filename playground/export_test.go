package playground

// LessonPanel is the lesson panel with its caption as the page is given it,
// fresh: the lesson tests read it every frame, where State would build the
// whole document.
func LessonPanel(m *Model) LessonState {
	return LessonState{m.lesson.view(m), m.lesson.captionUI()}
}

// EffSpeed is the speed achieved as the clock shows it, in simulated ns per
// wall second.
func EffSpeed(m *Model) float64 { return m.time.effSpeed }

// Marks is how many saved states of arm a the model knows of.
func Marks(a *Arm) int { return len(a.marks) }

// FormatResult writes a result as a caption's placeholder shows it.
func FormatResult(path string, v float64) string { return formatResult(path, v) }

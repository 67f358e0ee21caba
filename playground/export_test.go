package playground

// LessonPanel is the lesson panel with its caption as the page is given it,
// fresh: the lesson tests read it every frame, where State would build the
// whole document.
func LessonPanel(m *Model) LessonState {
	return LessonState{m.lesson.view(m), m.lesson.captionUI()}
}

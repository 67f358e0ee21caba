package playground

import "testing"

// The engine's refusal of a description is read for its key path and place.
func TestTextError(t *testing.T) {
	for _, tc := range []struct {
		msg        string
		path       string
		line, col  int
		wantPrefix string
	}{
		{"workload.rtapp: tasks.t.run: line 12 col 9: want an integer", "tasks.t.run", 12, 9, "tasks.t.run: line 12"},
		{"workload.rtapp: line 3 col 1: unexpected end", "", 3, 1, "line 3 col 1"},
		{"workload.rtapp: is empty: workload.kind", "", 0, 0, "is empty"},
		{"workload.rtapp: tasks.t: line x col 2: odd", "", 0, 0, "tasks.t: line x"},
	} {
		e := textError(tc.msg)
		if e.Path != tc.path || e.Line != tc.line || e.Col != tc.col || e.Message[:len(tc.wantPrefix)] != tc.wantPrefix {
			t.Errorf("textError(%q) = %+v", tc.msg, e)
		}
	}
}

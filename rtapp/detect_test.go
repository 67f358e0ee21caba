package rtapp

import "testing"

func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want bool
	}{
		{`{"tasks": {"t": {"run": 1}}}`, true},
		{"/* rt-app */ {\"global\": {}, \"tasks\": {\"t\": {\"run\": 1,},},}", true},
		{`{"tasks": {"t": {"run": "bad"}}}`, true}, // Decode reports what is wrong
		{`{"version": 1, "tasks": {}}`, false},
		{`{"version": 1, "workload": {"kind": "idle"}}`, false},
		{`{"tasks": []}`, false},
		{`[]`, false},
		{`{"tasks": {`, false},
		{``, false},
	} {
		if got := Detect([]byte(tc.src)); got != tc.want {
			t.Errorf("Detect(%q) = %v, want %v", tc.src, got, tc.want)
		}
	}
}

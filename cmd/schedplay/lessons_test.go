package main

import (
	"strings"
	"testing"

	"schedplay/examples"
	"schedplay/examples/lessons"
)

// TestLessonsCommand: schedplay lessons lists the lessons with their steps and
// preset, a lesson that would not run as "(invalid: ...)" naming its step and
// field, and one lesson's steps with where each stops and what it points at.
func TestLessonsCommand(t *testing.T) {
	tests := []struct {
		desc     string
		args     []string
		code     int
		out, err []string
	}{
		{"list", []string{"lessons"}, 0, []string{
			`broken (invalid: step 1: at: "1 s" is not a moment`,
			"far 2 ab (invalid: step 2: highlight.cpu: the machine has 4 vCPUs)",
			"tour 2 ab A tour",
			"#lesson=NAME"}, nil},
		{"steps", []string{"lessons", "tour"}, 0, []string{
			"tour: A tour",
			"1 ab at 100ms B vCPU 1 {throughput_per_s} against {arm.B.throughput_per_s}",
			"2 ab first halt in B after 60ms within 10ms the first halt"}, nil},
		{"broken", []string{"lessons", "broken"}, 2, nil, []string{`schedplay: broken.json: step 1: at: "1 s" is not a moment`}},
		{"would not run", []string{"lessons", "far"}, 2, nil, []string{"schedplay: far: step 2: highlight.cpu: the machine has 4 vCPUs"}},
		{"unknown", []string{"lessons", "nope"}, 2, nil, []string{`schedplay: there is no lesson "nope"`}},
		{"two names", []string{"lessons", "tour", "far"}, 2, nil, []string{`schedplay: lessons: unexpected argument "far"`}},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			a := newTestApp(t, fakeSim)
			if code := a.main(tc.args); code != tc.code {
				t.Errorf("exit %d, want %d\nstdout %s\nstderr %s", code, tc.code, a.out, a.errOut)
			}
			// Columns are padded to their widths: compare words, not spaces.
			out := strings.Join(strings.Fields(a.out.String()), " ")
			for _, s := range tc.out {
				if !strings.Contains(out, s) {
					t.Errorf("stdout lacks %q:\n%s", s, a.out)
				}
			}
			for _, s := range tc.err {
				if !strings.Contains(a.errOut.String(), s) {
					t.Errorf("stderr lacks %q:\n%s", s, a.errOut)
				}
			}
		})
	}
}

// The lessons shipped are listed, none of them invalid.
func TestLessonsShipped(t *testing.T) {
	a := newTestApp(t, fakeSim)
	a.examples, a.lessons = examples.FS, lessons.FS
	if code := a.main([]string{"lessons"}); code != 0 || strings.Contains(a.out.String(), "invalid") {
		t.Fatalf("exit %d:\n%s%s", code, a.out, a.errOut)
	}
	for _, name := range []string{"fan-out", "spin-or-halt", "wake-sync", "spread", "cores-and-caches"} {
		if !strings.Contains(a.out.String(), name+" ") {
			t.Errorf("the list lacks %s:\n%s", name, a.out)
		}
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"schedplay/engine"
)

// TestGroupFlag: --group sets a task group's cpu.weight and cpu.max for an
// rt-app description's taskgroup keys, and a bad one is refused naming what
// is wrong.
func TestGroupFlag(t *testing.T) {
	file := filepath.Join(t.TempDir(), "groups.json")
	desc := `{"tasks": {"a": {"cpus": [0], "taskgroup": "/a", "loop": -1, "run": 1000}, "b": {"cpus": [0], "taskgroup": "/b", "loop": -1, "run": 1000}}}`
	if err := os.WriteFile(file, []byte(desc), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		groups []string
		want   map[string]float64 // CPUs each group used
		err    string
	}{
		{"weights", []string{"/a,weight=300"}, map[string]float64{"/a": 0.75, "/b": 0.25}, ""},
		{"a quota", []string{"/b,max=10000/100000"}, map[string]float64{"/a": 0.9, "/b": 0.1}, ""},
		{"the last of a path counts", []string{"/a,weight=300", "/a,weight=100"}, map[string]float64{"/a": 0.5, "/b": 0.5}, ""},
		{"an unknown key", []string{"/a,nice=3"}, nil, `"nice": a group takes weight and max`},
		{"a weight out of range", []string{"/a,weight=20000"}, nil, "sched.groups[0].weight"},
		{"a quota too small", []string{"/a,max=10/100000"}, nil, "sched.groups[0].max_us"},
		{"not a number", []string{"/a,max=lots"}, nil, `max's quota (µs) "lots" is not a whole number`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newTestApp(t, engine.Run)
			args := []string{"run", file, "--format", "json", "--set", "duration_ms=2000", "--set", "machine.vcpus=1"}
			for _, g := range tc.groups {
				args = append(args, "--group", g)
			}
			code := a.main(args)
			if tc.err != "" {
				if code == 0 || !strings.Contains(a.errOut.String(), tc.err) {
					t.Fatalf("exit %d, stderr %q: want a refusal with %q", code, a.errOut, tc.err)
				}
				return
			}
			if code != 0 {
				t.Fatalf("exit %d: %s", code, a.errOut)
			}
			var res engine.Results
			if err := json.Unmarshal(a.out.Bytes(), &res); err != nil {
				t.Fatal(err)
			}
			for _, g := range res.TaskGroups {
				if want := tc.want[g.Path]; g.CPUFrac < want-0.02 || g.CPUFrac > want+0.02 {
					t.Errorf("group %s used %.3f CPUs, want %.2f", g.Path, g.CPUFrac, want)
				}
			}
			if len(res.TaskGroups) != 2 {
				t.Errorf("groups %+v, want /a and /b", res.TaskGroups)
			}
		})
	}
}

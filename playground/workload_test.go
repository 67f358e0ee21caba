package playground_test

import (
	"strings"
	"testing"

	"schedplay/playground"
)

func workloadUI(t *testing.T, m *playground.Model) playground.WorkloadUI {
	t.Helper()
	s := m.Snapshot(0)
	if s.Workload == nil {
		t.Fatal("the snapshot has no workload section")
	}
	return *s.Workload
}

const twoTasks = `{
	/* Two periodic tasks. */
	"global": {"duration": 1},
	"tasks": {
		"tick": {"run": 1000, "timer": {"ref": "unique", "period": 10000}},
		"tock": {"instance": 2, "run": 2000, "timer": {"ref": "unique", "period": 20000}}
	}
}`

// Run of an rt-app description makes it the workload of every arm, from
// time zero, for as long as it says; the link carries it, so a reload runs
// it to the same numbers; the per-task figures come back per arm.
func TestYourOwnWorkload(t *testing.T) {
	m, _ := newModel(t, "#v=1&preset=small")
	if msg := m.SetWorkload(twoTasks); msg != "" {
		t.Fatal(msg)
	}
	u := workloadUI(t, m)
	if !u.Runs || u.Origin != "page" || !u.InLink || u.Title != "Two periodic tasks." || len(u.Groups) != 2 || u.Error != nil {
		t.Fatalf("after Run: %+v", u)
	}
	st := m.State()
	if st.EndNs != 1e9 || len(st.Arms) != 2 {
		t.Fatalf("the run lasts %d ns in %d arms; want the description's 1 s, the preset's two arms", st.EndNs, len(st.Arms))
	}
	frag := m.Fragment()
	if !strings.Contains(frag, "&rtapp=") {
		t.Fatalf("fragment %q carries no description", frag)
	}
	again, _ := newModel(t, "#"+frag)
	linkRunsTheSame(t, m, again, 200e6)
	u = workloadUI(t, m)
	if len(u.Arms) != 2 || len(u.Arms[0].Tasks) != 2 || u.Arms[0].Tasks[1].Threads != 2 || u.Arms[0].Tasks[0].Loops < 10 {
		t.Errorf("per-task figures %+v", u.Arms)
	}
}

// A description the engine refuses is not run: the run before stays, and
// the refusal names the key, its line and column.
func TestWorkloadRefused(t *testing.T) {
	m, _ := newModel(t, "#v=1&preset=small")
	if msg := m.SetWorkload(twoTasks); msg != "" {
		t.Fatal(msg)
	}
	bad := strings.Replace(twoTasks, `"run": 2000`, `"run": "long"`, 1)
	msg := m.SetWorkload(bad)
	u := workloadUI(t, m)
	if msg == "" || u.Error == nil || u.Error.Path != "tasks.tock.run" || u.Error.Line != 6 || u.Error.Col == 0 {
		t.Fatalf("SetWorkload = %q, error %+v; want tasks.tock.run at line 6", msg, u.Error)
	}
	if u.Source != twoTasks {
		t.Error("the refused description replaced the one running")
	}
	if msg := m.SetWorkload(twoTasks); msg != "" || workloadUI(t, m).Error != nil {
		t.Errorf("a good Run after a refused one: %q, error %+v", msg, workloadUI(t, m).Error)
	}
}

// An rt-app description is named by its opening comment's first sentence.
func TestRTAppTitle(t *testing.T) {
	for _, tc := range []struct{ desc, want string }{
		{"{\n\t/*\n\t * A group: four workers compute a step of uneven\n\t * length, then meet. More here.\n\t */\n\t\"tasks\": {}}", "A group: four workers compute a step of uneven length, then meet."},
		{"// Two tasks. Then more.\n{\"tasks\": {}}", "Two tasks."},
		{"{\"tasks\": {}} // after", "rt-app workload"},
		{"{\n  /* no full stop */\n  \"tasks\": {}}", "no full stop"},
	} {
		if got := playground.RTAppTitle(tc.desc); got != tc.want {
			t.Errorf("RTAppTitle(%.30q) = %q, want %q", tc.desc, got, tc.want)
		}
	}
}

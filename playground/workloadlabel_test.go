package playground

import (
	"testing"

	"schedplay/engine"
)

// An arm's title says how big its workload is in the workload's own terms.
func TestWorkloadLabel(t *testing.T) {
	for _, tc := range []struct {
		desc, kind string
		clients    int
		want       string
		rtapp      string
	}{
		{"a request server's clients", engine.WorkloadRequestServer, 64, "64 clients", ""},
		{"durable writers", engine.WorkloadCommit, 8, "8 writers", ""},
		{"a thread per connection: its connections", engine.WorkloadThreadPerConn, 4, "4 connections", ""},
		{"an idle guest", engine.WorkloadIdle, 0, "idle", ""},
		{"an rt-app description: its tasks and threads", engine.WorkloadRTApp, 0, "rt-app: 2 tasks, 4 threads",
			`{"tasks": {"a": {"instance": 3, "run": 10}, "b": {"run": 10}}}`},
		{"an rt-app description that does not decode", engine.WorkloadRTApp, 0, "rt-app", `{"tasks": `},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			sc := engine.DefaultScenario()
			sc.Workload.Kind, sc.Workload.Clients, sc.Workload.RTApp = tc.kind, tc.clients, tc.rtapp
			if got := workloadLabel(sc); got != tc.want {
				t.Errorf("workloadLabel = %q, want %q", got, tc.want)
			}
		})
	}
}

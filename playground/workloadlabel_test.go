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
	}{
		{"a request server's clients", engine.WorkloadRequestServer, 64, "64 clients"},
		{"durable writers", engine.WorkloadCommit, 8, "8 writers"},
		{"a thread per connection: its connections", engine.WorkloadThreadPerConn, 4, "4 connections"},
		{"an idle guest", engine.WorkloadIdle, 0, "idle"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			sc := engine.DefaultScenario()
			sc.Workload.Kind, sc.Workload.Clients = tc.kind, tc.clients
			if got := workloadLabel(sc); got != tc.want {
				t.Errorf("workloadLabel = %q, want %q", got, tc.want)
			}
		})
	}
}

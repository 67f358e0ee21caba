package main

import (
	"fmt"

	"github.com/go-json-experiment/json"

	"schedplay/engine"
	"schedplay/rtapp"
)

// An rt-app file (github.com/scheduler-tools/rt-app) may be given where a
// scenario is expected: "schedplay run my-rtapp.json". A document is one when
// its top-level object has a "tasks" object and no "version" (rtapp.Detect);
// it is then wrapped in a scenario with workload.kind=rtapp, and --set
// applies to that scenario ("--set machine.vcpus=8"). The wrapper's
// defaults are engine.DefaultScenario's (its platform costs and scheduler
// settings) except:
//
//   - machine.vcpus 4: rt-app descriptions name few CPUs; a "cpus" list
//     naming CPU 4 or above needs --set machine.vcpus=N;
//   - sched.policy linux: rt-app is a Linux tool;
//   - warmup_ms 0: rt-app's figures cover the whole run;
//   - duration_ms 1000 × global.duration when the file sets it above 0
//     (engine/rtapp_scenario.go: rt-app lives that long), up to the CLI's
//     limit, engine.MaxCLIDurationMs (the results say when the run covers
//     only the start), else the default scenario's 2000 ms.
//
// Errors in the file are reported as the scenario's, on workload.rtapp:
// "my.json: workload.rtapp: tasks.t.run: line 3 col 10: ...".

// rtappDefaultVCPUs is the wrapper's machine.vcpus.
const rtappDefaultVCPUs = 4

// wrapRTApp returns the scenario document that runs the rt-app file data.
func wrapRTApp(data []byte, name string) ([]byte, error) {
	sc := engine.DefaultScenario()
	sc.Name = name
	sc.Description = "rt-app file " + name
	sc.Machine.VCPUs = rtappDefaultVCPUs
	sc.Sched.Policy = "linux"
	sc.WarmupMs = 0
	if d, err := rtapp.Decode(data); err == nil && d.Global.Duration > 0 {
		// An error is left for Validate to report with its position.
		sc.DurationMs = min(int64(d.Global.Duration)*1000, engine.MaxCLIDurationMs)
	}
	// The other workload fields keep their defaults, which rtapp ignores.
	sc.Workload.Kind, sc.Workload.RTApp = engine.WorkloadRTApp, string(data)
	out, err := json.Marshal(sc)
	if err != nil {
		return nil, fmt.Errorf("wrapping the rt-app file: %w", err)
	}
	return out, nil
}

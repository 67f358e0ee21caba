package playground

// Trace downloads: the page saves the current window of an arm as the Chrome
// trace JSON `schedplay run --trace` writes, for Perfetto. The model only says
// which window and writes the job; a worker of the page's own re-runs the arm
// and writes the trace (runner.TraceJob, wasm/worker).

import (
	"fmt"
	"strings"

	"schedplay/playground/runner"
	"schedplay/playground/urlstate"
	"schedplay/view"
)

// TraceWindowNs is how much simulated time a downloaded trace covers, up to the
// moment shown: enough for a few hundred requests and every IPI between them,
// and 3 to 4 MB at 32 busy vCPUs (package trace measures 300-400 KB per ms).
const TraceWindowNs = 10_000_000

// TraceUI describes the trace download: one button per arm.
type TraceUI struct {
	Arms []TraceArm `json:"arms"`
	// Disabled says why nothing can be traced yet ("" when it can).
	Disabled string `json:"disabled,omitzero"`
}

// TraceArm is one arm's download.
type TraceArm struct {
	Label string `json:"label"`
	// Window is the simulated time the trace covers ("0.990 s to 1.000 s").
	Window   string `json:"window"`
	Disabled string `json:"disabled,omitzero"`
}

// traceWindow is arm a's window: TraceWindowNs up to where it stands (a finished
// arm stands where its workload ended).
func traceWindow(a *Arm) (from, until int64) {
	until = a.NowNs()
	return max(until-TraceWindowNs, 0), until
}

// traceUI describes the download buttons.
func (m *Model) traceUI() TraceUI {
	var u TraceUI
	for i, a := range m.arms {
		from, until := traceWindow(a)
		ta := TraceArm{Label: "Download trace", Window: view.SimTime(from) + " to " + view.SimTime(until)}
		if len(m.arms) > 1 {
			ta.Label = fmt.Sprintf("Trace %c · %s", 'A'+i, a.Name)
		}
		switch {
		case a.err != "":
			ta.Disabled = "the engine refused this arm"
		case until == 0:
			ta.Disabled = "nothing has run yet: play or jump first"
		}
		u.Arms = append(u.Arms, ta)
	}
	if m.refused != "" {
		u.Disabled = "the engine refused this scenario"
	} else if m.pipe.shownNs == 0 {
		u.Disabled = "nothing has run yet: play or jump first"
	}
	return u
}

// TraceJob is the trace job for arm i's window, and the file name to
// save the trace as.
func (m *Model) TraceJob(i int) (job []byte, file string, err error) {
	if i < 0 || i >= len(m.arms) {
		return nil, "", fmt.Errorf("trace: there is no arm %d", i)
	}
	a := m.arms[i]
	if a.err != "" {
		return nil, "", fmt.Errorf("trace: the engine refused arm %c", 'A'+i)
	}
	from, until := traceWindow(a)
	if until == 0 {
		return nil, "", fmt.Errorf("trace: nothing has run yet: play or jump first")
	}
	name := m.setup.src.preset.Name
	if m.setup.src.shared || name == "" {
		name = "shared"
	}
	if a.Name != "" {
		name += "-" + a.Name
	}
	file = "schedplay-" + fileSafe(name) + "-" + urlstate.FormatMoment(from) + "-" + urlstate.FormatMoment(until) + ".json"
	return runner.EncodeTraceJob(runner.TraceJob{Scenario: a.Sc, StartNs: from, UntilNs: until}), file, nil
}

// fileSafe keeps letters, digits, dots and dashes, turning the rest into dashes.
func fileSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' {
			return r
		}
		return '-'
	}, s)
}

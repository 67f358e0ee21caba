package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"schedplay/engine"
	"schedplay/playground/urlstate"
)

// schedplay run's checkpoints: --checkpoint-at T --checkpoint-out PATH saves
// the run's whole state at simulated time T (engine.Sim.AppendCheckpoint) and
// runs on; --from PATH resumes a saved state (engine.Resume) and runs to the
// horizon, printing what the run from zero prints. A checkpoint keeps the
// scenario's canonical JSON as its note, so one of another scenario or other
// --set values is refused naming the knobs that differ.

type checkpointFlags struct {
	at, out, from string
}

func (cf checkpointFlags) used() bool { return cf.at != "" || cf.out != "" || cf.from != "" }

// check refuses flags that do not go together.
func (cf checkpointFlags) check(fs *flag.FlagSet, tf traceFlags) error {
	switch {
	case (cf.at == "") != (cf.out == ""):
		return &usageError{fs, errors.New("--checkpoint-at and --checkpoint-out go together")}
	case cf.used() && tf.path != "":
		return &usageError{fs, errors.New("--trace follows a run from time zero on its own: it cannot be combined with checkpoints")}
	}
	return nil
}

// runCheckpointed runs sc (from cf.from, or time zero) to its horizon, saving
// its state at cf.at on the way. label names the scenario in messages.
func runCheckpointed(sc engine.Scenario, label string, cf checkpointFlags, compile engine.ScxCompiler) (engine.Results, error) {
	var sim *engine.Sim
	var err error
	if cf.from != "" {
		sim, err = resumeFile(sc, label, cf.from, compile)
	} else {
		sim, err = engine.NewSimScx(sc, compile)
	}
	if err != nil {
		return engine.Results{}, err
	}
	sim.SetVisual(false)
	if cf.at != "" {
		at, err := urlstate.ParseMoment(cf.at)
		if err != nil {
			return engine.Results{}, fmt.Errorf("--checkpoint-at: %w", err)
		}
		switch {
		case at > sim.EndNs():
			return engine.Results{}, fmt.Errorf("--checkpoint-at: %s is after the run's end (%d ms)", cf.at, sc.DurationMs)
		case at < sim.NowNs():
			return engine.Results{}, fmt.Errorf("--checkpoint-at: %s is before %s, where the run resumes", cf.at, urlstate.FormatMoment(sim.NowNs()))
		}
		sim.RunUntil(at)
		note, err := sc.Canonical()
		if err != nil {
			return engine.Results{}, err
		}
		ck, err := sim.AppendCheckpoint(nil, engine.CheckpointOptions{Note: note})
		if err != nil {
			return engine.Results{}, err
		}
		if err := os.WriteFile(cf.out, ck, 0o644); err != nil {
			return engine.Results{}, fmt.Errorf("--checkpoint-out: %w", err)
		}
	}
	return sim.Run(), nil
}

// resumeFile resumes sc from the checkpoint in path, or says why it cannot:
// another format version, another scenario (naming the knobs that differ), or
// a file that is not a whole checkpoint.
func resumeFile(sc engine.Scenario, label, path string, compile engine.ScxCompiler) (*engine.Sim, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--from: %w", err)
	}
	sim, err := engine.ResumeScx(sc, data, compile)
	if err == nil {
		return sim, nil
	}
	if errors.Is(err, engine.ErrCheckpointScenario) {
		if info, ierr := engine.ReadCheckpointInfo(data); ierr == nil {
			if saved, derr := engine.DecodeScenario(info.Note); derr == nil {
				return nil, fmt.Errorf("--from %s: the checkpoint is of another scenario than %s: %s", path, label, scenarioDiff(saved, sc))
			}
		}
	}
	return nil, fmt.Errorf("--from %s: %w", path, err)
}

// scenarioDiff says where saved (the checkpoint's scenario) and sc differ:
// the knobs first, by path, else the fields no knob sets.
func scenarioDiff(saved, sc engine.Scenario) string {
	var diffs []string
	if saved.Name != sc.Name {
		diffs = append(diffs, fmt.Sprintf("it was taken from %q", saved.Name))
	}
	for _, p := range engine.KnobPaths() {
		a, _ := saved.Get(p)
		b, _ := sc.Get(p)
		if a != b {
			diffs = append(diffs, fmt.Sprintf("%s is %s there, %s here", p, a, b))
		}
	}
	if len(diffs) > 7 {
		diffs = append(diffs[:7], fmt.Sprintf("and %d more", len(diffs)-7))
	}
	if len(diffs) == 0 {
		return "every knob is the same, so its name, description, arms or published figures differ"
	}
	return strings.Join(diffs, "; ")
}

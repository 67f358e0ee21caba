package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"

	"schedplay/engine"
	"schedplay/rtapp"
)

// source is a scenario document as read, before knobs are applied.
type source struct {
	// label names the document in messages and output: the file path, "stdin", or
	// the preset name.
	label string
	data  []byte
	// trace shapes the model of a kernel trace (tracewrap.go).
	trace traceOpts
	// file is the path of a trace read from disk: data holds only its
	// first bytes, and the trace is streamed from the file.
	file string
}

// decode applies knob overrides and validates; errors name the source and the
// field's dotted path ("tpcb-32vcpu: machine.vcpus: 0 is below the minimum 1").
func (s source) decode(sets ...string) (engine.Scenario, error) {
	data := s.data
	if looksTrace(data) {
		if s.file != "" {
			return decodeTraceFile(s.file, s.label, s.trace, sets)
		}
		return decodeTrace(data, s.label, s.trace, sets)
	}
	if rtapp.Detect(data) {
		var err error
		if data, err = wrapRTApp(data, strings.TrimSuffix(path.Base(s.label), ".json")); err != nil {
			return engine.Scenario{}, fmt.Errorf("%s: %w", s.label, err)
		}
	}
	// The command line runs what a browser tab cannot: up to an hour.
	sc, err := engine.DecodeScenarioUpTo(engine.MaxCLIDurationMs, data, sets...)
	if err != nil {
		return engine.Scenario{}, fmt.Errorf("%s: %w", s.label, err)
	}
	if sc.Name == "" {
		sc.Name = strings.TrimSuffix(path.Base(s.label), ".json")
	}
	return sc, nil
}

// decodeToRun is decode plus the engine's work estimate: a scenario that would
// take more than engine.MaxEvents events is refused before it runs, with the
// fields that make it long.
func (s source) decodeToRun(sets ...string) (engine.Scenario, error) {
	sc, err := s.decode(sets...)
	if err != nil {
		return sc, err
	}
	if err := engine.CheckWork(sc); err != nil {
		return engine.Scenario{}, fmt.Errorf("%s: %w", s.label, err)
	}
	return sc, nil
}

// load reads FILE: "-" is stdin; an existing file is read; otherwise a bare name
// (with or without .json) that matches a preset in the examples directory is that
// preset, so "schedplay run tpcb-32vcpu" works from any directory.
func (a *app) load(arg string) (source, error) {
	if arg == "-" {
		data, err := readSource(a.stdin)
		if err != nil {
			return source{}, fmt.Errorf("reading stdin: %w", err)
		}
		return source{label: "stdin", data: data}, nil
	}
	f, err := os.Open(arg)
	if err == nil {
		defer f.Close()
		// A trace is streamed from the file at decode; only its first
		// bytes are read here, enough to tell it from a scenario.
		head, err := io.ReadAll(io.LimitReader(f, engine.MaxScenarioBytes+1))
		if err != nil {
			return source{}, fmt.Errorf("reading %s: %w", arg, err)
		}
		if looksTrace(head) {
			return source{label: arg, data: head, file: arg}, nil
		}
		data, err := readSource(io.MultiReader(bytes.NewReader(head), f))
		if err != nil {
			return source{}, fmt.Errorf("reading %s: %w", arg, err)
		}
		return source{label: arg, data: data}, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return source{}, err
	}
	name := strings.TrimSuffix(arg, ".json")
	if fs.ValidPath(name) && !strings.Contains(name, "/") {
		if data, perr := fs.ReadFile(a.examples, name+".json"); perr == nil {
			return source{label: name, data: data}, nil
		}
	}
	return source{}, fmt.Errorf("%s: no such file, and no preset of that name (presets: %s)",
		arg, strings.Join(a.presetNames(), ", "))
}

// presetNames lists the presets (examples/NAME.json) in name order.
func (a *app) presetNames() []string {
	matches, _ := fs.Glob(a.examples, "*.json")
	names := make([]string, 0, len(matches))
	for _, m := range matches {
		names = append(names, strings.TrimSuffix(m, ".json"))
	}
	sort.Strings(names)
	return names
}

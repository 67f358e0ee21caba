package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"schedplay/engine"
	"schedplay/examples"
	"schedplay/examples/lessons"
)

// app is one invocation of the command: its streams and what tests replace (the
// simulator, the parallel runner, the preset and lesson directories). Keeping them
// here rather than in package variables lets tests run commands in parallel.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// simulate runs one validated scenario to its horizon (engine.Run outside tests).
	simulate func(engine.Scenario) (engine.Results, error)
	// measure runs one scenario and measures it over each window
	// (engine.RunWindows outside tests).
	measure func(engine.Scenario, []engine.Window) ([]engine.Results, error)
	// parallel calls do(i) for each of count jobs on up to n goroutines
	// (forEachParallel outside tests). Tests hold jobs behind gates with it, so
	// that runs finish out of order (outOfOrder in helpers_test.go).
	parallel func(count, n int, do func(i int) error) error
	// examples holds the presets as NAME.json at its root (examples.FS outside tests).
	examples fs.FS
	// lessons holds the lessons as NAME.json at its root (lessons.FS outside tests).
	lessons fs.FS
}

func newApp(stdin io.Reader, stdout, stderr io.Writer) *app {
	return &app{stdin: stdin, stdout: stdout, stderr: stderr, simulate: engine.Run, measure: engine.RunWindows,
		parallel: forEachParallel, examples: examples.FS, lessons: lessons.FS}
}

// command is one subcommand: its one-line synopsis (for the top-level usage) and body.
type command struct {
	synopsis string
	run      func(a *app, args []string) error
}

// commands is built on demand rather than held in a package variable so that the
// table can refer to methods without an initialisation cycle.
func commands() map[string]command {
	return map[string]command{
		"run":       {"run one scenario and print its metrics", (*app).cmdRun},
		"sweep":     {"run a scenario over a range of one knob, per arm", (*app).cmdSweep},
		"calibrate": {"regenerate (or --check) docs/calibration.md", (*app).cmdCalibrate},
		"list":      {"list the preset scenarios", (*app).cmdList},
		"knobs":     {"list every knob path with its type and default", (*app).cmdKnobs},
		"lessons":   {"list the lessons for a classroom, or one lesson's steps", (*app).cmdLessons},
		"serve": {"serve the playground", func(a *app, args []string) error {
			return cmdServe(args, a.stdout, a.stderr)
		}},
	}
}

const topUsage = `usage: schedplay COMMAND [arguments]

FILE is a scenario JSON file, "-" for stdin, or a preset name (see "schedplay list").
Run "schedplay COMMAND -h" for a command's flags.

commands:
`

func (a *app) usage(w io.Writer) {
	fmt.Fprint(w, topUsage)
	cmds := commands()
	for _, name := range []string{"run", "sweep", "calibrate", "list", "knobs", "lessons", "serve"} {
		fmt.Fprintf(w, "  %-10s %s\n", name, cmds[name].synopsis)
	}
}

// main runs one command line and returns the process exit status. Every failure is
// reported on stderr as one "schedplay: " line (plus usage for bad flags), never as a
// stack trace.
func (a *app) main(args []string) int {
	if len(args) == 0 {
		a.usage(a.stderr)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		a.usage(a.stdout)
		return 0
	}
	cmd, ok := commands()[args[0]]
	if !ok {
		fmt.Fprintf(a.stderr, "schedplay: unknown command %q\n", args[0])
		a.usage(a.stderr)
		return 2
	}
	err := cmd.run(a, args[1:])
	var uerr *usageError
	var xerr *exitError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0 // the command printed its usage on stdout
	case errors.As(err, &uerr):
		fmt.Fprintf(a.stderr, "schedplay: %v\n", uerr.err)
		uerr.fs.SetOutput(a.stderr)
		uerr.fs.Usage()
		return 2
	case errors.As(err, &xerr):
		fmt.Fprintf(a.stderr, "schedplay: %v\n", xerr.err)
		return xerr.code
	}
	fmt.Fprintf(a.stderr, "schedplay: %v\n", err)
	return 2
}

// usageError is a bad command line: main prints the command's usage after it.
type usageError struct {
	fs  *flag.FlagSet
	err error
}

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// exitError carries an exit status other than 2 (calibrate --check uses 1 for a
// stale document, so scripts can tell "out of date" from "could not run").
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }

// newFlagSet makes a silent flag set: parse errors come back as usageErrors and are
// printed once by main, and -h prints the usage on stdout.
func (a *app) newFlagSet(name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "usage: schedplay %s %s\n", name, synopsis)
		fs.VisitAll(func(f *flag.Flag) {
			arg, help := flag.UnquoteUsage(f)
			fmt.Fprintf(w, "  --%s %s\n    \t%s", f.Name, arg, help)
			if f.DefValue != "" && f.DefValue != "[]" && f.DefValue != "false" {
				fmt.Fprintf(w, " (default %s)", f.DefValue)
			}
			fmt.Fprintln(w)
		})
	}
	return fs
}

// parse parses flags that may come before, between or after the positional
// arguments ("run FILE --set x=1" as well as "run --set x=1 FILE"), which the flag
// package alone does not allow. It returns the positional arguments; everything
// after "--" is positional.
func parse(fs *flag.FlagSet, args []string, a *app) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.SetOutput(a.stdout)
				fs.Usage()
				return nil, err
			}
			return nil, &usageError{fs, err}
		}
		rest := fs.Args()
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// wantArgs checks the number of positional arguments.
func wantArgs(fs *flag.FlagSet, pos []string, names ...string) error {
	if len(pos) == len(names) {
		return nil
	}
	if len(pos) < len(names) {
		return &usageError{fs, fmt.Errorf("%s: missing %s", fs.Name(), strings.Join(names[len(pos):], " "))}
	}
	return &usageError{fs, fmt.Errorf("%s: unexpected argument %q", fs.Name(), pos[len(names)])}
}

// stringList is a repeatable string flag (--set a=1 --set b=2).
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, " ") }
func (l *stringList) Set(s string) error { *l = append(*l, s); return nil }

// formatFlag is --format: table, json or csv.
type formatFlag string

func (f *formatFlag) String() string { return string(*f) }
func (f *formatFlag) Set(s string) error {
	switch s {
	case "table", "json", "csv":
		*f = formatFlag(s)
		return nil
	}
	return fmt.Errorf("%q is not one of table, json, csv", s)
}

// Command schedplay runs scheduler scenarios headless, sweeps knobs, regenerates the
// calibration evidence and serves the playground.
//
//	schedplay run FILE [--set path=value ...] [--format table|json|csv] [--trace out.json]
//	               [--checkpoint-at T --checkpoint-out PATH] [--from PATH]
//	schedplay sweep FILE --vary path=v1,v2,... [--arms path=a,b] [--set ...] [--format ...] [--jobs N]
//	schedplay calibrate [--out docs/calibration.md] [--check] [--jobs N]
//	schedplay list | knobs | serve
//
// FILE is a scenario JSON file, "-" for stdin, or the name of a preset in examples/.
// Exit status: 0 on success, 1 when calibrate --check finds the document stale, 2 on
// any error (bad flags, bad scenario or knob, failed run).
package main

import (
	"os"
)

func main() {
	a := newApp(os.Stdin, os.Stdout, os.Stderr)
	os.Exit(a.main(os.Args[1:]))
}

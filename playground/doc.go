// Package playground is the playground's view model: the scenario the page shows (a
// preset plus knob overrides, or a shared scenario), one simulation per compared
// arm, run by a runner.Runner (Web Workers in the browser, in-process in tests)
// and kept at one simulated time by advance targets (advance.go), the time control
// and jumps to a moment, the animation state (IPIs in flight, migrations), the
// charts, the sweep, and what the HTML shows (controls, metric cards,
// explanations), all in plain Go.
//
// The js/wasm program (package main in wasm/) is a thin shell around a Model:
// Ebiten's Update calls Model.Update, Draw paints Model.Render's mesh, and the
// JavaScript bridge forwards control changes to Model.Set and reads the page's
// one snapshot (Model.Snapshot: sections, each with a version, snapshot.go) and
// Model.State as JSON. Nothing here imports Ebiten or syscall/js, so the whole model
// runs in native tests with a fake clock, the worker protocol included
// (runner.Loopback).
//
// A Model is not safe for concurrent use; the shell serialises calls.
package playground

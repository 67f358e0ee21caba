// Package preview computes and draws what a shared scenario's link preview
// shows: the headline results of its arms as the model computes them, their
// throughput over simulated time, and one representative moment of their vCPU
// tiles, drawn as a 1200x630 PNG card (PNG) and an SVG chart (SVG).
//
// Compute runs the engine natively, once, when a share is made; package web
// stores the Preview with the share and serves the card, the chart and the
// page's OpenGraph tags from it. A run is bounded by a budget of engine events
// (not wall time, so a preview depends only on the scenario and the budget):
// the arms advance in lockstep and stop together when the budget is spent, and
// a Preview cut short says so (Complete, ReachedMs, Coverage).
//
// The card is the page's view of the same run: package view decides its
// colours, number formats, headline metrics and their change and verdict
// rules, and draws its tiles, arcs and boxes (the triangles the page's canvas
// is painted from, rasterized here); the calibration's verdicts come from
// package docs. It imports those, the engine, the standard library and
// golang.org/x/image, so web and the Cloudflare Worker can use it.
package preview

package playground

import (
	"slices"
	"strings"
)

// Racing: how the page paints and takes answers while the run goes as fast as
// the runner can (max speed, a jump).
//
// At max speed no frame can be followed: each shows a moment milliseconds of
// simulated time after the last. Yet where the canvas is drawn in software
// (no GPU acceleration: SwiftShader, which headless Chromium and browsers
// with a blocklisted GPU use), presenting a frame costs the browser 30 to 60
// ms of CPU, so at 60 frames a second its GPU process takes a whole core
// from the engine workers (TestMeasureSpeed reports the browser's processes).
// So while the run races the page paints one frame every FastFrameMs, as
// often as the cards refresh (resultsEveryMs), or every SoftwareFastFrameMs
// where the canvas is drawn on the CPU, and takes the runner's answers as they
// arrive (Service) instead of once a frame, so the runner never waits for
// one. The targets it asks for are sized here too.

// The page's frame interval while the run races: a frame costs a GPU next to
// nothing, but a software renderer up to 60 ms of CPU at 1400x900 (headless
// Chromium on SwiftShader: about 17 frames took its GPU process 1.0 s more
// than none, TestMeasureSpeed), which a one-second interval keeps to about 6%
// of a core.
const (
	FastFrameMs         = resultsEveryMs
	SoftwareFastFrameMs = 1000
)

// SetCanvasRenderer tells the model which WebGL renderer draws the canvas
// (WEBGL_debug_renderer_info's name, or "" when the browser does not say);
// a software one makes the page paint less often while the run races.
func (m *Model) SetCanvasRenderer(name string) {
	m.frames.canvas, m.frames.software = name, softwareRenderer(name)
}

// softwareRenderer reports whether a WebGL renderer of this name draws on the
// CPU: Chromium's SwiftShader (its fallback without a usable GPU), Mesa's
// llvmpipe and softpipe, Microsoft's Basic Render Driver.
func softwareRenderer(name string) bool {
	lower := strings.ToLower(name)
	return slices.ContainsFunc([]string{"swiftshader", "llvmpipe", "softpipe", "basic render driver"},
		func(s string) bool { return strings.Contains(lower, s) })
}

// Racing reports whether the run goes as fast as the runner can: playing at
// max speed, or jumping.
func (m *Model) Racing() bool { return m.time.playing && (m.time.speedMax || m.jump != nil) }

// FrameEveryMs is how often the page should paint: every display frame (0),
// or while the run races FastFrameMs apart (SoftwareFastFrameMs on a
// software-drawn canvas).
func (m *Model) FrameEveryMs() float64 {
	switch {
	case !m.Racing():
		return 0
	case m.frames.software:
		return SoftwareFastFrameMs
	}
	return FastFrameMs
}

// Service takes the runner's answers as they arrive while the run races:
// it shows every target all arms have answered and asks for the next ones,
// as a frame's Update would, so the runner is kept busy between the sparse
// frames. At other speeds it does nothing: there a frame's wall time decides
// what is asked for, and Update takes the answers.
func (m *Model) Service(nowMs float64) {
	if !m.Racing() {
		return
	}
	m.pipe.onArrival = true
	m.receive()
	m.showReady(nowMs)
	m.takeLateStates()
	if m.time.playing { // what was shown may have ended a RunTo
		m.plan(0)
	}
	m.exchange(nowMs)
}

// targetMs is the runner time a max-speed target should take: a frame and a
// half where the page takes answers once a frame, within [targetRequestMs,
// maxRequestMs]; targetRequestMs where it takes them as they arrive.
func (p *pipeline) targetMs() float64 {
	if p.onArrival {
		return targetRequestMs
	}
	return min(max(targetRequestMs, 1.5*p.frameMs), maxRequestMs)
}

// sizingBusyMs is the runner time a max-speed target is sized by, from what
// it cost the cheapest and the dearest arm still running: the dearest's, so
// that the arms in one worker keep its answers coming; with the arms in
// parallel workers, the cheapest's, so that an arm ahead needs few targets
// in flight to stay busy (lead.go), unless the dearest would then take more
// than maxRequestMs on one (the page shows nothing new until it answers).
func (m *Model) sizingBusyMs(least, most float64) float64 {
	if !m.parallel() {
		return most
	}
	return max(least, most*targetRequestMs/maxRequestMs)
}

// adaptStep sizes the next max-speed target from one that was answered,
// stepNs long and busyMs of runner time: towards targetMs, by at most a factor
// of two, within [minStepNs, maxStepNs].
func adaptStep(stepNs int64, busyMs, targetMs float64) int64 {
	f := min(max(targetMs/max(busyMs, 0.01), 0.5), 2)
	return min(max(int64(float64(stepNs)*f), minStepNs), maxStepNs)
}

package playground_test

import (
	"testing"

	"schedplay/playground"
)

// While the run races (max speed), the page paints FastFrameMs apart and the
// model takes the workers' answers as they arrive (Service): the run goes on
// to its end with no frame at all, both arms shown at one time throughout,
// and ends where an in-process run ends. At other speeds Service leaves the
// answers to the next frame.
func TestServiceRacesBetweenFrames(t *testing.T) {
	const frag = "#v=1&preset=small&speed=max"
	for _, workers := range []int{1, 2} {
		m, l := newWorkerModel(t, frag, workers)
		if got := m.FrameEveryMs(); got != 0 {
			t.Fatalf("paused: frames every %v ms, want every display frame (0)", got)
		}
		m.Play()
		m.Update(16) // the frame that starts the run
		if got := m.FrameEveryMs(); got != playground.FastFrameMs {
			t.Fatalf("racing: frames every %v ms, want %v", got, playground.FastFrameMs)
		}
		served := 0
		for m.Playing() {
			if served++; served > 100_000 {
				t.Fatal("still racing after 100 000 answers")
			}
			for w := range l.Workers() {
				l.Work(w, 0.5)
			}
			before := m.Arms()[0].NowNs()
			m.Service(float64(served))
			arms := m.Arms()
			if arms[1].NowNs() != arms[0].NowNs() {
				t.Fatalf("answer %d shows the arms at %d and %d ns", served, arms[0].NowNs(), arms[1].NowNs())
			}
			if arms[0].NowNs() < before {
				t.Fatalf("answer %d went back from %d to %d ns", served, before, arms[0].NowNs())
			}
		}
		if l.Err != nil {
			t.Fatal(l.Err)
		}
		st := m.State()
		if !st.Done {
			t.Fatalf("%d workers: stopped racing at %d ns, before the end", workers, st.NowNs)
		}
		if got := m.FrameEveryMs(); got != 0 {
			t.Errorf("at the end: frames every %v ms, want every display frame", got)
		}
		local, _ := newModel(t, frag)
		local.Play()
		for j := 1; local.Playing(); j++ {
			local.Update(float64(j) * 16)
		}
		for j, a := range local.State().Arms {
			if g, w := engineView(t, st.Arms[j]), engineView(t, a); g != w {
				t.Errorf("%d workers: arm %s at the end differs from an in-process run:\n got %s\nwant %s", workers, a.Name, g, w)
			}
		}
	}

	// At a chosen speed a frame's wall time decides what is asked for and
	// shown: Service shows nothing between frames.
	m, l := newWorkerModel(t, "#v=1&preset=small&speed=20ms", 1)
	m.Play()
	for i := 1; i <= 10; i++ {
		m.Update(float64(i) * 16)
		if got := m.FrameEveryMs(); got != 0 {
			t.Fatalf("at 20 ms/s: frames every %v ms, want every display frame", got)
		}
		l.Work(0, 5)
		before := m.Arms()[0].NowNs()
		m.Service(float64(i)*16 + 8)
		if got := m.Arms()[0].NowNs(); got != before {
			t.Fatalf("at 20 ms/s Service moved the arms from %d to %d ns between frames", before, got)
		}
	}
	if m.Arms()[0].NowNs() == 0 {
		t.Error("ten frames at 20 ms/s showed nothing")
	}
}

// The speed shown counts what was shown since the last frame, Service's
// answers included: with frames FastFrameMs apart and every target shown
// between them, it is the simulated time shown per wall second.
func TestEffectiveSpeedCountsServicedAnswers(t *testing.T) {
	m, l := newWorkerModel(t, "#v=1&preset=small&speed=max&duration_ms=20000", 2)
	m.Play()
	now := 16.0
	m.Update(now)
	for range 20 {
		for range 10 {
			for w := range l.Workers() {
				l.Work(w, 0.5)
			}
			m.Service(now)
		}
		now += playground.FastFrameMs
		m.Update(now)
	}
	if !m.Playing() {
		t.Fatal("the run ended before the check")
	}
	// The clock smooths the speed over about ten frames, so after twenty
	// it is within a factor of two of the average.
	avg := float64(m.Arms()[0].NowNs()) / ((now - 16) / 1000)
	if got := playground.EffSpeed(m); got < avg/2 || got > avg*2 {
		t.Errorf("speed shown %.3g ns/s, but the frames showed %.3g ns/s on average", got, avg)
	}
}

// A RunTo at max speed races to its moment with answers taken as they
// arrive, stops there, and asks for nothing past it.
func TestServiceStopsAtRunTo(t *testing.T) {
	for _, workers := range []int{1, 2} {
		m, l := newWorkerModel(t, "#v=1&preset=small&speed=max", workers)
		const at = 120_000_000
		m.RunTo(at)
		m.Update(16)
		for n := 0; m.Playing() || m.State().Pending > 0; n++ {
			if n > 100_000 {
				t.Fatal("the RunTo did not end in 100 000 answers")
			}
			for w := range l.Workers() {
				l.Work(w, 0.5)
			}
			m.Service(float64(n))
			m.Update(float64(n) + 0.5)
		}
		for w := range l.Workers() {
			l.Work(w, 5)
		}
		m.Service(1e6)
		m.Update(1e6 + 16)
		if st := m.State(); st.NowNs != at || st.Pending != 0 || st.Playing {
			t.Errorf("%d workers: after a RunTo to %d ns the page stands at %d ns, %d targets pending, playing %v", workers, at, st.NowNs, st.Pending, st.Playing)
		}
	}
}

// While the run races, a canvas the browser draws on the CPU is painted
// once a second, one drawn by a GPU five times; the perf report names it.
func TestFrameEveryMsFollowsTheRenderer(t *testing.T) {
	for _, tc := range []struct {
		renderer string
		want     float64
		software bool
	}{
		{"", playground.FastFrameMs, false},
		{"ANGLE (NVIDIA, NVIDIA GeForce RTX 3060 (0x00002503) Direct3D11 vs_5_0 ps_5_0, D3D11)", playground.FastFrameMs, false},
		{"ANGLE (Apple, ANGLE Metal Renderer: Apple M2, Unspecified Version)", playground.FastFrameMs, false},
		{"ANGLE (Google, Vulkan 1.3.0 (SwiftShader Device (Subzero) (0x0000C0DE)), SwiftShader driver)", playground.SoftwareFastFrameMs, true},
		{"llvmpipe (LLVM 15.0.6, 256 bits)", playground.SoftwareFastFrameMs, true},
		{"ANGLE (Microsoft, Microsoft Basic Render Driver Direct3D11 vs_5_0 ps_5_0, D3D11)", playground.SoftwareFastFrameMs, true},
	} {
		m, _ := newWorkerModel(t, "#v=1&preset=small&speed=max", 1)
		m.SetCanvasRenderer(tc.renderer)
		if got := m.FrameEveryMs(); got != 0 {
			t.Errorf("%q, paused: frames every %v ms, want every display frame", tc.renderer, got)
		}
		m.Play()
		if got := m.FrameEveryMs(); got != tc.want {
			t.Errorf("%q, racing: frames every %v ms, want %v", tc.renderer, got, tc.want)
		}
		if p := m.Perf(); p.Canvas != tc.renderer || p.SoftwareCanvas != tc.software {
			t.Errorf("%q: perf says canvas %q, software %v", tc.renderer, p.Canvas, p.SoftwareCanvas)
		}
	}
}

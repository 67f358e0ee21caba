package e2e

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestTopologyControl chooses each machine of the topology select with the
// keyboard, as a person does (focus the select, arrow keys), at a laptop's
// and a phone's width: the URL carries the machine, the stage draws its
// frames (state().frames: nodes, LLCs, SMT cores) and the vCPU slider is
// disabled while a topology sets the count. Screenshots of each, in slow
// motion with migrations sliding, go to SCHEDPLAY_SCREENSHOTS.
func TestTopologyControl(t *testing.T) {
	type frameState struct {
		Tiles  int `json:"tiles"`
		Frames []struct {
			Arm   int    `json:"arm"`
			Level string `json:"level"`
			Text  string `json:"text"`
		} `json:"frames"`
		Scenario struct {
			Machine struct {
				VCPUs    int    `json:"vcpus"`
				Topology string `json:"topology"`
				Capacity []int  `json:"capacity"`
			} `json:"machine"`
		} `json:"scenario"`
		Arms []struct {
			Anim struct {
				Slides int `json:"slides"`
			} `json:"anim"`
		} `json:"arms"`
	}
	steps := []struct {
		value, hash        string
		cpus               int
		nodes, llcs, cores int // frames per arm
		labels             []string
		vcpusDisabled      bool
	}{
		{value: "1n2l4c2t", hash: "machine.topology=1n2l4c2t", cpus: 16, llcs: 2, cores: 8, labels: []string{"LLC 0", "LLC 1"}, vcpusDisabled: true},
		{value: "2n2l4c2t", hash: "machine.topology=2n2l4c2t", cpus: 16, nodes: 2, llcs: 2, cores: 8, labels: []string{"node 0", "node 1"}, vcpusDisabled: true},
		{value: "4big4little", hash: "machine.capacity=4x1024,4x512", cpus: 8, vcpusDisabled: true},
		{value: "2n8l4c2t", hash: "machine.topology=2n8l4c2t", cpus: 64, nodes: 2, llcs: 8, cores: 32, labels: []string{"node 1", "LLC 7"}, vcpusDisabled: true},
		// Flat keeps the CPU count the machine had, and the slider takes
		// over. The arrow keys pass every choice on the way up, each one
		// chosen in turn, so the machine before flat is 1n2l4c2t's 16.
		{value: "", hash: "machine.vcpus=16", cpus: 16},
	}
	for _, size := range []struct {
		name string
		w, h int
	}{{"laptop", 1280, 800}, {"phone", 390, 844}} {
		t.Run(size.name, func(t *testing.T) {
			ctx, base := browser(t, size.w, size.h)
			open(t, ctx, base+"/#v=1&preset=tpcb-32vcpu&speed=2ms")
			for _, st := range steps {
				chooseByKeys(t, ctx, "topology", st.value)
				waitFor(t, ctx, fmt.Sprintf(`location.hash.includes(%q)`, st.hash), 20*time.Second)
				if st.value == "" {
					waitFor(t, ctx, `!location.hash.includes('machine.topology') && !location.hash.includes('machine.capacity')`, 20*time.Second)
				}
				waitFor(t, ctx, fmt.Sprintf(`window.schedplay.state().tiles === %d`, 2*st.cpus), 20*time.Second)
				s := stateAs[frameState](t, ctx)
				count := map[string]int{}
				var texts []string
				for _, f := range s.Frames {
					if f.Arm == 0 {
						count[f.Level]++
					}
					if f.Text != "" {
						texts = append(texts, f.Text)
					}
				}
				if count["node"] != st.nodes || count["llc"] != st.llcs || count["core"] != st.cores {
					t.Errorf("%s: arm A has frames %v, want %d nodes, %d LLCs, %d cores", st.value, count, st.nodes, st.llcs, st.cores)
				}
				// A phone's frames may go unlabelled (too small); a laptop's are labelled.
				if size.name == "laptop" {
					for _, l := range st.labels {
						if !strings.Contains(strings.Join(texts, ","), l) {
							t.Errorf("%s: labels %v lack %q", st.value, texts, l)
						}
					}
					if shown := eval[int](t, ctx, `document.querySelectorAll('#frame-labels .frame-label').length`); shown != len(texts) {
						t.Errorf("%s: the page writes %d frame labels, the model has %d", st.value, shown, len(texts))
					}
				}
				if got := eval[bool](t, ctx, `document.getElementById('vcpus').disabled`); got != st.vcpusDisabled {
					t.Errorf("%s: vCPU slider disabled %v, want %v", st.value, got, st.vcpusDisabled)
				}
				if s.Scenario.Machine.VCPUs != st.cpus {
					t.Errorf("%s: %d vCPUs, want %d", st.value, s.Scenario.Machine.VCPUs, st.cpus)
				}
				legend := eval[bool](t, ctx, `!document.getElementById('legend-cross').hidden`)
				if want := st.value != ""; legend != want {
					t.Errorf("%s: the migration legend shown %v, want %v", st.value, legend, want)
				}
				// Run ahead to where the clients are busy, play in slow
				// motion until chips slide, then look.
				eval[string](t, ctx, `window.schedplay.set('t', '300ms') || ''`)
				waitFor(t, ctx, `window.schedplay.state().now_ns >= 300e6 && !window.schedplay.state().jump`, 60*time.Second)
				eval[bool](t, ctx, `window.schedplay.play(), true`)
				deadline := time.Now().Add(8 * time.Second)
				for time.Now().Before(deadline) {
					if s := stateAs[frameState](t, ctx); len(s.Arms) > 1 && s.Arms[0].Anim.Slides+s.Arms[1].Anim.Slides > 0 {
						break
					}
					time.Sleep(150 * time.Millisecond)
				}
				eval[bool](t, ctx, `window.schedplay.pause(), true`)
				name := st.value
				if name == "" {
					name = "flat"
				}
				eval[bool](t, ctx, `document.activeElement.blur(), window.scrollTo(0, 0), true`)
				screenshot(t, ctx, ".stage-card", "topology-"+size.name+"-"+name)
			}
			// The link reproduces the last machine chosen with a topology.
			chooseByKeys(t, ctx, "topology", "2n2l4c2t")
			waitFor(t, ctx, `location.hash.includes('machine.topology=2n2l4c2t')`, 20*time.Second)
			open(t, ctx, "")
			if s := stateAs[frameState](t, ctx); s.Scenario.Machine.Topology != "2n2l4c2t" || len(s.Frames) == 0 {
				t.Errorf("reloaded: topology %q, %d frames", s.Scenario.Machine.Topology, len(s.Frames))
			}
		})
	}
}

// chooseByKeys picks value in the select id with the keyboard: focus it and
// press the arrow keys, which change a closed select and fire its change.
func chooseByKeys(t *testing.T, ctx context.Context, id, value string) {
	t.Helper()
	from := eval[int](t, ctx, fmt.Sprintf(`document.getElementById(%q).selectedIndex`, id))
	to := eval[int](t, ctx, fmt.Sprintf(`[...document.getElementById(%q).options].findIndex(o => o.value === %q)`, id, value))
	if to < 0 {
		t.Fatalf("the select %s offers no %q", id, value)
	}
	if err := chromedp.Do(ctx, chromedp.ScrollIntoView(chromedp.CSS("#"+id)), chromedp.Focus(chromedp.CSS("#"+id))); err != nil {
		t.Fatal(err)
	}
	key := kb.ArrowDown
	if to < from {
		key = kb.ArrowUp
	}
	for i := 0; i < abs(to-from); i++ {
		if err := chromedp.Do(ctx, chromedp.KeyEvent(key)); err != nil {
			t.Fatal(err)
		}
	}
	if got := eval[string](t, ctx, fmt.Sprintf(`document.getElementById(%q).value`, id)); got != value {
		t.Fatalf("the select %s shows %q after the keys, want %q", id, got, value)
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// TestTopologyGallery saves the stage at the machine sizes the topology
// control offers, flat and framed, at laptop and phone widths, to be looked
// at. It runs only when SCHEDPLAY_SCREENSHOTS names a directory:
//
//	SCHEDPLAY_SCREENSHOTS=/tmp/shots go test ./e2e -run TestTopologyGallery -v
func TestTopologyGallery(t *testing.T) {
	if os.Getenv("SCHEDPLAY_SCREENSHOTS") == "" {
		t.Skip("set SCHEDPLAY_SCREENSHOTS to a directory to take the topology gallery")
	}
	cases := []struct {
		name, frag string
		w, h       int
	}{
		{"topo-flat-4", "#v=1&preset=tpcb-32vcpu&machine.vcpus=4&compare=off", 1280, 800},
		{"topo-flat-32-compare", "#v=1&preset=tpcb-32vcpu", 1280, 800},
		{"topo-flat-64-compare", "#v=1&preset=tpcb-32vcpu&machine.vcpus=64&workload.clients=256", 1280, 800},
		{"topo-1n2l4c2t", "#v=1&preset=tpcb-32vcpu&machine.topology=1n2l4c2t&compare=off", 1280, 800},
		{"topo-2n2l4c2t-compare", "#v=1&preset=tpcb-32vcpu&machine.topology=2n2l4c2t", 1280, 800},
		{"topo-2n8l4c2t-compare", "#v=1&preset=tpcb-32vcpu&machine.topology=2n8l4c2t&workload.clients=256", 1280, 800},
		{"topo-2n8l4c2t-compare-phone", "#v=1&preset=tpcb-32vcpu&machine.topology=2n8l4c2t&workload.clients=256", 390, 844},
		{"topo-biglittle", "#v=1&preset=tpcb-32vcpu&machine.vcpus=8&machine.capacity=4x1024,4x512&compare=off&speed=2ms", 1280, 800},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, base := browser(t, tc.w, tc.h)
			open(t, ctx, base+"/"+tc.frag)
			eval[bool](t, ctx, `window.schedplay.play(), true`)
			time.Sleep(1500 * time.Millisecond)
			eval[bool](t, ctx, `window.schedplay.pause(), true`)
			time.Sleep(300 * time.Millisecond)
			screenshot(t, ctx, viewport, tc.name)
		})
	}
}

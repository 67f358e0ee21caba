package e2e

import (
	"os"
	"testing"
	"time"
)

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

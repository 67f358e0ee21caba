package playground_test

import (
	"slices"
	"strings"
	"testing"

	"schedplay/playground"
)

// The topology select sets the machine, the fragment carries it (a capacity
// list as machine.capacity), and loading that fragment reproduces it; the
// vCPU slider is disabled while a topology or capacities give the count.
func TestTopologyControl(t *testing.T) {
	for _, tc := range []struct {
		value      string
		cpus       int
		topology   string
		capacity   []int
		frag       []string // in the fragment
		frames     bool     // the stage draws frames
		vcpusFixed bool
	}{
		{value: "1n2l4c2t", cpus: 16, topology: "1n2l4c2t", frag: []string{"machine.topology=1n2l4c2t"}, frames: true, vcpusFixed: true},
		{value: "2n2l4c2t", cpus: 16, topology: "2n2l4c2t", frag: []string{"machine.topology=2n2l4c2t"}, frames: true, vcpusFixed: true},
		{value: "2n8l4c2t", cpus: 64, topology: "2n8l4c2t", frag: []string{"machine.topology=2n8l4c2t"}, frames: true, vcpusFixed: true},
		{value: playground.BigLittle, cpus: 8, capacity: []int{1024, 1024, 1024, 1024, 512, 512, 512, 512},
			frag: []string{"machine.capacity=4x1024,4x512"}, vcpusFixed: true},
		{value: "", cpus: 4},
	} {
		t.Run(tc.value, func(t *testing.T) {
			m, _ := newModel(t, "#v=1&preset=plain")
			if msg := m.Set("machine.topology", tc.value); msg != "" {
				t.Fatalf("Set: %s", msg)
			}
			check := func(when string, m *playground.Model) {
				t.Helper()
				mc := m.Arms()[0].Sc.Machine
				if mc.VCPUs != tc.cpus || mc.Topology != tc.topology || !slices.Equal(mc.Capacity, tc.capacity) {
					t.Errorf("%s: machine %d CPUs, topology %q, capacity %v; want %d, %q, %v", when, mc.VCPUs, mc.Topology, mc.Capacity, tc.cpus, tc.topology, tc.capacity)
				}
				ctl := controlValue(t, m, "topology")
				if ctl.Value != tc.value {
					t.Errorf("%s: the topology select shows %q, want %q", when, ctl.Value, tc.value)
				}
				if v := controlValue(t, m, "vcpus"); v.Disabled != tc.vcpusFixed || v.Disabled && v.Note == "" {
					t.Errorf("%s: vCPU slider disabled %v (note %q), want %v", when, v.Disabled, v.Note, tc.vcpusFixed)
				}
				m.Render(1280, 600, 1, 0)
				st := m.State()
				if st.Tiles != tc.cpus || (len(st.Frames) > 0) != tc.frames {
					t.Errorf("%s: %d tiles, %d frames; want %d tiles, frames %v", when, st.Tiles, len(st.Frames), tc.cpus, tc.frames)
				}
				if s := m.Snapshot(0).Settings; s.Frames != tc.frames || s.Levels != (tc.frames || tc.capacity != nil) {
					t.Errorf("%s: legend frames %v, levels %v", when, s.Frames, s.Levels)
				}
			}
			check("after Set", m)
			frag := m.Fragment()
			for _, want := range tc.frag {
				if !strings.Contains(frag, want) {
					t.Errorf("fragment %q lacks %q", frag, want)
				}
			}
			again, _ := newModel(t, "#"+frag)
			if p := again.Problems(); len(p) > 0 {
				t.Errorf("reloading %q: %v", frag, p)
			}
			check("reloaded", again)
		})
	}
}

// Leaving a topology for flat gives the slider back, at the topology's CPU
// count; leaving big.LITTLE drops its capacities.
func TestTopologyBackToFlat(t *testing.T) {
	m, _ := newModel(t, "#v=1&preset=plain")
	for _, v := range []string{playground.BigLittle, "1n2l4c2t", ""} {
		if msg := m.Set("machine.topology", v); msg != "" {
			t.Fatalf("Set %q: %s", v, msg)
		}
	}
	mc := m.Arms()[0].Sc.Machine
	if mc.Topology != "" || mc.Capacity != nil || mc.VCPUs != 16 {
		t.Errorf("flat after 1n2l4c2t: %+v", mc)
	}
	if v := controlValue(t, m, "vcpus"); v.Disabled {
		t.Errorf("flat: the vCPU slider is still disabled (%s)", v.Note)
	}
	if msg := m.Set("machine.vcpus", "6"); msg != "" || m.Arms()[0].Sc.Machine.VCPUs != 6 {
		t.Errorf("the slider after flat: %q, %d vCPUs", msg, m.Arms()[0].Sc.Machine.VCPUs)
	}
	if msg := m.Set("machine.topology", "3n2l1c1t"); msg == "" {
		t.Errorf("a topology whose LLCs do not split over its nodes was taken")
	}
}

// A link's capacity list the machine cannot take is a problem naming the
// field, and the page opens with the scenario's own.
func TestCapacityLinkRefused(t *testing.T) {
	for _, frag := range []string{
		"#v=1&preset=plain&machine.capacity=8x1024",              // 8 for 4 CPUs
		"#v=1&preset=plain&machine.capacity=1024,1024,1024,2048", // above 1024
		"#v=1&preset=plain&machine.capacity=fast",
	} {
		m, _ := newModel(t, frag)
		p := strings.Join(m.Problems(), "; ")
		if !strings.Contains(p, "machine.capacity") || m.Arms()[0].Sc.Machine.Capacity != nil {
			t.Errorf("%s: problems %q, capacity %v", frag, p, m.Arms()[0].Sc.Machine.Capacity)
		}
		if strings.Contains(m.Fragment(), "capacity") {
			t.Errorf("%s: the refused list stays in the fragment %q", frag, m.Fragment())
		}
	}
}

// The compare picker does not offer machines: two arms share one stage.
func TestTopologyNotCompared(t *testing.T) {
	m, _ := newModel(t, "#v=1&preset=plain")
	for _, o := range m.Snapshot(0).Controls.CompareOptions {
		if strings.Contains(o.Value, "machine.topology") {
			t.Errorf("the compare picker offers %v", o)
		}
	}
}

func controlValue(t *testing.T, m *playground.Model, id string) playground.ControlValue {
	t.Helper()
	for _, v := range m.Snapshot(0).Controls.Values {
		if v.ID == id {
			return v
		}
	}
	t.Fatalf("no control %s", id)
	return playground.ControlValue{}
}

package playground

import (
	"slices"
	"testing"

	"schedplay/engine"
	"schedplay/playground/urlstate"
)

func TestCompareOf(t *testing.T) {
	withArms := engine.DefaultScenario()
	withArms.Arms = []engine.Arm{{Name: "pull off", Set: map[string]string{"sched.wake_pull": "false", "seed": "2"}},
		{Name: "pull on", Set: map[string]string{"sched.wake_pull": "true"}}}
	noArms := engine.DefaultScenario()
	pinned := engine.DefaultScenario()
	pinned.Workload.WakerCPU = 3
	controls := Controls()
	tests := []struct {
		desc      string
		view      urlstate.View
		base      engine.Scenario
		wantNames []string
		wantSets  [][]string
		wantLabel string
		wantErr   bool
		// wantResolveErr is part of the error resolving the arms, "" for none.
		wantResolveErr string
	}{
		{desc: "default with arms: the scenario's arms, overrides by path", base: withArms,
			wantNames: []string{"pull off", "pull on"}, wantSets: [][]string{{"sched.wake_pull=false", "seed=2"}, {"sched.wake_pull=true"}},
			wantLabel: "pull off ↔ pull on"},
		{desc: "default without arms: one run", base: noArms, wantNames: []string{""}, wantSets: [][]string{nil}},
		{desc: "off: one run", view: urlstate.View{Compare: urlstate.CompareOff}, base: withArms, wantNames: []string{""}, wantSets: [][]string{nil}},
		{desc: "arms without arms", view: urlstate.View{Compare: urlstate.CompareArms}, base: noArms, wantErr: true},
		{desc: "a toggle, named by its control", view: urlstate.View{Compare: "sched.wake_pull", CompareA: "0", CompareB: "1"}, base: noArms,
			wantNames: []string{"Idle pull off", "Idle pull on"}, wantSets: [][]string{{"sched.wake_pull=0"}, {"sched.wake_pull=1"}},
			wantLabel: "Idle pull off ↔ on"},
		{desc: "a knob without a control, named by path", view: urlstate.View{Compare: "workload.service.cv", CompareA: "0.5", CompareB: "2"},
			base: noArms, wantNames: []string{"workload.service.cv=0.5", "workload.service.cv=2"},
			wantSets:  [][]string{{"workload.service.cv=0.5"}, {"workload.service.cv=2"}},
			wantLabel: "workload.service.cv 0.5 ↔ 2"},
		{desc: "a knob at a value the scenario refuses: the arm and its override are named",
			view: urlstate.View{Compare: "workload.waker_cpu", CompareA: "0", CompareB: "40"}, base: noArms,
			wantResolveErr: `compare: arm "workload.waker_cpu=40" sets workload.waker_cpu=40: 40 is above the maximum 31; showing one run`},
		{desc: "a knob at a value that conflicts with the scenario, named by its control",
			view: urlstate.View{Compare: "machine.vcpus", CompareA: "8", CompareB: "2"}, base: pinned,
			wantResolveErr: `compare: arm "vCPUs 2" sets machine.vcpus=2, which conflicts with the scenario: workload.waker_cpu: 3 is above the maximum 1; showing one run`},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			c, err := compareOf(tc.view, tc.base, controls)
			if (err != nil) != tc.wantErr {
				t.Fatalf("error %v, want error %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			arms, err := c.resolve(tc.base)
			if tc.wantResolveErr != "" {
				if err == nil || err.Error() != tc.wantResolveErr {
					t.Fatalf("resolve: %v, want %q", err, tc.wantResolveErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("resolve: %v", err)
			}
			var names []string
			var sets [][]string
			for _, a := range arms {
				names, sets = append(names, a.Name), append(sets, a.Sets)
			}
			if !slices.Equal(names, tc.wantNames) || !slices.EqualFunc(sets, tc.wantSets, slices.Equal) || c.label != tc.wantLabel {
				t.Errorf("arms %q with %q, label %q; want %q with %q, label %q", names, sets, c.label, tc.wantNames, tc.wantSets, tc.wantLabel)
			}
			// Each arm runs the scenario the engine makes of its overrides.
			for _, a := range arms {
				want, err := tc.base.WithKnobs(a.Sets...)
				if err != nil || want.Sched.WakePull != a.Scenario.Sched.WakePull || want.Seed != a.Scenario.Seed ||
					want.Workload.Service != a.Scenario.Workload.Service {
					t.Errorf("arm %q: %+v, want the base with %v (%v)", a.Name, a.Scenario.Sched, a.Sets, err)
				}
			}
		})
	}
}

func TestCompareOptions(t *testing.T) {
	controls := Controls()
	sc := engine.DefaultScenario()
	opts := compareOptions(sc, controls, "sched.wake_pull")
	values := func(opts []Option) []string {
		var out []string
		for _, o := range opts {
			out = append(out, o.Value)
		}
		return out
	}
	if v := values(opts); v[0] != urlstate.CompareOff || !slices.Contains(v, "sched.wake_pull") ||
		!slices.Contains(v, "sched.policy:osv,scx_simple") || slices.Contains(v, urlstate.CompareArms) {
		t.Errorf("options %q: want off, every toggle and select, and no arms for a scenario without them", v)
	}
	custom := compareOptions(sc, controls, "machine.vcpus:4,8")
	if last := custom[len(custom)-1]; last != (Option{"machine.vcpus:4,8", "custom: machine.vcpus:4,8"}) || len(custom) != len(opts)+1 {
		t.Errorf("a setting not offered is added as custom: %+v", custom)
	}
}

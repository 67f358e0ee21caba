package urlstate

import (
	"reflect"
	"testing"

	"schedplay/engine"
)

func TestComparedArms(t *testing.T) {
	two := engine.DefaultScenario()
	two.Arms = []engine.Arm{{Name: "off", Set: map[string]string{"sched.wake_pull": "0"}},
		{Name: "on", Set: map[string]string{"sched.wake_pull": "1"}}, {Name: "third", Set: map[string]string{"seed": "2"}}}
	one := engine.DefaultScenario()
	one.Arms = two.Arms[:1]
	tests := []struct {
		desc     string
		mode     string
		a, b     string
		base     engine.Scenario
		wantMode string
		want     []engine.Arm
		wantErr  bool
	}{
		{desc: "the default on two arms or more: the first two", base: two, wantMode: CompareArms, want: two.Arms[:2]},
		{desc: "the default on one arm: one run", base: one, wantMode: CompareOff},
		{desc: "off: one run, whatever the arms", mode: CompareOff, base: two, wantMode: CompareOff},
		{desc: "arms: the first two", mode: CompareArms, base: two, wantMode: CompareArms, want: two.Arms[:2]},
		{desc: "arms of a scenario without two", mode: CompareArms, base: one, wantMode: CompareArms, wantErr: true},
		{desc: "a knob at two values, named path=value", mode: "workload.clients", a: "8", b: "64", base: two, wantMode: "workload.clients",
			want: []engine.Arm{{Name: "workload.clients=8", Set: map[string]string{"workload.clients": "8"}},
				{Name: "workload.clients=64", Set: map[string]string{"workload.clients": "64"}}}},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			if m := CompareMode(tc.mode, tc.base); m != tc.wantMode {
				t.Errorf("mode %q, want %q", m, tc.wantMode)
			}
			arms, err := ComparedArms(tc.mode, tc.a, tc.b, tc.base)
			if (err != nil) != tc.wantErr || !reflect.DeepEqual(arms, tc.want) {
				t.Errorf("arms %+v (error %v), want %+v (error %v)", arms, err, tc.want, tc.wantErr)
			}
			if err == nil {
				sc := tc.base
				sc.Arms = arms
				if _, err := sc.ArmScenarios(); err != nil {
					t.Errorf("the arms do not resolve: %v", err)
				}
			}
		})
	}
	// The base's own arms are shared, so appending to them must not write over
	// the base's third.
	arms, _ := ComparedArms(CompareArms, "", "", two)
	if cap(arms) != 2 {
		t.Errorf("arms of capacity %d: an append would write over the base's third arm", cap(arms))
	}
}

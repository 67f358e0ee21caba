package engine

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestArmScenarios: each arm is the scenario with its overrides applied in path
// order; a scenario without arms is one arm; a bad arm is a FieldError naming the
// override at fault and the arm.
func TestArmScenarios(t *testing.T) {
	base := DefaultScenario() // 32 vCPUs, the waker on vCPU 0
	withArms := func(arms ...Arm) Scenario {
		sc := base
		sc.Arms = arms
		return sc
	}
	set := func(kv ...string) map[string]string {
		m := map[string]string{}
		for _, s := range kv {
			k, v, _ := strings.Cut(s, "=")
			m[k] = v
		}
		return m
	}
	pinned := base
	pinned.Workload.WakerCPU = 3
	idle := pinned
	idle.Workload.Kind, idle.Workload.Clients = WorkloadIdle, 0
	var nine []Arm
	for i := range MaxArms + 1 {
		nine = append(nine, Arm{Name: fmt.Sprint(i), Set: set("seed=" + fmt.Sprint(i+1))})
	}
	tests := []struct {
		desc      string
		sc        Scenario
		wantNames []string
		wantSets  [][]string
		check     func(t *testing.T, arms []ArmScenario)
		wantPath  string // of the error; "" for none
		wantMsg   []string
	}{
		{desc: "no arms: the scenario alone", sc: base, wantNames: []string{""}, wantSets: [][]string{nil},
			check: func(t *testing.T, arms []ArmScenario) {
				if a, b := canonical(t, arms[0].Scenario), canonical(t, base); a != b {
					t.Errorf("the one arm is not the scenario:\n%s\n%s", a, b)
				}
			}},
		{desc: "two arms, overrides in path order", sc: withArms(
			Arm{Name: "pull off", Set: set("sched.wake_pull=0", "seed=7", "machine.vcpus=8")},
			Arm{Name: "pull on", Set: set("sched.wake_pull=true")}),
			wantNames: []string{"pull off", "pull on"},
			wantSets:  [][]string{{"machine.vcpus=8", "sched.wake_pull=0", "seed=7"}, {"sched.wake_pull=true"}},
			check: func(t *testing.T, arms []ArmScenario) {
				a, b := arms[0].Scenario, arms[1].Scenario
				if a.Sched.WakePull || a.Seed != 7 || a.Machine.VCPUs != 8 || !b.Sched.WakePull || b.Seed != base.Seed || b.Machine.VCPUs != 32 {
					t.Errorf("overrides not applied: A pull %v seed %d vCPUs %d, B pull %v seed %d vCPUs %d",
						a.Sched.WakePull, a.Seed, a.Machine.VCPUs, b.Sched.WakePull, b.Seed, b.Machine.VCPUs)
				}
				for _, x := range arms {
					again, err := base.WithKnobs(x.Sets...)
					if err != nil || canonical(t, again) != canonical(t, withoutArms(x.Scenario)) {
						t.Errorf("arm %q is not the scenario WithKnobs(%v) gives (%v)", x.Name, x.Sets, err)
					}
				}
			}},
		{desc: "an arm with no overrides", sc: withArms(Arm{Name: "as is"}), wantNames: []string{"as is"}, wantSets: [][]string{nil}},
		{desc: "too many arms", sc: withArms(nine...), wantPath: "arms", wantMsg: []string{"9 arms, above the limit 8"}},
		{desc: "an unknown knob", sc: withArms(Arm{Name: "a"}, Arm{Name: "b", Set: set("machine.vcpu=4")}),
			wantPath: "arms.1.set.machine.vcpu", wantMsg: []string{`arm "b" sets machine.vcpu=4: unknown knob`}},
		{desc: "a value the knob does not take", sc: withArms(Arm{Name: "maybe", Set: set("sched.wake_pull=maybe")}),
			wantPath: "arms.0.set.sched.wake_pull", wantMsg: []string{`arm "maybe" sets sched.wake_pull=maybe: "maybe" is not true or false`}},
		{desc: "a value out of the knob's range", sc: withArms(Arm{Name: "big", Set: set("machine.vcpus=129")}),
			wantPath: "arms.0.set.machine.vcpus", wantMsg: []string{`arm "big" sets machine.vcpus=129: 129 is above the maximum 128`}},
		{desc: "a vCPU index above machine.vcpus", sc: withArms(Arm{Name: "far", Set: set("workload.waker_cpu=40")}),
			wantPath: "arms.0.set.workload.waker_cpu", wantMsg: []string{`arm "far" sets workload.waker_cpu=40: 40 is above the maximum 31`}},
		{desc: "fewer vCPUs than a pinned thread needs: the override is named", sc: modified(pinned, func(sc *Scenario) {
			sc.Arms = []Arm{{Name: "small", Set: set("machine.vcpus=2", "seed=9")}}
		}), wantPath: "arms.0.set.machine.vcpus",
			wantMsg: []string{`arm "small" sets machine.vcpus=2, which conflicts with the scenario: workload.waker_cpu: 3 is above the maximum 1`}},
		{desc: "overrides that conflict only together: the arm is named", sc: modified(idle, func(sc *Scenario) {
			sc.Arms = []Arm{{Name: "both", Set: set("machine.vcpus=2", "workload.kind=request_server")}}
		}), wantPath: "arms.0.set", wantMsg: []string{`arm "both": its overrides together conflict with the scenario`}},
		{desc: "a bad scenario is named as itself, not as an arm", sc: modified(withArms(Arm{Name: "a"}), func(sc *Scenario) { sc.Machine.VCPUs = 0 }),
			wantPath: "machine.vcpus", wantMsg: []string{"0 is below the minimum 1"}},
		{desc: "a long arm name is cut short", sc: withArms(Arm{Name: strings.Repeat("x", 500), Set: set("seed=x")}),
			wantPath: "arms.0.set.seed", wantMsg: []string{`arm "` + strings.Repeat("x", 40) + `..." sets seed=x: `}},
		{desc: "an odd value is quoted", sc: withArms(Arm{Name: "a", Set: set("machine.platform=kvm \n")}),
			wantPath: "arms.0.set.machine.platform", wantMsg: []string{`arm "a" sets machine.platform="kvm \n": `}},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			arms, err := tc.sc.ArmScenarios()
			if tc.wantPath != "" {
				var fe *FieldError
				if !errors.As(err, &fe) || fe.Path != tc.wantPath {
					t.Fatalf("err = %v, want a FieldError at %s", err, tc.wantPath)
				}
				for _, m := range tc.wantMsg {
					if !strings.Contains(fe.Msg, m) {
						t.Errorf("message %q lacks %q", fe.Msg, m)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			var sets [][]string
			for _, a := range arms {
				names, sets = append(names, a.Name), append(sets, a.Sets)
				if err := a.Scenario.Validate(); err != nil {
					t.Errorf("arm %q does not validate: %v", a.Name, err)
				}
			}
			if !slices.Equal(names, tc.wantNames) || !slices.EqualFunc(sets, tc.wantSets, slices.Equal) {
				t.Errorf("arms %q with %q, want %q with %q", names, sets, tc.wantNames, tc.wantSets)
			}
			if tc.check != nil {
				tc.check(t, arms)
			}
		})
	}
}

// TestArmScenariosExamples: every example's arms resolve, each to the scenario
// its file decodes to with the arm's overrides (the way the CLI and the
// calibration decode them).
func TestArmScenariosExamples(t *testing.T) {
	for _, name := range exampleNames(t) {
		t.Run(name, func(t *testing.T) {
			sc := loadExample(t, name)
			arms, err := sc.ArmScenarios()
			if err != nil {
				t.Fatal(err)
			}
			if len(arms) != max(len(sc.Arms), 1) {
				t.Fatalf("%d arms resolved of %d", len(arms), len(sc.Arms))
			}
			for _, x := range arms {
				if a, b := canonical(t, x.Scenario), canonical(t, loadExample(t, name, x.Sets...)); a != b {
					t.Errorf("arm %q differs from the file decoded with its overrides:\n%s\n%s", x.Name, a, b)
				}
			}
		})
	}
}

// TestCheckRunnableArms: CheckRunnable resolves the arms as ArmScenarios does
// and names an arm too heavy to run.
func TestCheckRunnableArms(t *testing.T) {
	sc := loadExample(t, "hackbench")
	sc.Arms = append(sc.Arms, Arm{Name: "huge", Set: map[string]string{"workload.hackbench.groups": "1",
		"workload.hackbench.fds": "4096", "workload.hackbench.write_ns": "50", "workload.hackbench.read_ns": "50"}})
	var fe *FieldError
	if err := CheckRunnable(sc); !errors.As(err, &fe) || fe.Path != "workload.hackbench.fds" || !strings.HasPrefix(fe.Msg, `arm "huge": `) {
		t.Errorf("err = %v, want the work refusal naming arm huge", err)
	}
	sc.Arms[len(sc.Arms)-1].Set = map[string]string{"workload.hackbench.parent_cpu": "99"}
	if err := CheckRunnable(sc); !errors.As(err, &fe) || fe.Path != fmt.Sprintf("arms.%d.set.workload.hackbench.parent_cpu", len(sc.Arms)-1) {
		t.Errorf("err = %v, want the resolver's error naming the override", err)
	}
}

func modified(sc Scenario, f func(*Scenario)) Scenario {
	f(&sc)
	return sc
}

func withoutArms(sc Scenario) Scenario {
	sc.Arms = nil
	return sc
}

func canonical(t *testing.T, sc Scenario) string {
	t.Helper()
	b, err := sc.Canonical()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// An arm that sets the platform gets that platform's default costs wherever it
// is resolved, from a decoded scenario (ArmScenarios, WithKnobs) or from the
// file (DecodeScenario with the arm's overrides, as the CLI's sweep does); a
// cost the scenario sets keeps its value.
func TestArmPlatformBringsItsCosts(t *testing.T) {
	for _, tc := range []struct {
		desc, doc string
	}{
		{"costs left to the platform", `{"version":1,"machine":{"platform":"kvm"}}`},
		{"one cost set by the scenario", `{"version":1,"machine":{"platform":"kvm","costs":{"halted_wake_ns":30000}}}`},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			fromFile, err := DecodeScenario([]byte(tc.doc), "machine.platform=native")
			if err != nil {
				t.Fatal(err)
			}
			base, err := DecodeScenario([]byte(tc.doc))
			if err != nil {
				t.Fatal(err)
			}
			base.Arms = []Arm{{Name: "bare metal", Set: map[string]string{"machine.platform": "native"}}}
			arms, err := base.ArmScenarios()
			if err != nil {
				t.Fatal(err)
			}
			if got, want := arms[0].Scenario.Machine.Costs, fromFile.Machine.Costs; got != want {
				t.Errorf("resolved arm's costs %+v, the file's %+v", got, want)
			}
			if fromFile.Machine.Costs.IPISendNs != platformCosts("native").IPISendNs {
				t.Errorf("a default cost did not follow the platform: %+v", fromFile.Machine.Costs)
			}
		})
	}
	sc, err := DecodeScenario([]byte(`{"version":1,"machine":{"platform":"kvm","costs":{"halted_wake_ns":30000}}}`))
	if err != nil {
		t.Fatal(err)
	}
	native, err := sc.WithKnobs("machine.platform=native")
	if err != nil {
		t.Fatal(err)
	}
	if native.Machine.Costs.HaltedWakeNs != 30000 {
		t.Errorf("the scenario's own halted_wake_ns became %d", native.Machine.Costs.HaltedWakeNs)
	}
}

package engine

import (
	"bytes"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// The guard against forgetting the checkpoint: every field of every type a
// running simulation holds, found by reflection from Sim (through pointers,
// slices, arrays and maps, and through the policy and workload interfaces to
// every kind a scenario can choose), must be listed in
// testdata/checkpoint_fields.txt with how the checkpoint treats it:
//
//	kept     written by ckSave and read back by ckLoad (checkpoint*.go)
//	derived  recomputed on Resume from the scenario or from kept state
//	scratch  holds nothing between two events (filled before it is read)
//	dropped  deliberately not kept (the visual ring, observers), see checkpoint.go
//
// A field added to the engine's state fails this test, named, until it is
// handled in the codec and listed; a field removed fails it until unlisted.
// Adding a kept field changes the format: bump CheckpointVersion.

const ckFieldsFile = "testdata/checkpoint_fields.txt"

// ckRTAppMix is an rt-app description using every kind of state the rtapp
// workload keeps: threads mid-run, blocked on each object, timers shared and
// unique.
const ckRTAppMix = `{"tasks": {
	"a": {"instance": 2, "loop": -1, "lock": "m", "run": 300, "signal": "c", "unlock": "m", "timer": {"ref": "unique", "period": 2000}, "barrier": "b", "sem_post": "s", "resume": "z"},
	"z": {"loop": -1, "lock": "m", "wait": {"ref": "c", "mutex": "m"}, "unlock": "m", "sem_wait": "s", "run": 100, "suspend": "z", "yield": "", "timer": {"ref": "shared", "period": 5000}},
	"p": {"delay": 3000, "loop": 3, "run": 1000, "sleep": 500, "barrier": "b"}}}`

var ckHow = []string{"kept", "derived", "scratch", "dropped"}

// ckStateTypes returns the dynamic types the policy and workload interfaces
// take: one simulation of every workload kind under every policy.
func ckStateTypes(t *testing.T) map[string][]reflect.Type {
	t.Helper()
	kinds, _ := LookupKnob("workload.kind")
	policies, _ := LookupKnob("sched.policy")
	impl := map[string][]reflect.Type{}
	add := func(iface string, v any) {
		rt := reflect.TypeOf(v)
		if !slices.Contains(impl[iface], rt) {
			impl[iface] = append(impl[iface], rt)
		}
	}
	// rtapp is not a choice (it needs a description): it runs ckRTAppMix;
	// nor is trace (it needs a model): it runs ckTraceMix.
	for _, k := range append(slices.Clone(kinds.Choices), WorkloadRTApp, WorkloadTrace) {
		for _, p := range policies.Choices {
			kind := "workload.kind=" + k
			if k == WorkloadRTApp || k == WorkloadTrace {
				kind = "workload.kind=" + WorkloadIdle // then rtapp or trace, with its description or model
			}
			sc, err := DefaultScenario().WithKnobs(kind, "sched.policy="+p, "duration_ms=50", "warmup_ms=10", "workload.wake_sources_per_s=1000", "workload.commit_device_us=200", "sched.balancer=drain")
			if err != nil {
				t.Fatalf("%s under %s: %v", k, p, err)
			}
			if k == WorkloadRTApp {
				sc.Workload.Kind, sc.Workload.RTApp = WorkloadRTApp, ckRTAppMix
			}
			if k == WorkloadTrace {
				sc.Workload.Kind, sc.Workload.Trace = WorkloadTrace, ckTraceMix()
			}
			s, err := NewSim(sc)
			if err != nil {
				t.Fatal(err)
			}
			add("policy", s.pol)
			add("workload", s.wl)
			// Every kind resumes: workloadShell knows it, and its state round-trips.
			s.RunUntil(25e6)
			ck, err := s.AppendCheckpoint(nil, CheckpointOptions{})
			if err != nil {
				t.Fatal(err)
			}
			r, err := Resume(sc, ck)
			if err != nil {
				t.Fatalf("workload %s under %s does not resume: %v", k, p, err)
			}
			again, _ := r.AppendCheckpoint(nil, CheckpointOptions{})
			if !bytes.Equal(again, ck) {
				t.Fatalf("workload %s under %s: the resumed state differs from the saved one", k, p)
			}
		}
	}
	return impl
}

// ckFields lists "Type.field type" for every field reachable from Sim, but
// not inside the scenario (configuration) or a field listed as dropped.
func ckFields(t *testing.T, listed map[string]string) []string {
	impl := ckStateTypes(t)
	config := map[reflect.Type]bool{}
	var conf func(rt reflect.Type)
	conf = func(rt reflect.Type) {
		switch rt.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
			conf(rt.Elem())
		case reflect.Struct:
			if !config[rt] {
				config[rt] = true
				for i := range rt.NumField() {
					conf(rt.Field(i).Type)
				}
			}
		}
	}
	conf(reflect.TypeFor[Scenario]())
	var out []string
	seen := map[reflect.Type]bool{}
	var walk func(rt reflect.Type)
	walk = func(rt reflect.Type) {
		switch rt.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
			walk(rt.Elem())
			return
		case reflect.Interface:
			for _, it := range impl[rt.Name()] {
				walk(it)
			}
			return
		case reflect.Struct:
		default:
			return
		}
		if seen[rt] || rt.PkgPath() != reflect.TypeFor[Sim]().PkgPath() || config[rt] {
			return
		}
		seen[rt] = true
		for i := range rt.NumField() {
			f := rt.Field(i)
			name := fmt.Sprintf("%s.%s %s", rt.Name(), f.Name, f.Type)
			out = append(out, name)
			if !strings.HasPrefix(listed[name], "dropped") {
				walk(f.Type)
			}
		}
	}
	walk(reflect.TypeFor[Sim]())
	slices.Sort(out)
	return out
}

func TestCheckpointCoversEveryField(t *testing.T) {
	data, err := os.ReadFile(ckFieldsFile)
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]string{}
	for n, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		field, how, ok := strings.Cut(line, ": ")
		word, _, _ := strings.Cut(how, " ")
		if !ok || !slices.Contains(ckHow, strings.TrimRight(word, ":")) {
			t.Fatalf("%s:%d: %q: want \"Type.field type: how [why]\", how one of %v", ckFieldsFile, n+1, line, ckHow)
		}
		listed[field] = how
	}
	var missing, gone []string
	found := map[string]bool{}
	for _, f := range ckFields(t, listed) {
		found[f] = true
		if listed[f] == "" {
			missing = append(missing, f)
		}
	}
	for f := range listed {
		if !found[f] {
			gone = append(gone, f)
		}
	}
	slices.Sort(gone)
	for _, f := range missing {
		t.Errorf("%s is state the checkpoint does not know: keep it in ckSave/ckLoad (checkpoint*.go, bumping CheckpointVersion) or say why not, then list it in %s", f, ckFieldsFile)
	}
	for _, f := range gone {
		t.Errorf("%s is listed in %s but no longer exists: take it out of the codec and the list", f, ckFieldsFile)
	}
}

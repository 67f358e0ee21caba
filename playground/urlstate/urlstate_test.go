package urlstate_test

import (
	"reflect"
	"strings"
	"testing"

	"schedplay/playground/urlstate"
)

func TestParse(t *testing.T) {
	tests := []struct {
		desc     string
		frag     string
		want     urlstate.State
		wantKeys []string // keys named by the problems, in order
	}{
		{desc: "empty", frag: "", want: urlstate.State{}},
		{desc: "hash only", frag: "#", want: urlstate.State{}},
		{
			desc: "knobs",
			frag: "#v=1&machine.vcpus=32&workload.clients=64&sched.wake_pull=1&seed=7",
			want: urlstate.State{Knobs: []urlstate.Knob{
				{"machine.vcpus", "32"}, {"workload.clients", "64"}, {"sched.wake_pull", "1"}, {"seed", "7"}}},
		},
		{
			desc: "view keys",
			frag: "v=1&preset=tpcb-32vcpu&compare=sched.wake_pull&speed=20us&embed=1&hide=charts,controls&theme=light",
			want: urlstate.State{Preset: "tpcb-32vcpu", View: urlstate.View{
				Compare: "sched.wake_pull", CompareA: "0", CompareB: "1", Speed: "20us", Embed: true,
				Hide: []string{"controls", "charts"}, Theme: "light"}},
		},
		{
			desc: "compare with values",
			frag: "v=1&compare=machine.platform:native,kvm",
			want: urlstate.State{View: urlstate.View{Compare: "machine.platform", CompareA: "native", CompareB: "kvm"}},
		},
		{
			desc: "missing version reads as current",
			frag: "machine.vcpus=4",
			want: urlstate.State{Knobs: []urlstate.Knob{{"machine.vcpus", "4"}}},
		},
		{desc: "future version falls back", frag: "v=2&machine.vcpus=4", want: urlstate.State{}, wantKeys: []string{"v"}},
		{
			desc:     "bad value keeps the rest",
			frag:     "v=1&machine.vcpus=lots&workload.clients=8",
			want:     urlstate.State{Knobs: []urlstate.Knob{{"workload.clients", "8"}}},
			wantKeys: []string{"machine.vcpus"},
		},
		{desc: "unknown key", frag: "v=1&machine.vcpu=4", wantKeys: []string{"machine.vcpu"}},
		{desc: "markup in key", frag: "v=1&%3Cscript%3E=1", wantKeys: []string{`"<script>"`}},
		{desc: "undecodable key", frag: "v=1&%zz=1", wantKeys: []string{`"%zz"`}},
		{desc: "bad escape", frag: "v=1&seed=%zz", wantKeys: []string{"seed"}},
		{
			desc:     "duplicate keeps first",
			frag:     "v=1&seed=3&seed=4",
			want:     urlstate.State{Knobs: []urlstate.Knob{{"seed", "3"}}},
			wantKeys: []string{"seed"},
		},
		{desc: "bad speed", frag: "v=1&speed=fast", wantKeys: []string{"speed"}},
		{desc: "too slow", frag: "v=1&speed=1ns", wantKeys: []string{"speed"}},
		{desc: "bad hide", frag: "v=1&hide=stage", wantKeys: []string{"hide"}},
		{desc: "a moment", frag: "v=1&t=12s", want: urlstate.State{View: urlstate.View{AtNs: 12e9}}},
		{desc: "a moment without a unit", frag: "v=1&t=12", wantKeys: []string{"t"}},
		{desc: "a negative moment", frag: "v=1&t=-1s", wantKeys: []string{"t"}},
		{desc: "a moment past any run", frag: "v=1&t=3h", wantKeys: []string{"t"}},
		{desc: "bad theme", frag: "v=1&theme=neon", wantKeys: []string{"theme"}},
		{desc: "bad embed", frag: "v=1&embed=yes", wantKeys: []string{"embed"}},
		{desc: "ghosts off", frag: "v=1&ghosts=0", want: urlstate.State{View: urlstate.View{NoGhosts: true}}},
		{desc: "bad ghosts", frag: "v=1&ghosts=2", wantKeys: []string{"ghosts"}},
		{desc: "compare off is kept", frag: "v=1&compare=off", want: urlstate.State{View: urlstate.View{Compare: "off"}}},
		{desc: "compare non-boolean without values", frag: "v=1&compare=workload.clients", wantKeys: []string{"compare"}},
		{desc: "compare unknown knob", frag: "v=1&compare=nope.nope", wantKeys: []string{"compare"}},
		{desc: "compare bad value", frag: "v=1&compare=machine.vcpus:4,x", wantKeys: []string{"compare"}},
		{desc: "preset with slash", frag: "v=1&preset=../etc", wantKeys: []string{"preset"}},
		{desc: "too long", frag: "v=1&seed=" + strings.Repeat("9", urlstate.MaxFragmentBytes), wantKeys: []string{"#"}},
		{desc: "too many keys", frag: strings.Repeat("seed=1&", urlstate.MaxKeys+1), wantKeys: []string{"#"}},
		{desc: "object path", frag: "v=1&machine=4", wantKeys: []string{"machine"}},
		{desc: "a lesson at a step", frag: "v=1&step=3&lesson=wake-sync", want: urlstate.State{View: urlstate.View{Lesson: "wake-sync", LessonStep: 3}}},
		{desc: "a lesson without a step", frag: "v=1&lesson=wake-sync", want: urlstate.State{View: urlstate.View{Lesson: "wake-sync"}}},
		{desc: "a step without a lesson", frag: "v=1&step=2&seed=4", want: urlstate.State{Knobs: []urlstate.Knob{{"seed", "4"}}}, wantKeys: []string{"step"}},
		{desc: "bad lesson name", frag: "v=1&lesson=../x&step=2", wantKeys: []string{"lesson", "step"}},
		{desc: "step zero", frag: "v=1&lesson=a&step=0", want: urlstate.State{View: urlstate.View{Lesson: "a"}}, wantKeys: []string{"step"}},
		{desc: "step not a number", frag: "v=1&lesson=a&step=02", want: urlstate.State{View: urlstate.View{Lesson: "a"}}, wantKeys: []string{"step"}},
		{desc: "step too large", frag: "v=1&lesson=a&step=100", want: urlstate.State{View: urlstate.View{Lesson: "a"}}, wantKeys: []string{"step"}},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			got, probs := urlstate.Parse(tc.frag)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Parse(%q) = %+v, want %+v", tc.frag, got, tc.want)
			}
			var keys []string
			for _, p := range probs {
				keys = append(keys, p.Key)
				if p.Msg == "" {
					t.Errorf("problem for %q has no message", p.Key)
				}
			}
			if !reflect.DeepEqual(keys, tc.wantKeys) {
				t.Errorf("Parse(%q) problems %v, want keys %v", tc.frag, probs, tc.wantKeys)
			}
		})
	}
}

// TestEncodeEscapes: values are escaped on the way out and unescaped on the way
// in (here one the engine then refuses, by its key, with the value as written).
func TestEncodeEscapes(t *testing.T) {
	st := urlstate.State{Knobs: []urlstate.Knob{{"workload.service.dist", "a b&c"}}}
	got := urlstate.Encode(st)
	if want := "v=1&workload.service.dist=a%20b%26c"; got != want {
		t.Fatalf("Encode = %q, want %q", got, want)
	}
	_, probs := urlstate.Parse(got)
	if len(probs) != 1 || !strings.Contains(probs[0].String(), `workload.service.dist: "a b&c" is not one of`) {
		t.Errorf("Parse problems %v, want the key and the unescaped value", probs)
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	tests := []struct {
		desc string
		st   urlstate.State
		want string
	}{
		{desc: "defaults", st: urlstate.State{}, want: "v=1"},
		{
			desc: "everything",
			st: urlstate.State{Preset: "tpcb-32vcpu", Knobs: []urlstate.Knob{{"machine.vcpus", "32"}, {"sched.wake_pull", "1"}},
				View: urlstate.View{Compare: "sched.wake_pull", CompareA: "0", CompareB: "1", Speed: "2ms", Embed: true,
					Hide: []string{"controls"}, Theme: "light", NoGhosts: true, AtNs: 250e6, Lesson: "fan-out", LessonStep: 2}},
			want: "v=1&lesson=fan-out&step=2&preset=tpcb-32vcpu&machine.vcpus=32&sched.wake_pull=1&compare=sched.wake_pull&speed=2ms&t=250ms&theme=light&hide=controls&ghosts=0&embed=1",
		},
		{
			desc: "compare values",
			st:   urlstate.State{View: urlstate.View{Compare: "machine.platform", CompareA: "native", CompareB: "kvm"}},
			want: "v=1&compare=machine.platform:native,kvm",
		},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			got := urlstate.Encode(tc.st)
			if got != tc.want {
				t.Fatalf("Encode = %q, want %q", got, tc.want)
			}
			back, probs := urlstate.Parse(got)
			if len(probs) > 0 {
				t.Fatalf("Parse(Encode) problems: %v", probs)
			}
			if !reflect.DeepEqual(back, tc.st) {
				t.Errorf("Parse(Encode) = %+v, want %+v", back, tc.st)
			}
		})
	}
}

func TestParseSpeed(t *testing.T) {
	tests := []struct {
		tok  string
		want int64
		max  bool
		bad  bool
	}{
		{tok: "max", max: true},
		{tok: "20us", want: 20_000},
		{tok: "2ms", want: 2_000_000},
		{tok: "1s", want: 1_000_000_000},
		{tok: "100ns", want: 100},
		{tok: "99ns", bad: true},
		{tok: "11s", bad: true},
		{tok: "ms", bad: true},
		{tok: "-5ms", bad: true},
		{tok: "5 ms", bad: true},
		{tok: "99999999999999999999s", bad: true},
	}
	for _, tc := range tests {
		t.Run(tc.tok, func(t *testing.T) {
			got, max, err := urlstate.ParseSpeed(tc.tok)
			if (err != nil) != tc.bad {
				t.Fatalf("ParseSpeed(%q) err = %v, want bad=%v", tc.tok, err, tc.bad)
			}
			if got != tc.want || max != tc.max {
				t.Errorf("ParseSpeed(%q) = %d, %v; want %d, %v", tc.tok, got, max, tc.want, tc.max)
			}
		})
	}
}

func TestParseMoment(t *testing.T) {
	tests := []struct {
		tok  string
		want int64
		bad  string // a word of the error, "" when accepted
	}{
		{tok: "12s", want: 12e9},
		{tok: "250ms", want: 250e6},
		{tok: "1.5s", want: 1_500_000_000},
		{tok: "800us", want: 800_000},
		{tok: "800µs", want: 800_000},
		{tok: "7ns", want: 7},
		{tok: ".5ms", want: 500_000},
		{tok: "120s", want: 120e9},
		{tok: "0.000000001s", want: 1},
		{tok: "121s", bad: "longest"},
		{tok: "999999999999999999s", bad: "moment"},
		{tok: "0.5ns", bad: "nanosecond"},
		{tok: "12", bad: "moment"},
		{tok: "s", bad: "moment"},
		{tok: "1.2.3s", bad: "moment"},
		{tok: "-1s", bad: "moment"},
		{tok: "12 s", bad: "moment"},
		{tok: "1e3ms", bad: "moment"},
		{tok: "12h", bad: "moment"},
	}
	for _, tc := range tests {
		t.Run(tc.tok, func(t *testing.T) {
			got, err := urlstate.ParseMoment(tc.tok)
			if tc.bad != "" {
				if err == nil || !strings.Contains(err.Error(), tc.bad) {
					t.Errorf("ParseMoment(%q) = %d, %v; want an error about %q", tc.tok, got, err, tc.bad)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("ParseMoment(%q) = %d, %v; want %d", tc.tok, got, err, tc.want)
			}
			if back, err := urlstate.ParseMoment(urlstate.FormatMoment(got)); back != got || err != nil {
				t.Errorf("FormatMoment(%d) = %q reads back as %d, %v", got, urlstate.FormatMoment(got), back, err)
			}
		})
	}
}

// FuzzParse checks that any fragment parses without panicking, that problems are
// bounded in size, and that what Parse accepts survives Encode unchanged.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "#v=1&machine.vcpus=32", "v=1&compare=machine.platform:native,kvm&hide=charts",
		"v=1&%ff=%00", "v=1&speed=20us&embed=1&theme=light", "v=1&machine.capacity=4x1024,4x512", "v=1&lesson=wake-sync&step=2", "step=3", "seed=18446744073709551615", "&&&==&",
		"v=1&" + "policy=" + func() string { v, _ := urlstate.EncodePolicy("# p\ndef init():\n    pass\n"); return v }()} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, frag string) {
		st, probs := urlstate.Parse(frag)
		for _, p := range probs {
			if len(p.Key) > 100 || len(p.Msg) > 400 {
				t.Fatalf("oversized problem %q", p)
			}
		}
		enc := urlstate.Encode(st)
		back, probs2 := urlstate.Parse(enc)
		if len(probs2) > 0 {
			t.Fatalf("Parse(Encode(%+v)) = problems %v (fragment %q)", st, probs2, enc)
		}
		if !reflect.DeepEqual(back, st) && !(len(st.Knobs) == 0 && len(back.Knobs) == 0) {
			t.Fatalf("round trip %+v -> %q -> %+v", st, enc, back)
		}
	})
}

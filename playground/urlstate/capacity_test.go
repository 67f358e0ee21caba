package urlstate_test

import (
	"slices"
	"strings"
	"testing"

	"schedplay/playground/urlstate"
)

func TestParseCapacity(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []int
		err  string // a part of the message
	}{
		{in: "4x1024,4x512", want: []int{1024, 1024, 1024, 1024, 512, 512, 512, 512}},
		{in: "1024,512,1024", want: []int{1024, 512, 1024}},
		{in: "1x7", want: []int{7}},
		// Out of the engine's range, but well formed: the engine says why.
		{in: "2x0,2000", want: []int{0, 0, 2000}},
		{in: "", err: "is empty"},
		{in: "4x", err: "item 1"},
		{in: "x512", err: "count before x"},
		{in: "0x512", err: "count before x"},
		{in: "1024,,512", err: "item 2"},
		{in: "1024,0512", err: "item 2"},
		{in: "-1", err: "not a capacity"},
		{in: "2x3x4", err: "item 1"},
		{in: "1024 ", err: "item 1"},
		{in: "129x1024", err: "more than 128 CPUs"},
		{in: "100x1,29x1,1", err: "more than 128 CPUs"},
		{in: "99999x1", err: "count before x"},
	} {
		got, err := urlstate.ParseCapacity(tc.in)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("ParseCapacity(%q) = %v, %v; want an error saying %q", tc.in, got, err, tc.err)
		case tc.err == "" && (err != nil || !slices.Equal(got, tc.want)):
			t.Errorf("ParseCapacity(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestCapacityInTheFragment(t *testing.T) {
	st, probs := urlstate.Parse("v=1&machine.vcpus=8&machine.capacity=4x1024,4x512")
	if len(probs) > 0 || !slices.Equal(st.Capacity, []int{1024, 1024, 1024, 1024, 512, 512, 512, 512}) {
		t.Fatalf("Parse: %v, problems %v", st.Capacity, probs)
	}
	if enc := urlstate.Encode(st); enc != "v=1&machine.vcpus=8&machine.capacity=4x1024,4x512" {
		t.Errorf("Encode = %q", enc)
	}
	// A bad list is a problem naming the field; the rest of the link stands.
	st, probs = urlstate.Parse("v=1&machine.vcpus=8&machine.capacity=4x1024,fast")
	if len(probs) != 1 || probs[0].Key != "machine.capacity" || st.Capacity != nil || len(st.Knobs) != 1 {
		t.Errorf("a bad capacity: state %+v, problems %v; want one problem naming machine.capacity", st, probs)
	}
	t.Logf("%v", probs)
}

func TestFormatCapacity(t *testing.T) {
	for _, tc := range []struct {
		in   []int
		want string
	}{
		{nil, ""},
		{[]int{1024}, "1024"},
		{[]int{1024, 1024, 512}, "2x1024,512"},
		{[]int{512, 1024, 512}, "512,1024,512"},
	} {
		if got := urlstate.FormatCapacity(tc.in); got != tc.want {
			t.Errorf("FormatCapacity(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzCapacity: ParseCapacity never panics, and what it reads writes back
// (FormatCapacity) to a value it reads the same, no longer than the first.
func FuzzCapacity(f *testing.F) {
	for _, s := range []string{"4x1024,4x512", "1024,512", "1,1", "128x1", "0x1", "x", ",", "1x", "007"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		caps, err := urlstate.ParseCapacity(v)
		if err != nil {
			if len(err.Error()) > 300 {
				t.Fatalf("oversized message %q", err)
			}
			return
		}
		text := urlstate.FormatCapacity(caps)
		if len(text) > len(v) {
			t.Fatalf("%q reads %v and writes the longer %q", v, caps, text)
		}
		back, err := urlstate.ParseCapacity(text)
		if err != nil || !slices.Equal(back, caps) {
			t.Fatalf("%q -> %v -> %q -> %v, %v", v, caps, text, back, err)
		}
	})
}

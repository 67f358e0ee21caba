package urlstate

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"strconv"
	"strings"
	"testing"
)

func deflated(t *testing.T, data []byte) string {
	t.Helper()
	var buf bytes.Buffer
	w, err := flate.NewWriter(&buf, flate.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	w.Close()
	return base64.RawURLEncoding.EncodeToString(buf.Bytes())
}

// A policy round-trips through the fragment, after the other keys, and a bad
// policy key is refused by name with why, leaving the rest of the fragment.
func TestPolicyKey(t *testing.T) {
	src := "# my policy\ndef enqueue(p, f):\n    scx.dsq_insert(p, scx.DSQ_GLOBAL, scx.SLICE_DFL, f)\n"
	frag := Encode(State{Preset: "hackbench", Policy: src, View: View{Speed: "2ms"}})
	st, probs := Parse(frag)
	if len(probs) > 0 || st.Policy != src || st.Preset != "hackbench" || st.View.Speed != "2ms" {
		t.Fatalf("Parse(Encode) = %+v, %v", st, probs)
	}
	tests := []struct {
		name, value, want string
	}{
		{"not base64", "!!!", "is not base64url"},
		{"not deflate", base64.RawURLEncoding.EncodeToString([]byte("plain text")), "does not inflate"},
		{"a bomb", deflated(t, make([]byte, 1<<20)), "inflates to more than 32768 bytes"},
		{"not text", deflated(t, []byte{0xff, 0xfe, 0x00}), "is not UTF-8"},
		{"empty", deflated(t, nil), "is empty"},
		{"too long", strings.Repeat("A", MaxPolicyValueBytes+1), "above the limit 3000"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st, probs := Parse("v=1&preset=hackbench&policy=" + tc.value)
			if len(probs) != 1 || probs[0].Key != "policy" || !strings.Contains(probs[0].Msg, tc.want) {
				t.Fatalf("problems %v, want one naming policy: %q", probs, tc.want)
			}
			if st.Policy != "" || st.Preset != "hackbench" {
				t.Errorf("state %+v: the bad policy was kept or the rest lost", st)
			}
		})
	}
	// A policy whose encoding is over the limit is left out of the fragment.
	var b strings.Builder
	for x := uint32(1); b.Len() < 20_000; { // numbers a deflater cannot shrink much
		x = x*1664525 + 1013904223
		b.WriteString("X = " + strconv.FormatUint(uint64(x), 10) + "\n")
	}
	if _, ok := EncodePolicy(b.String()); ok {
		t.Errorf("EncodePolicy says a %d-byte source of random numbers fits", b.Len())
	}
	if f := Encode(State{Policy: b.String()}); strings.Contains(f, "&policy=") {
		t.Errorf("Encode wrote a policy over the limit")
	}
}

package web

import (
	"context"
	"strings"
	"testing"
)

func TestIDPrefixes(t *testing.T) {
	for _, tc := range []struct {
		desc, hash string
		want       []string
	}{
		{"no underscores", "abcdefghijklm", []string{"abcdefghijk", "abcdefghijkl", "abcdefghijklm"}},
		{"trailing underscore extends", "abcdefghij_lm", []string{"abcdefghij_l", "abcdefghij_lm"}},
		{"underscore run", "abcdefghij__m", []string{"abcdefghij__m"}},
		{"inner underscore is fine", "a_cdefghijkl", []string{"a_cdefghijk", "a_cdefghijkl"}},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			if got := idPrefixes(tc.hash); strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("idPrefixes(%q) = %q, want %q", tc.hash, got, tc.want)
			}
		})
	}
}

func TestShareHash(t *testing.T) {
	a, b := shareHash([]byte(`{"version":1}`)), shareHash([]byte(`{"version":1} `))
	if len(a) != maxIDLen || a == b {
		t.Fatalf("shareHash gave %q and %q: want %d characters, different for different input", a, b, maxIDLen)
	}
	if a != shareHash([]byte(`{"version":1}`)) {
		t.Fatal("shareHash is not deterministic")
	}
	if !validID(a) || !validID(a[:idLen]) {
		t.Fatalf("%q or its prefix is not a valid ID", a)
	}
}

func TestValidID(t *testing.T) {
	for _, tc := range []struct {
		id   string
		want bool
	}{
		{"goswvk-kBmG", true},
		{"AAAAAAAAAAA_x", true},
		{"short", false},
		{"", false},
		{"with/slash1", false},
		{"with space1", false},
		{"non-ascii-é", false},
		{strings.Repeat("a", 43), true},
		{strings.Repeat("a", 44), false},
	} {
		if got := validID(tc.id); got != tc.want {
			t.Errorf("validID(%q) = %v, want %v", tc.id, got, tc.want)
		}
	}
}

// TestPutShareCollision plants a different scenario on a scenario's short ID and
// checks that the scenario moves to a longer prefix of its hash, while the planted
// one stays.
func TestPutShareCollision(t *testing.T) {
	ctx := context.Background()
	for _, kind := range storeKinds() {
		t.Run(kind.name, func(t *testing.T) {
			st := kind.open(t)
			doc := []byte(`{"version":1}`)
			prefixes := idPrefixes(shareHash(doc))
			mustPut(t, st, prefixes[0], []byte("squatter"))
			id, err := putShare(ctx, st, doc)
			if err != nil {
				t.Fatal(err)
			}
			if id != prefixes[1] {
				t.Fatalf("putShare after a collision = %q, want the next prefix %q", id, prefixes[1])
			}
			mustGet(t, st, prefixes[0], []byte("squatter"))
			mustGet(t, st, id, doc)
			if again, err := putShare(ctx, st, doc); err != nil || again != id {
				t.Fatalf("putShare again = %q, %v; want %q", again, err, id)
			}
		})
	}
}

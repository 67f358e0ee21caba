package playground

import (
	"strings"
	"testing"
)

func TestEmbedCode(t *testing.T) {
	tests := []struct {
		desc, src, label string
		want             []string
	}{
		{"one run", "https://example.com/#v=1&embed=1", "",
			[]string{`src="https://example.com/#v=1&amp;embed=1"`, `title="schedplay"`}},
		{"a comparison titles it", "https://example.com/#v=1", "pull off ↔ pull on",
			[]string{`title="schedplay: pull off ↔ pull on"`}},
		{"quotes cannot leave the attribute", `https://example.com/"><script>`, `a"b`,
			[]string{`src="https://example.com/&#34;&gt;&lt;script&gt;"`, `title="schedplay: a&#34;b"`}},
	}
	for _, tc := range tests {
		got := embedCode(tc.src, tc.label)
		if !strings.HasPrefix(got, "<iframe ") || !strings.HasSuffix(got, "></iframe>") {
			t.Errorf("%s: %s is not one iframe", tc.desc, got)
		}
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %s lacks %s", tc.desc, got, w)
			}
		}
	}
}

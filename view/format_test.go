package view_test

import (
	"math"
	"os"
	"regexp"
	"strings"
	"testing"

	"schedplay/engine"
	"schedplay/view"
)

func TestFormat(t *testing.T) {
	tests := []struct {
		got, want string
	}{
		{view.Compact(7819), "7.82k"},
		{view.Compact(22722), "22.7k"},
		{view.Compact(950), "950"},
		{view.Compact(999.7), "1.00k"},
		{view.Compact(0.5), "0.50"},
		{view.Compact(0), "0"},
		{view.Compact(1.2e6), "1.20M"},
		{view.Compact(-3400), "−3.40k"},
		{view.Compact(math.NaN()), "–"},
		{view.Grouped(100000), "100\u2009000"},
		{view.Grouped(256), "256"},
		{view.Grouped(-1234567), "−1\u2009234\u2009567"},
		{view.Duration(850), "850 ns"},
		{view.Duration(2000), "2.00 µs"},
		{view.Duration(78_000), "78.0 µs"},
		{view.Duration(8.5e6), "8.50 ms"},
		{view.Duration(14e9), "14.0 s"},
		{view.Duration(0), "0"},
		{view.SimTime(2_431_507_000), "2.431\u2009507 s"},
		{view.SimTime(0), "0.000\u2009000 s"},
		{view.Percent(0.71), "71%"},
		{view.Percent(0.041), "4.1%"},
		{view.Percent(0), "0%"},
		{view.Percent(0.000003), "<0.1%"},
		{view.Percent(0.0006), "0.1%"},
		{view.VCPUs(9.84), "9.8"},
		{view.VCPUs(0.04), "0.04"},
		{view.VCPUs(0.996), "1.0"},
		{view.VCPUs(0), "0.0"},
		{view.Duration(99_960), "100 µs"},
		{view.Duration(99_900), "99.9 µs"},
		{view.Duration(9_996), "10.0 µs"},
		{view.Change(7819, 22722), "2.9x"},
		{view.Change(100, 300), "3.0x"},
		{view.Change(100, 199), "+99%"},
		{view.Change(100, 200), "2.0x"},
		{view.Change(1, 14), "14x"},
		{view.Change(8.5, 2.9), "−66%"},
		{view.Change(300, 100), "−67%"},
		{view.Change(100, 104.4), "+4.4%"},
		{view.Change(100, 102), "+2%"},
		{view.Change(100, 99.7), "−0.3%"},
		{view.Change(100, 100), "±0%"},
		{view.Change(100, 100.04), "±0%"},
		{view.Change(0, 5), ""},
		{view.Change(5, math.NaN()), ""},
		{view.Change(5, math.Inf(1)), ""},
		{view.Change(5, 0), "−100%"},
		{view.Ratio(1.0957), "1.10x"},
		{view.Ratio(0.341), "0.34x"},
		{view.Ratio(math.NaN()), "–"},
		{view.Seconds(3609), "3.6 s"},
		{view.Seconds(24000), "24 s"},
		{view.Seconds(332), "0.33 s"},
		{view.Seconds(12500), "12.5 s"},
		{view.Clip("abcdef", 4), "abc…"},
		{view.Clip("abc", 4), "abc"},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

func TestSeries(t *testing.T) {
	s := view.NewSeries(1_000_000, 8)
	// 1000 completions per ms, added at uneven times, for 40 ms.
	var tNs int64
	for _, step := range []int64{300_000, 2_700_000, 1_000_000, 6_000_000, 30_000_000} {
		tNs += step
		s.Add(tNs, view.Totals{Completed: tNs / 1000, BusyNs: 2 * tNs})
	}
	if len(s.Buckets) > 8 {
		t.Fatalf("%d buckets, above the maximum 8", len(s.Buckets))
	}
	var sum int64
	for _, b := range s.Buckets {
		sum += b.Completed
	}
	if sum != tNs/1000 {
		t.Errorf("buckets hold %d completions, want %d", sum, tNs/1000)
	}
	if s.WidthNs <= 1_000_000 {
		t.Errorf("width %d: the buckets should have merged", s.WidthNs)
	}
	for i, v := range s.Values(nil, view.Throughput) {
		if math.Abs(v-1e6) > 1e3 {
			t.Errorf("bucket %d throughput %v/s, want 1e6", i, v)
		}
	}
	for i, v := range s.Values(nil, view.BusyVCPUs) {
		if math.Abs(v-2) > 1e-6 {
			t.Errorf("bucket %d busy %v, want 2", i, v)
		}
	}
	if s.EndNs() != tNs {
		t.Errorf("EndNs %d, want %d", s.EndNs(), tNs)
	}
}

func TestCharts(t *testing.T) {
	for _, tc := range []struct{ in, want float64 }{{0, 1}, {7.3, 10}, {1800, 2000}, {23000, 25000}, {0.31, 0.5}, {100, 100}} {
		if got := view.NiceCeil(tc.in); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("NiceCeil(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
	sc := view.Scale{X0: 0, X1: 10, Y1: 100}
	d := view.LinePath([]float64{0, 10}, []float64{0, 100}, sc)
	p := view.Plot()
	want := "M" + f1(float64(p.X)) + "," + f1(float64(p.Y+p.H)) + "L" + f1(float64(p.X+p.W)) + "," + f1(float64(p.Y))
	if d != want {
		t.Errorf("LinePath = %q, want %q", d, want)
	}
	if ticks := view.YTicks(sc, view.Compact); len(ticks) != 3 || ticks[2].Text != "100" {
		t.Errorf("YTicks = %+v", ticks)
	}
}

func f1(v float64) string {
	s := []byte{}
	n := int64(math.Round(v * 10))
	s = append(s, []byte(itoa(int(n/10)))...)
	return string(s) + "." + itoa(int(n%10))
}

func TestLatencyHistogram(t *testing.T) {
	edge := view.HistEdge(10) // 100 µs, a bin edge
	tests := []struct {
		desc    string
		buckets []engine.LatencyBucket
		want    map[int]int64 // bin -> count; every other bin empty
	}{
		{desc: "nothing measured", want: map[int]int64{}},
		{desc: "buckets inside one bin add up", buckets: []engine.LatencyBucket{
			{LowUs: 110, HighUs: 113, Count: 4}, {LowUs: 113, HighUs: 116.5, Count: 6}},
			want: map[int]int64{10: 10}},
		{desc: "a bucket straddling an edge goes where its midpoint is", buckets: []engine.LatencyBucket{
			{LowUs: edge - 1, HighUs: edge + 2, Count: 3}, {LowUs: edge - 2, HighUs: edge + 1, Count: 5}},
			want: map[int]int64{10: 3, 9: 5}},
		{desc: "below 1 µs and above 10 s land in the end bins", buckets: []engine.LatencyBucket{
			{LowUs: 0.1, HighUs: 0.2, Count: 2}, {LowUs: 2e7, HighUs: 2.1e7, Count: 1}},
			want: map[int]int64{0: 2, view.HistBins - 1: 1}},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			h := view.LatencyHistogram(tc.buckets)
			var n int64
			for i, c := range h.Counts {
				if c != tc.want[i] {
					t.Errorf("bin %d (%.3g µs) holds %d, want %d", i, view.HistEdge(i), c, tc.want[i])
				}
				n += c
			}
			if h.N != n {
				t.Errorf("N = %d, the bins hold %d", h.N, n)
			}
		})
	}
	if view.HistBin(math.NaN()) != 0 {
		t.Error("NaN must land in the first bin")
	}
}

// The page's stylesheet repeats the palettes so the page is right before the
// wasm loads: the dark one in :root, the light one's differences in
// :root.theme-light. A colour the light block leaves out is the dark one, so it
// must be the same in both palettes.
func TestStylesheetMatchesPalette(t *testing.T) {
	css, err := os.ReadFile("../static/style.css")
	if err != nil {
		t.Fatal(err)
	}
	block := func(sel string) string {
		s := string(css)
		i := strings.Index(s, sel+" {")
		if i < 0 {
			t.Fatalf("style.css has no %s block", sel)
		}
		s = s[i:]
		return s[:strings.Index(s, "}")]
	}
	lookup := func(block, name string) (string, bool) {
		m := regexp.MustCompile(`(?:^|[\s;{])` + regexp.QuoteMeta(name) + `:\s*(#[0-9a-f]{6})`).FindStringSubmatch(block)
		if m == nil {
			return "", false
		}
		return m[1], true
	}
	root, light := block(":root"), block(":root.theme-light")
	dark, lightP := view.Dark(), view.Light()
	lightVars := lightP.CSSVars()
	for name, want := range dark.CSSVars() {
		got, ok := lookup(root, name)
		switch {
		case !ok:
			t.Errorf("style.css :root lacks %s", name)
		case got != want:
			t.Errorf("style.css %s = %s, dark palette %s", name, got, want)
		}
		wantLight := lightVars[name]
		if got, ok := lookup(light, name); ok {
			if got != wantLight {
				t.Errorf("style.css :root.theme-light %s = %s, light palette %s", name, got, wantLight)
			}
		} else if wantLight != want {
			t.Errorf("style.css :root.theme-light lacks %s: the light palette's %s is not the dark %s", name, wantLight, want)
		}
	}
}

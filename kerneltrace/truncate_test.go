package kerneltrace

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// where finds the place an error names: "line N" or "offset N" (a byte
// offset in the file, or in the inflated data for gzip).
var where = regexp.MustCompile(`(line|offset|inflated byte) (\d+)`)

// TestTruncated cuts a trace of each format at several points and checks
// that both readers refuse it, naming the line (text) or a byte offset at
// or before the cut (binary), not just "unexpected EOF".
func TestTruncated(t *testing.T) {
	st := genSteps(3000, 4)
	text := genText(st, 4, true)
	html := []byte(`<!DOCTYPE html><html><body><script class="trace-data" type="application/text">` + "\n" + string(text) + "</script></body></html>")
	chrome := []byte(`{"traceEvents": [], "systemTraceEvents": ` + strconv.Quote(string(text)) + `}`)
	for _, tc := range []struct {
		name string
		data []byte
		unit string // "line", "offset" or "inflated byte"
	}{
		{"text", text, "line"},
		{"text.gz", gz(text), "inflated byte"},
		{"perfetto", genPerfetto(st, 4, 200, false, false), "offset"},
		{"perfetto-zlib", genPerfetto(st, 4, 700, true, true), "offset"},
		{"perfetto.gz", gz(genPerfetto(st, 4, 200, false, false)), "inflated byte"},
		{"trace.dat-v6", genDat(st, 4, false, false), "offset"},
		{"trace.dat-v7", genDat(st, 4, true, false), "offset"},
		{"trace.dat-v7z", genDat(st, 4, true, true), "offset"},
		{"systrace-html", html, "offset"},
		{"chrome-json", chrome, "offset"},
	} {
		for _, frac := range []float64{0.002, 0.1, 0.37, 0.5, 0.81, 0.999} {
			cut := int(frac * float64(len(tc.data)))
			if tc.unit == "line" {
				for cut > 0 && tc.data[cut-1] == '\n' {
					cut-- // a cut at a line's end leaves a shorter, whole trace
				}
			}
			data := tc.data[:cut]
			t.Run(tc.name+"/"+strconv.Itoa(cut), func(t *testing.T) {
				_, rerr := Read(data)
				_, _, serr := ReadModelBytes(data, Options{})
				for _, err := range []error{rerr, serr} {
					if err == nil {
						t.Fatalf("a trace cut at byte %d of %d was read", cut, len(tc.data))
					}
					m := where.FindStringSubmatch(err.Error())
					if m == nil || m[1] != tc.unit {
						t.Fatalf("error %q names no %s", err, tc.unit)
					}
					n, _ := strconv.Atoi(m[2])
					switch tc.unit {
					case "line":
						if want := bytes.Count(data, []byte{'\n'}) + 1; n != want {
							t.Fatalf("error %q; the cut is in line %d", err, want)
						}
					case "offset":
						if n > cut && !strings.Contains(err.Error(), "past the end of the file") {
							t.Fatalf("error %q names an offset past the cut at %d", err, cut)
						}
					}
				}
				if rerr.Error() != serr.Error() {
					t.Logf("whole: %v\nstreamed: %v", rerr, serr)
				}
			})
		}
	}
}

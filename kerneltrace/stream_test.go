package kerneltrace

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"testing"

	"github.com/go-json-experiment/json"
)

// streamOpts are option sets whose window counts from the first event, as
// a streaming caller gives it.
func streamOpts() map[string]Options {
	return map[string]Options{
		"default":  {},
		"keepcut":  {KeepCut: true},
		"alltimed": {AllTimed: true, TrustWakeup: true},
		"window":   {FromFirst: true, StartNs: 1_000_000, EndNs: 3_000_000, KeepCut: true},
		"names":    {Names: []string{"t3", "w1/1001", "B"}},
	}
}

// absolute turns a FromFirst window into Build's absolute one.
func absolute(o Options, tr *Trace) Options {
	if o.FromFirst && len(tr.Events) > 0 {
		o.FromFirst = false
		o.StartNs += tr.Events[0].Ts
		if o.EndNs > 0 {
			o.EndNs += tr.Events[0].Ts
		}
	}
	return o
}

func modelJSON(t *testing.T, m *Model) string {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func gz(data []byte) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write(data)
	w.Close()
	return b.Bytes()
}

// sameAsWhole checks that ReadModel gives Read and Build's model and
// summary, or fails where they fail.
func sameAsWhole(t *testing.T, data []byte, opts Options) *Summary {
	t.Helper()
	tr, rerr := Read(data)
	m, sum, serr := ReadModelBytes(data, opts)
	if (rerr == nil) != (serr == nil) {
		t.Fatalf("Read: %v; ReadModel: %v", rerr, serr)
	}
	if rerr != nil {
		return nil
	}
	want, err := Build(tr, absolute(opts, tr))
	if err != nil {
		t.Fatal(err)
	}
	if a, b := modelJSON(t, want), modelJSON(t, m); a != b {
		t.Fatalf("streamed model differs:\nwhole    %.600s\nstreamed %.600s", a, b)
	}
	if sum.Events != len(tr.Events) || sum.CPUs != tr.CPUs || sum.ValidFromNs != tr.ValidFromNs || sum.Format != tr.Format ||
		sum.LostEvents != tr.LostEvents || sum.KernelRelease != tr.KernelRelease {
		t.Fatalf("summary %+v, trace: %d events, %d CPUs, valid from %d", sum, len(tr.Events), tr.CPUs, tr.ValidFromNs)
	}
	if n := len(tr.Events); n > 0 && (sum.FirstNs != tr.Events[0].Ts || sum.LastNs != tr.Events[n-1].Ts) {
		t.Fatalf("summary spans [%d, %d], trace [%d, %d]", sum.FirstNs, sum.LastNs, tr.Events[0].Ts, tr.Events[n-1].Ts)
	}
	return sum
}

func TestStreamSameAsWhole(t *testing.T) {
	for name, data := range corpus() {
		for on, o := range streamOpts() {
			t.Run(name+"/"+on, func(t *testing.T) {
				sum := sameAsWhole(t, data, o)
				if sum != nil && on == "default" {
					t.Logf("%d events, %d passes, %d held at most", sum.Events, sum.Passes, sum.MaxHeld)
				}
			})
		}
		if data[0] != 0x17 { // trace.dat is read whole when gzipped
			t.Run(name+"/gzip", func(t *testing.T) { sameAsWhole(t, gz(data), Options{}) })
		}
	}
}

// TestStreamPasses checks the first pass's guesses: a trace in order
// with its facts up front takes one pass, holding few events; one whose
// kernel release comes last (an old one, whose prev_state reads
// otherwise), or whose order is off by more than the first stretch
// showed, takes two and still matches (TestStreamSameAsWhole).
func TestStreamPasses(t *testing.T) {
	st := genSteps(40000, 4)
	for _, tc := range []struct {
		name     string
		data     []byte
		passes   int
		maxHeldK int // thousands of events held at most
	}{
		{"text", genText(st, 4, false), 1, 1},
		// A thread's tgid column comes on its own lines, after the switch
		// that first names it: the builder reads it at the end.
		{"text-tgid", genText(st, 4, true), 1, 1},
		{"perfetto", genPerfetto(st, 4, 400, false, false), 1, 2 * learnHold / 1000},
		{"trace.dat", genDat(st, 4, false, false), 1, 1},
		{"perfetto-tree-last", genPerfetto(st, 4, 400, false, true), 2, 2 * learnHold / 1000},
		// A CPU's bundle of 2*100000/4 events, more than the first pass
		// holds before it sees another CPU's bundle go back in time.
		{"perfetto-long-cycles", genPerfetto(genSteps(300000, 4), 4, 100000, false, false), 2, 420},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, sum, err := ReadModelBytes(tc.data, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if sum.Passes != tc.passes || sum.MaxHeld > tc.maxHeldK*1000 {
				t.Fatalf("%d passes, %d held; want %d, at most %d000", sum.Passes, sum.MaxHeld, tc.passes, tc.maxHeldK)
			}
			t.Log(fmt.Sprintf("%d passes, %d held", sum.Passes, sum.MaxHeld))
		})
	}
}

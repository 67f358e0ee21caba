package trace

import (
	"bufio"
	"io"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"schedplay/engine"
)

// BenchmarkWrite traces 5 ms of the 32-vCPU pull scenario's steady state (the run
// up to the window is not timed) and reports bytes per simulated ms and the cost
// per trace event.
func BenchmarkWrite(b *testing.B) {
	for _, tc := range []struct {
		name string
		opts Options
	}{
		{"full", Options{CompletionBucketNs: 100_000}},
		{"nodecisions", Options{NoDecisions: true}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			sc, start, until := pullScenario(b, 5)
			var bytes, events int64
			for b.Loop() {
				b.StopTimer()
				sim := newSim(b, sc)
				sim.RunUntil(start)
				b.StartTimer()
				opts := tc.opts
				opts.StartNs, opts.UntilNs = start, until
				var cw countingWriter
				st, err := Write(&cw, sim, opts)
				if err != nil {
					b.Fatal(err)
				}
				bytes, events = cw.n, st.Events
			}
			b.ReportMetric(float64(bytes)/float64((until-start)/1e6), "B/sim-ms")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(events), "ns/event")
		})
	}
}

// BenchmarkSimOnly runs the same window without tracing: the baseline for
// BenchmarkWrite's cost.
func BenchmarkSimOnly(b *testing.B) {
	sc, start, until := pullScenario(b, 5)
	for b.Loop() {
		b.StopTimer()
		sim := newSim(b, sc)
		sim.RunUntil(start)
		b.StartTimer()
		sim.RunUntil(until)
	}
}

// BenchmarkEncode compares the two ways to encode a typical event (a decision
// instant): the hand-appended bytes Write uses and a jsontext.Encoder writing
// the same members token by token.
func BenchmarkEncode(b *testing.B) {
	d := engine.Decision{AtNs: 150_800_567, Kind: engine.DecIPISuppressed, CPU: 8, Target: 19, Thread: 39,
		Reason: "target CPU's load is 2 or more; it will see the wake at its next reschedule", Value: 2}
	label := "backend #39"
	b.Run("append", func(b *testing.B) {
		sc := loadScenario(b, "testdata/two-cpu.json")
		tw := newWriter(io.Discard, newSim(b, sc), Options{}, 0, 1)
		tw.labels = [][]byte{39: quote(nil, label)}
		tw.sargs = make([][]byte, 40)
		tw.tracks = append(tw.tracks, make([]track, 8)...)
		for i := range tw.tracks {
			tw.tracks[i].tid = i + 1
		}
		for b.Loop() {
			tw.decision(d)
		}
		b.SetBytes(tw.stats.Bytes / int64(b.N))
	})
	b.Run("jsontext", func(b *testing.B) {
		bw := bufio.NewWriterSize(io.Discard, 64<<10)
		enc := jsontext.NewEncoder(bw)
		enc.WriteToken(jsontext.BeginArray)
		for b.Loop() {
			enc.WriteToken(jsontext.BeginObject)
			enc.WriteToken(jsontext.String("ph"))
			enc.WriteToken(jsontext.String("i"))
			enc.WriteToken(jsontext.String("ts"))
			enc.WriteToken(jsontext.Float(float64(d.AtNs) / 1000))
			enc.WriteToken(jsontext.String("pid"))
			enc.WriteToken(jsontext.Int(1))
			enc.WriteToken(jsontext.String("tid"))
			enc.WriteToken(jsontext.Int(int64(d.CPU) + 1))
			enc.WriteToken(jsontext.String("s"))
			enc.WriteToken(jsontext.String("t"))
			enc.WriteToken(jsontext.String("cat"))
			enc.WriteToken(jsontext.String("decision"))
			enc.WriteToken(jsontext.String("name"))
			enc.WriteToken(jsontext.String(d.Kind.String()))
			enc.WriteToken(jsontext.String("args"))
			enc.WriteToken(jsontext.BeginObject)
			enc.WriteToken(jsontext.String("reason"))
			enc.WriteToken(jsontext.String(d.Reason))
			enc.WriteToken(jsontext.String("target"))
			enc.WriteToken(jsontext.Int(int64(d.Target)))
			enc.WriteToken(jsontext.String("thread"))
			enc.WriteToken(jsontext.String(label))
			enc.WriteToken(jsontext.String("value"))
			enc.WriteToken(jsontext.Int(d.Value))
			enc.WriteToken(jsontext.EndObject)
			enc.WriteToken(jsontext.EndObject)
		}
	})
}

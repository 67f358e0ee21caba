package engine

import (
	"bytes"
	"compress/gzip"
	"testing"
)

// benchCheckpoint is the default preset's first arm at the end of its 12 s
// warm-up, with the page's warm-up window: the checkpoint the page resumes
// most often.
func benchCheckpoint(b *testing.B) (Scenario, *Sim, []byte) {
	b.Helper()
	base := loadExample(b, "tpcb-32vcpu")
	sc := loadExample(b, "tpcb-32vcpu", armSets(b, base, "pull off")...)
	s, err := NewSim(sc)
	if err != nil {
		b.Fatal(err)
	}
	s.AddWindow(0, sc.WarmupMs)
	s.SetVisual(false)
	s.RunUntil(sc.WarmupMs * 1e6)
	ck, err := s.AppendCheckpoint(nil, CheckpointOptions{})
	if err != nil {
		b.Fatal(err)
	}
	return sc, s, ck
}

// reportSize reports the checkpoint's size, raw and gzip-compressed as the
// page's bundle serves it.
func reportSize(b *testing.B, ck []byte) {
	var z bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
	zw.Write(ck)
	zw.Close()
	b.ReportMetric(float64(len(ck)), "bytes")
	b.ReportMetric(float64(z.Len()), "gzip-bytes")
}

// BenchmarkCheckpointEncode: AppendCheckpoint of tpcb-32vcpu at 12 s.
//
//	go test ./engine -run '^$' -bench Checkpoint
func BenchmarkCheckpointEncode(b *testing.B) {
	_, s, ck := benchCheckpoint(b)
	buf := make([]byte, 0, len(ck))
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, err = s.AppendCheckpoint(buf[:0], CheckpointOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	reportSize(b, ck)
}

// BenchmarkCheckpointDecode: Resume of the same checkpoint (the scenario's
// validation and key included, as the worker pays them).
func BenchmarkCheckpointDecode(b *testing.B) {
	sc, _, ck := benchCheckpoint(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Resume(sc, ck); err != nil {
			b.Fatal(err)
		}
	}
	reportSize(b, ck)
}

package kerneltrace

import (
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"
)

// heapPeak samples the live heap while it runs, for a memory figure of a
// read: ReadMemStats stops the world briefly, so every 5 ms.
type heapPeak struct {
	stop chan struct{}
	wg   sync.WaitGroup
	peak uint64
}

func startHeapPeak() *heapPeak {
	h := &heapPeak{stop: make(chan struct{})}
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			h.peak = max(h.peak, ms.HeapInuse)
			select {
			case <-h.stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	return h
}

func (h *heapPeak) end() uint64 {
	close(h.stop)
	h.wg.Wait()
	return h.peak
}

func heapInuse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// BenchmarkStream100MB reads a trace of about 100 MB in each format from a
// file, streamed (ReadModel) and whole (os.ReadFile, Read, Build), and
// reports the peak live heap above what was live before (peak-MB), the
// model's own size (model-MB: live after, with the model kept), and their
// ratio. The traces are generated (genSteps: 4 CPUs, 32 threads, a
// wakeup and a switch per step) into a temporary file, never checked in.
// go test ./kerneltrace -run '^$' -bench Stream100MB -benchtime 1x
func BenchmarkStream100MB(b *testing.B) {
	if testing.Short() {
		b.Skip("writes 100 MB files")
	}
	dir := b.TempDir()
	for _, f := range []struct {
		name string
		gen  func() []byte
	}{
		{"text", func() []byte { return genText(genSteps(340_000, 4), 4, false) }},
		{"perfetto", func() []byte { return genPerfetto(genSteps(1_300_000, 4), 4, 2000, false, false) }},
		{"trace.dat", func() []byte { return genDat(genSteps(450_000, 4), 4, false, false) }},
	} {
		path := filepath.Join(dir, f.name)
		data := f.gen()
		if err := os.WriteFile(path, data, 0o644); err != nil {
			b.Fatal(err)
		}
		size := int64(len(data))
		data = nil
		for _, mode := range []string{"stream", "whole"} {
			b.Run(f.name+"/"+mode, func(b *testing.B) {
				b.SetBytes(size)
				var peak, model uint64
				for b.Loop() {
					base := heapInuse()
					h := startHeapPeak()
					var m *Model
					if mode == "stream" {
						file, err := os.Open(path)
						if err != nil {
							b.Fatal(err)
						}
						m, _, err = ReadModel(file, size, Options{})
						file.Close()
						if err != nil {
							b.Fatal(err)
						}
					} else {
						data, err := os.ReadFile(path)
						if err != nil {
							b.Fatal(err)
						}
						tr, err := Read(data)
						if err != nil {
							b.Fatal(err)
						}
						if m, err = Build(tr, Options{}); err != nil {
							b.Fatal(err)
						}
					}
					peak = max(peak, h.end()-min(base, h.peak))
					model = heapInuse() - min(base, heapInuse())
					runtime.KeepAlive(m)
				}
				b.ReportMetric(float64(size)/1e6, "file-MB")
				b.ReportMetric(float64(peak)/1e6, "peak-MB")
				b.ReportMetric(float64(model)/1e6, "model-MB")
				b.ReportMetric(float64(peak)/float64(max(model, 1)), "peak/model")
			})
		}
	}
}

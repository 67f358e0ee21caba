package tracefile

import "testing"

// FuzzOpen: whatever the file, Open and Model return an error or a summary
// and a model; none panics (the trace worker would stop).
func FuzzOpen(f *testing.F) {
	f.Add(textTrace(), 0.0, 0.0)
	f.Add(textTrace()[:300], 1.0, 2.0)
	f.Add([]byte("\x0a\x05\x08\x01\x10\x02"), 0.0, 5.0)
	f.Add([]byte("\x17\x08\x44tracing6\x00"), 0.5, 0.0)
	f.Fuzz(func(t *testing.T, data []byte, from, to float64) {
		file, err := Open("fuzz", data)
		if err != nil {
			return
		}
		s := file.Summary()
		if s.Events == 0 || s.DurationMs < 0 {
			t.Fatalf("summary %+v of an opened file", s)
		}
		if m, err := file.Model(Choice{FromMs: from, ToMs: to}); err == nil && len(m.Threads) == 0 {
			t.Fatal("a model without threads and without an error")
		}
	})
}

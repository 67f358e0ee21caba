package rtapp

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// FuzzDecode: Decode never panics, returns an *Error or a description, and
// stays fast; inputs are bounded by MaxInputBytes, so memory is too.
func FuzzDecode(f *testing.F) {
	for _, glob := range []string{"testdata/*.json", "../examples/rtapp/*.json"} {
		files, _ := filepath.Glob(glob)
		for _, file := range files {
			b, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	f.Add([]byte(`{"tasks": {"a": {"lock": "m", "wait": {"ref": "c", "mutex": "m"}, "unlock": "m"}}} /* x */`))
	f.Add([]byte(`{"tasks": {"a": {"run": 1,},},}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		start := time.Now()
		d, err := Decode(data)
		if took := time.Since(start); took > 2*time.Second {
			t.Fatalf("Decode took %v on %d bytes", took, len(data))
		}
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error %T %v is not an *Error", err, err)
			}
			if d != nil {
				t.Fatal("description and error both returned")
			}
			return
		}
		if len(d.Tasks) == 0 || len(d.Tasks) > MaxTasks {
			t.Fatalf("%d tasks", len(d.Tasks))
		}
		threads := 0
		for _, tk := range d.Tasks {
			threads += tk.Instance
			if len(tk.Phases) == 0 {
				t.Fatalf("task %s without phases", tk.Name)
			}
			for _, ph := range tk.Phases {
				if len(ph.Events) == 0 || len(ph.Events) > MaxEventsPerPhase {
					t.Fatalf("phase with %d events", len(ph.Events))
				}
			}
		}
		if threads > MaxThreads {
			t.Fatalf("%d threads", threads)
		}
	})
}

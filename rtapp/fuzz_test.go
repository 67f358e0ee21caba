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
	// workgen's forms: a bare suspend, repeated keys; suspend on a shared name.
	f.Add([]byte("{\"tasks\": {\"a\": {\n\"suspend\",\n\"run\": 1, \"run\": 2, \"suspend1\"}, \"b\": {\"resume\": \"a\", \"suspend\": \"go\", \"resume1\": \"go\"}}}"))
	f.Add([]byte(`{"global": {"duration": 0, "log_size": 4}, "tasks": {"a": {"runtime": 10, "barrier": "b"}, "b": {"barrier": "b", "sem_post": "s"}}}`))
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

// TestLargeInputs decodes inputs near MaxInputBytes shaped to stress each
// pass (comments, many keys, many tasks, many events) and bounds the time.
func TestLargeInputs(t *testing.T) {
	big := func(prefix, unit, suffix string) []byte {
		t.Helper()
		b := []byte(prefix)
		for len(b)+len(unit)+len(suffix) <= MaxInputBytes {
			b = append(b, unit...)
		}
		return append(b, suffix...)
	}
	inputs := map[string][]byte{
		"comments": big(`{"tasks": {"a": {"run": 1}}}`, "/* x */ // y\n", ""),
		"commas":   big(`{"tasks": {"a": {"cpus": [0`, ", 0", `, ], "run": 1}}}`),
		"tasks":    big(`{"tasks": {"t": {"run": 1}`, `, "t": {"run": 1}`, `}}`),
		"events":   big(`{"tasks": {"a": {"run": 1`, `, "run": 1`, `}}}`),
		"phases":   big(`{"tasks": {"a": {"phases": {"p": {"run": 1}`, `, "p": {"run": 1, "lock": "m", "unlock": "m"}`, `}}}}`),
		"strings":  big(`{"tasks": {"a": {"lock": "`, "\\u00b5", `", "run": 1}}}`),
	}
	for name, in := range inputs {
		start := time.Now()
		_, err := Decode(in)
		if took := time.Since(start); took > time.Second {
			t.Errorf("%s: %v on %d bytes", name, took, len(in))
		}
		t.Logf("%s: %d bytes, %.200v", name, len(in), err)
	}
}

package kerneltrace

import (
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"
)

// readRaw reads a CPU's ring-buffer pages until the buffer is empty, with
// read(2) on a non-blocking descriptor (os.File would park on EAGAIN).
func readRaw(t *testing.T, path string, pageSize int) []byte {
	t.Helper()
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer syscall.Close(fd)
	var out []byte
	buf := make([]byte, pageSize)
	for range 1 << 16 {
		n, err := syscall.Read(fd, buf)
		if errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EINTR) || n == 0 {
			return out
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		page := make([]byte, pageSize)
		copy(page, buf[:n])
		out = append(out, page...)
	}
	t.Fatalf("%s: more than 65536 pages", path)
	return nil
}

// TestRecordedRawPages records real ring-buffer pages of this kernel
// (per_cpu/cpuN/trace_pipe_raw), wraps them in a trace.dat with the
// kernel's own header_page and format files, and checks that the page
// decoder gives the events the kernel printed as text for the same buffer.
func TestRecordedRawPages(t *testing.T) {
	if testing.Short() {
		t.Skip("records a trace with tracefs; skipped with -short")
	}
	dir := traceInstance(t)
	events := []string{"sched_switch", "sched_waking", "sched_process_fork", "sched_process_exit"}
	for _, ev := range events {
		if err := writeTracefs(dir, filepath.Join("events/sched", ev, "enable"), "1"); err != nil {
			t.Fatal(err)
		}
		defer writeTracefs(dir, filepath.Join("events/sched", ev, "enable"), "0")
	}
	if err := writeTracefs(dir, "tracing_on", "1"); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", pingPongSh)
	cmd.Env = append(os.Environ(), "D="+t.TempDir(), "N=50")
	out, err := cmd.CombinedOutput()
	if err2 := writeTracefs(dir, "tracing_on", "0"); err2 != nil || err != nil {
		t.Fatalf("workload: %v %v: %s", err, err2, out)
	}
	text, err := os.ReadFile(filepath.Join(dir, "trace"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := Read(text)
	if err != nil {
		t.Fatal(err)
	}
	hp, err := os.ReadFile(filepath.Join(tracefs, "events/header_page"))
	if err != nil {
		t.Fatal(err)
	}
	d := datEnc{bo: binary.LittleEndian, ps: os.Getpagesize(), headerPage: string(hp)}
	if runtime.GOARCH == "s390x" || runtime.GOARCH == "ppc64" {
		d.bo = binary.BigEndian
	}
	for _, ev := range events {
		f, err := os.ReadFile(filepath.Join(tracefs, "events/sched", ev, "format"))
		if err != nil {
			t.Fatal(err)
		}
		d.formats = append(d.formats, string(f))
	}
	var cpus [][]byte
	for cpu := 0; cpu < want.CPUs; cpu++ {
		cpus = append(cpus, readRaw(t, filepath.Join(dir, "per_cpu", "cpu"+strconv.Itoa(cpu), "trace_pipe_raw"), d.ps))
	}
	got, err := Read(d.v6(cpus, ""))
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Events) != len(want.Events) || len(got.Events) == 0 {
		t.Fatalf("%d events from the pages, %d in the kernel's text", len(got.Events), len(want.Events))
	}
	// Per CPU in order: the text rounds to µs, which can reorder events of
	// two CPUs within one µs.
	perCPU := func(evs []Event) map[int32][]Event {
		m := make(map[int32][]Event)
		for _, e := range evs {
			m[e.CPU] = append(m[e.CPU], e)
		}
		return m
	}
	gotCPU, wantCPU := perCPU(got.Events), perCPU(want.Events)
	for cpu, ws := range wantCPU {
		gs := gotCPU[cpu]
		if len(gs) != len(ws) {
			t.Fatalf("CPU %d: %d events from the pages, %d in the text", cpu, len(gs), len(ws))
		}
		for i := range ws {
			g, w := gs[i], ws[i]
			// The text's flags column gives IRQ, the record's common_flags the same bit.
			if d := g.Ts - w.Ts; d < -500 || d > 500 || g.Kind != w.Kind || g.Pid != w.Pid || g.PrevPid != w.PrevPid ||
				g.NextPid != w.NextPid || g.Target != w.Target || g.PrevState != w.PrevState || g.NextComm != w.NextComm || g.IRQ != w.IRQ {
				t.Fatalf("CPU %d event %d:\n pages %+v\n text  %+v", cpu, i, g, w)
			}
		}
	}
	t.Logf("%d events on %d CPUs read alike from raw pages and from text", len(got.Events), got.CPUs)
}

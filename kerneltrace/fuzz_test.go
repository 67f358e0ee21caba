package kerneltrace

import (
	"encoding/binary"
	"testing"
)

// The decoders must refuse bad input with an error, never panic or hang, and
// whatever they accept must build.
func fuzzSeeds(f *testing.F, text bool) {
	if text {
		f.Add([]byte("# tracer: nop\n#P:2\n  a b-1 (1) [000] d.h2. 1.5: sched_switch: prev_comm=a b prev_pid=1 prev_prio=120 prev_state=S ==> next_comm=c next_pid=2 next_prio=120\n" +
			"  c-2 [001] 2.0: sched_waking: comm=a b pid=1 prio=120 target_cpu=000\n"))
		f.Add([]byte("cpus=2\n  t-9 [000] 1.0: sched_switch: t:9 [120] R+ ==> u:3 [100]\n  u-3 [000] 1.1: sched_wakeup_new: v:4 [120] CPU:001\n"))
		f.Add([]byte("  p 1/1 [000] 3.0: 1 sched:sched_process_fork: comm=p pid=1 child_comm=q child_pid=2\n" +
			"  q-2 [000] 3.1: task_rename: pid=2 oldcomm=q newcomm=r oom_score_adj=0\n  r-2 [000] 3.2: sched_process_exit: comm=r pid=2 prio=120\n"))
		f.Add([]byte(`{"systemTraceEvents": "  a-1 [000] 1.0: sched_waking: comm=a pid=1 prio=1 target_cpu=0\n"}`))
		f.Add([]byte(`<script class="trace-data" type="application/text">  a-1 [000] 1.0: sched_waking: comm=a pid=1 prio=1 target_cpu=0</script>`))
		return
	}
	f.Add(pingPong())
	f.Add(compactBundle())
	f.Add([]byte(zlibPacket(pingPong())))
	le := datEnc{bo: binary.LittleEndian, ps: 256}
	f.Add(le.v7([][]byte{le.page(5, []rec{{0, le.switchRec(0, "s", 0, 3, "x")}})}, "3 x\n", true))
}

func FuzzPerfetto(f *testing.F) {
	fuzzSeeds(f, false)
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := readPerfetto(data)
		if err == nil {
			if _, err := Build(tr, Options{}); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func FuzzText(f *testing.F) {
	fuzzSeeds(f, true)
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := readText(data, FormatText)
		if err == nil {
			if _, err := Build(tr, Options{KeepCut: true}); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// FuzzRead goes through detection, so it reaches every decoder.
func FuzzRead(f *testing.F) {
	fuzzSeeds(f, true)
	fuzzSeeds(f, false)
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := Read(data)
		if err == nil {
			m, err := Build(tr, Options{Names: []string{"a"}})
			if err != nil {
				t.Fatal(err)
			}
			for _, th := range m.Threads {
				if th.Recorded.CPUMs < 0 || th.Recorded.RunnableMs < 0 {
					t.Fatalf("negative figures %+v", th)
				}
			}
		}
	})
}

// FuzzStream checks that the streamed reader agrees with Read and Build on
// any input: both refuse it, or both give the same model.
func FuzzStream(f *testing.F) {
	fuzzSeeds(f, true)
	fuzzSeeds(f, false)
	f.Fuzz(func(t *testing.T, data []byte) {
		sameAsWhole(t, data, Options{KeepCut: true})
	})
}

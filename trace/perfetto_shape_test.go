package trace

import (
	"bytes"
	"errors"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"schedplay/kerneltrace"
)

// fields walks one protobuf message's fields (a test's reader, not the
// decoder under test: kerneltrace reads the sched events).
func fields(t *testing.T, b []byte, fn func(num protowire.Number, v []byte, x uint64)) {
	t.Helper()
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			t.Fatalf("bad tag: %v", protowire.ParseError(n))
		}
		b = b[n:]
		var v []byte
		var x uint64
		switch typ {
		case protowire.BytesType:
			v, n = protowire.ConsumeBytes(b)
		case protowire.VarintType:
			x, n = protowire.ConsumeVarint(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			t.Fatalf("field %d: %v", num, protowire.ParseError(n))
		}
		b = b[n:]
		fn(num, v, x)
	}
}

// The decisions go in as track events on described tracks, and the sched
// events carry the states a Linux trace would.
func TestPerfettoShape(t *testing.T) {
	sc := loadScenario(t, "testdata/two-cpu.json")
	var buf bytes.Buffer
	st, err := WritePerfetto(&buf, newSim(t, sc), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var descs, instants, seqCleared int
	tracks := map[uint64]bool{}
	fields(t, buf.Bytes(), func(_ protowire.Number, pkt []byte, _ uint64) {
		fields(t, pkt, func(num protowire.Number, v []byte, x uint64) {
			switch num {
			case 13:
				seqCleared += int(x & 1)
			case 60:
				descs++
				fields(t, v, func(n protowire.Number, _ []byte, x uint64) {
					if n == 1 {
						tracks[x] = true
					}
				})
			case 11:
				instants++
				fields(t, v, func(n protowire.Number, _ []byte, x uint64) {
					if n == 11 && !tracks[x] {
						t.Errorf("track event on undescribed track %#x", x)
					}
				})
			}
		})
	})
	if instants == 0 || int64(instants) != st.Decisions || descs == 0 || seqCleared != 1 {
		t.Errorf("%d instants (stats %d), %d descriptors, %d sequence starts", instants, st.Decisions, descs, seqCleared)
	}
	tr, err := kerneltrace.Read(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	var blocked, wakings int
	for _, e := range tr.Events {
		switch e.Kind {
		case kerneltrace.KindSwitch:
			if e.PrevPid == 0 && e.PrevState != 0 {
				t.Errorf("idle switched out in state %#x", e.PrevState)
			}
			if e.PrevPid != 0 && e.PrevState == kerneltrace.StateInterruptible {
				blocked++
			}
		case kerneltrace.KindWaking:
			wakings++
			if e.Pid == e.Target {
				t.Errorf("a thread woke itself: %+v", e)
			}
		}
	}
	if blocked == 0 || wakings == 0 || tr.Comm[pfTidBase] == "" || tr.Tgid[pfTidBase] != pfPid {
		t.Errorf("%d blocks, %d wakings, comm %q, tgid %d", blocked, wakings, tr.Comm[pfTidBase], tr.Tgid[pfTidBase])
	}
	var quiet bytes.Buffer
	if st, _ := WritePerfetto(&quiet, newSim(t, sc), Options{NoDecisions: true}); st.Decisions != 0 || quiet.Len() >= buf.Len() {
		t.Errorf("NoDecisions: %d decisions, %d bytes of %d", st.Decisions, quiet.Len(), buf.Len())
	}
}

func TestPerfettoLimitsAndErrors(t *testing.T) {
	sc := loadScenario(t, "testdata/two-cpu.json")
	if _, err := WritePerfetto(&bytes.Buffer{}, nil, Options{}); err == nil {
		t.Error("a nil sim is accepted")
	}
	if _, err := WritePerfetto(&bytes.Buffer{}, newSim(t, sc), Options{StartNs: -1}); err == nil {
		t.Error("a negative start is accepted")
	}
	var buf bytes.Buffer
	st, err := WritePerfetto(&buf, newSim(t, sc), Options{MaxBytes: 4000})
	if err != nil || !st.Truncated || buf.Len() > 4000+64<<10 {
		t.Errorf("MaxBytes: %v, %+v, %d bytes", err, st, buf.Len())
	}
	if _, err := kerneltrace.Read(buf.Bytes()); err != nil {
		t.Errorf("a truncated trace does not read: %v", err)
	}
	errFail := errors.New("disk full")
	if _, err := WritePerfetto(&failingWriter{limit: 100, err: errFail}, newSim(t, sc), Options{}); err == nil || !errors.Is(err, errFail) {
		t.Errorf("write error: %v", err)
	}
}

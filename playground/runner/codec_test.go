package runner

import (
	"reflect"
	"testing"

	"schedplay/engine"
)

// fill sets every field reachable from v to a distinct non-zero value (slices get
// two elements), so a field the codec forgets, including one the engine adds
// later, shows up as a difference after a round trip.
func fill(v reflect.Value, next *int64) {
	*next++
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), next)
			}
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := range 2 {
			fill(v.Index(i), next)
		}
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		for range 2 {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			fill(k, next)
			fill(e, next)
			v.SetMapIndex(k, e)
		}
	case reflect.Array:
		for i := range v.Len() {
			fill(v.Index(i), next)
		}
	case reflect.Int, reflect.Int32, reflect.Int64:
		v.SetInt(*next)
	case reflect.Uint8, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(*next % 3)) // enum-like fields: small values
	case reflect.Float64:
		v.SetFloat(float64(*next) + 0.25)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.String:
		v.SetString("s" + string(rune('a'+*next%26)))
	}
}

func filledFrame(t *testing.T) Frame {
	t.Helper()
	var f Frame
	n := int64(0)
	fill(reflect.ValueOf(&f).Elem(), &n)
	f.Err = ""
	f.Snap.NowNs = f.NowNs
	f.Latency.N = 0
	for i := range f.Latency.Counts {
		f.Latency.Counts[i] = int64(i % 3)
		f.Latency.N += int64(i % 3)
	}
	return f
}

func TestFrameRoundTrip(t *testing.T) {
	f := filledFrame(t)
	var enc frameEncoder
	var dec frameDecoder
	// The second frame of an arm carries no thread names; the decoder fills them
	// in from the first.
	for round := range 2 {
		msg := enc.encode(nil, &f)
		got, err := decodeFrames(msg, func(ArmID) *frameDecoder { return &dec }, nil)
		if err != nil || len(got) != 1 {
			t.Fatalf("round %d: %d frames, %v", round, len(got), err)
		}
		if !reflect.DeepEqual(got[0], f) {
			t.Errorf("round %d: frame changed on the wire:\n got %+v\nwant %+v", round, got[0], f)
		}
	}
	errFrame := Frame{Arm: 3, Seq: 9, Err: "workload.clients: too many", ResumeErr: "checkpoint: damaged"}
	got, err := decodeFrames(enc.encode(nil, &errFrame), func(ArmID) *frameDecoder { return &dec }, nil)
	if err != nil || len(got) != 1 || got[0].Err != errFrame.Err || got[0].ResumeErr != errFrame.ResumeErr || got[0].Seq != 9 {
		t.Errorf("error frame: %+v, %v", got, err)
	}
}

func TestCommandRoundTrip(t *testing.T) {
	adv := Advance{Seq: 7, ToNs: 123_456_789, Step: true, Results: true, Ghosts: true, Until: EventSpinShrink, Select: Selection{CPU: 3, Thread: -1}, Marks: true}
	var sc engine.Scenario
	n := int64(0)
	fill(reflect.ValueOf(&sc).Elem(), &n) // every field, maps and lists included
	var b []byte
	b = encodeStart(b, 1, sc, true)
	b = encodeAdvance(b, 1, adv)
	b = encodeCancel(b, 2, 8)
	b = encodeStop(b, 2)
	b = encodeStartFrom(b, 3, sc, []byte("SPCK checkpoint bytes"))
	b = encodeRewind(b, 3, 4, 987_654_321)
	cmds, err := decodeCommands(b)
	if err != nil || len(cmds) != 6 {
		t.Fatalf("%d commands, %v", len(cmds), err)
	}
	if c := cmds[0]; c.op != opStart || c.id != 1 || !c.background || !reflect.DeepEqual(c.scenario, sc) {
		t.Errorf("start: %+v\nwant scenario %+v", c, sc)
	}
	if c := cmds[1]; c.op != opAdvance || c.adv != adv {
		t.Errorf("advance: %+v, want %+v", c.adv, adv)
	}
	if c := cmds[2]; c.op != opCancel || c.id != 2 || c.seq != 8 {
		t.Errorf("cancel: %+v", c)
	}
	if c := cmds[3]; c.op != opStop || c.id != 2 {
		t.Errorf("stop: %+v", c)
	}
	if c := cmds[4]; c.op != opStartFrom || c.id != 3 || c.background || !reflect.DeepEqual(c.scenario, sc) || string(c.checkpoint) != "SPCK checkpoint bytes" {
		t.Errorf("start from a checkpoint: %+v", c)
	}
	if c := cmds[5]; c.op != opRewind || c.id != 3 || c.to != 4 || c.atNs != 987_654_321 {
		t.Errorf("rewind: %+v", c)
	}
}

// A message cut short anywhere, or with a byte flipped, is an error or fewer
// frames: never a panic or a runaway allocation.
func TestDecodeDamagedMessages(t *testing.T) {
	f := filledFrame(t)
	var enc frameEncoder
	msg := enc.encode(nil, &f)
	for n := range len(msg) {
		var dec frameDecoder
		got, err := decodeFrames(msg[:n], func(ArmID) *frameDecoder { return &dec }, nil)
		if err == nil && n > 0 {
			t.Errorf("a message cut to %d of %d bytes decoded without error (%d frames)", n, len(msg), len(got))
		}
		bad := append([]byte(nil), msg...)
		bad[n] ^= 0xff
		decodeFrames(bad, func(ArmID) *frameDecoder { return &dec }, nil)
		decodeCommands(bad)
	}
	if _, err := decodeCommands([]byte{99, 1}); err == nil {
		t.Error("an unknown command decoded")
	}
}

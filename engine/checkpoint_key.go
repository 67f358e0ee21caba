package engine

import (
	"encoding/binary"
	"encoding/hex"
	"hash/fnv"
	"math"
	"reflect"
	"slices"
)

// ScenarioKey identifies the run a scenario describes: a 128-bit digest of its
// canonical form without the fields no run depends on (its name and
// description, its arms, published figures and fitted notes: a sweep, the
// calibration or a compare view resolves the arms before anything runs).
// Scenarios with the same key run the same, event for event
// (TestScenarioKeyIgnoresLabels); a checkpoint names the key of the scenario it
// was taken from, and resuming it on another is refused. So the page's saved
// states serve an arm whatever the comparison it is shown in, and a shared
// scenario renamed by its author.
//
// The digest is FNV-1a over a binary canonical encoding of the scenario (every
// field, in schema order; maps by sorted key; floats by their bits), not a
// SHA-256 of Canonical()'s JSON, because the engine worker computes it too:
// the JSON encoder would add half a megabyte (gzip) to the worker and
// crypto/sha256 Go's FIPS module, both against the page's 4 MB budget. A
// non-cryptographic digest is enough for what the key does, refusing a
// checkpoint of another scenario: two different scenarios meet by accident with
// probability 2^-128, and a forged checkpoint can name any key whatever the
// digest, so no digest could vouch for one; what keeps a forged checkpoint from
// harming the engine is Resume's validation of everything it reads.
type ScenarioKey [16]byte

// String is the key in hex (32 digits): how file names and messages show it.
func (k ScenarioKey) String() string { return hex.EncodeToString(k[:]) }

// Key returns sc's key.
func (sc Scenario) Key() ScenarioKey {
	sc.Name, sc.Description, sc.Arms, sc.Published, sc.Fitted = "", "", nil, nil, nil
	h := fnv.New128a()
	var buf []byte
	buf = append(buf, "schedplay scenario key 1\n"...)
	buf = appendCanonical(buf, reflect.ValueOf(sc))
	h.Write(buf)
	var k ScenarioKey
	h.Sum(k[:0])
	return k
}

// appendCanonical appends v's canonical binary form: it handles the kinds a
// Scenario is made of. Lengths precede slices, maps and strings, so no two
// values share an encoding; nil and empty read the same, as in Canonical's JSON.
func appendCanonical(b []byte, v reflect.Value) []byte {
	switch v.Kind() {
	case reflect.Bool:
		if v.Bool() {
			return append(b, 1)
		}
		return append(b, 0)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return binary.AppendVarint(b, v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return binary.AppendUvarint(b, v.Uint())
	case reflect.Float32, reflect.Float64:
		return binary.LittleEndian.AppendUint64(b, math.Float64bits(v.Float()))
	case reflect.String:
		b = binary.AppendUvarint(b, uint64(v.Len()))
		return append(b, v.String()...)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				b = appendCanonical(b, v.Field(i))
			}
		}
		return b
	case reflect.Slice, reflect.Array:
		b = binary.AppendUvarint(b, uint64(v.Len()))
		for i := range v.Len() {
			b = appendCanonical(b, v.Index(i))
		}
		return b
	case reflect.Map:
		b = binary.AppendUvarint(b, uint64(v.Len()))
		keys := v.MapKeys()
		slices.SortFunc(keys, func(x, y reflect.Value) int {
			switch {
			case x.String() < y.String():
				return -1
			case x.String() > y.String():
				return 1
			}
			return 0
		})
		for _, k := range keys {
			b = appendCanonical(b, k)
			b = appendCanonical(b, v.MapIndex(k))
		}
		return b
	}
	panic("engine.Scenario.Key: a scenario field of kind " + v.Kind().String())
}

package engine

import (
	"encoding/hex"
	"hash/fnv"
	"reflect"
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
// The digest is FNV-1a over the scenario's binary form (AppendBinaryValue:
// every field in schema order, floats by their bits; what is left once the
// labels are out holds no slice or map, so equal scenarios have one form), not
// a SHA-256 of Canonical()'s JSON, because the engine worker computes it too:
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
	buf = appendBinary(buf, reflect.ValueOf(sc), true)
	// Fields added after the key's first form (key:"appended", the
	// machine's topology) follow the rest, and only when one is set: a
	// scenario without them keeps the key it had, so checkpoints saved
	// before them still resume. The rest is self-delimiting, so nothing
	// after it can be mistaken for any of it.
	var late []byte
	set := false
	m := reflect.ValueOf(sc.Machine)
	for i := range m.NumField() {
		if m.Type().Field(i).Tag.Get("key") == "appended" {
			late = AppendBinaryValue(late, m.Field(i))
			set = set || !m.Field(i).IsZero()
		}
	}
	if set {
		buf = append(buf, "appended\n"...)
		buf = append(buf, late...)
	}
	h.Write(buf)
	var k ScenarioKey
	h.Sum(k[:0])
	return k
}

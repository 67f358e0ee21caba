package scxstar

import (
	"fmt"

	"go.starlark.net/starlark"
)

// module is the scx module. It behaves as a starlarkstruct.Module (type
// "module", printed <module "scx">, its names sorted by dir, unhashable,
// frozen with its members) but finds a member without a Go map: a policy
// reads scx.SLICE_DFL or scx.dsq_insert several times per callback, and
// hashing the name and probing a map took about a tenth of a short
// callback's time. Members are kept in a small open-addressed table
// indexed by a few of the name's bytes; a lookup compares one or two names.
type module struct {
	name    string
	members starlark.StringDict
	slots   []moduleSlot // len a power of two, at most half full
}

type moduleSlot struct {
	name string
	v    starlark.Value
}

func newScxModule(name string, members starlark.StringDict) *module {
	n := 8
	for n < 2*len(members) {
		n *= 2
	}
	m := &module{name: name, members: members, slots: make([]moduleSlot, n)}
	for _, k := range members.Keys() { // sorted: the same table every time
		i := m.slot(k)
		for m.slots[i].v != nil {
			i = (i + 1) & (len(m.slots) - 1)
		}
		m.slots[i] = moduleSlot{k, members[k]}
	}
	return m
}

// slot is where the probe for name starts: a mix of its length and its
// first, middle and last bytes, which tell the module's names apart well.
func (m *module) slot(name string) int {
	h := uint32(len(name))
	if len(name) > 0 {
		h = h*31 + uint32(name[0])
		h = h*31 + uint32(name[len(name)/2])
		h = h*31 + uint32(name[len(name)-1])
	}
	return int((h*0x9e3779b1)>>16) & (len(m.slots) - 1)
}

func (m *module) Attr(name string) (starlark.Value, error) {
	for i := m.slot(name); ; i = (i + 1) & (len(m.slots) - 1) {
		s := &m.slots[i]
		if s.v == nil {
			return nil, nil // no such member: getAttr says so
		}
		if s.name == name {
			return s.v, nil
		}
	}
}

func (m *module) AttrNames() []string   { return m.members.Keys() }
func (m *module) Freeze()               { m.members.Freeze() }
func (m *module) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable: %s", m.Type()) }
func (m *module) String() string        { return fmt.Sprintf("<module %q>", m.name) }
func (m *module) Truth() starlark.Bool  { return true }
func (m *module) Type() string          { return "module" }

package engine

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// Checkpoint packs: several checkpoints in one file, as the page's bundle
// keeps those of one scenario (its moments) and a share those of all its arms.
// A pack is the magic "SPKP", the pack format version (uvarint, 1), the count
// (uvarint), then each checkpoint as its scenario key (16 bytes), its clock
// (varint), its length (uvarint) and its bytes. The key and clock repeat the
// checkpoint's header so that the page can index a pack without decoding
// checkpoints (which only the engine worker does).

const (
	packMagic   = "SPKP"
	packVersion = 1
	// maxPackEntries bounds a pack's count.
	maxPackEntries = 4096
)

// PackedCheckpoint is one checkpoint of a pack: its scenario's key, its clock
// and its bytes (a view of the pack's).
type PackedCheckpoint struct {
	Key   ScenarioKey
	NowNs int64
	Data  []byte
}

// AppendCheckpointPack appends a pack of cks to dst; a damaged checkpoint is
// an error.
func AppendCheckpointPack(dst []byte, cks ...[]byte) ([]byte, error) {
	dst = append(dst, packMagic...)
	dst = binary.AppendUvarint(dst, packVersion)
	dst = binary.AppendUvarint(dst, uint64(len(cks)))
	for _, ck := range cks {
		info, err := ReadCheckpointInfo(ck)
		if err != nil {
			return dst, err
		}
		dst = append(dst, info.Key[:]...)
		dst = binary.AppendVarint(dst, info.NowNs)
		dst = binary.AppendUvarint(dst, uint64(len(ck)))
		dst = append(dst, ck...)
	}
	return dst, nil
}

// errPack is a damaged pack.
var errPack = fmt.Errorf("%w: not a whole checkpoint pack", ErrCheckpointCorrupt)

// ReadCheckpointPack lists a pack's checkpoints. A damaged pack is an error
// that wraps ErrCheckpointCorrupt, one of another format version
// ErrCheckpointVersion; the checkpoints themselves are checked only when
// resumed (Resume).
func ReadCheckpointPack(data []byte) ([]PackedCheckpoint, error) {
	if !bytes.HasPrefix(data, []byte(packMagic)) {
		return nil, ErrCheckpointCorrupt
	}
	b := data[len(packMagic):]
	uv := func() uint64 {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return 1<<64 - 1
		}
		b = b[n:]
		return v
	}
	switch v := uv(); v {
	case packVersion:
	case 1<<64 - 1:
		return nil, errPack
	default:
		return nil, ErrCheckpointVersion
	}
	n := uv()
	if n > maxPackEntries || n > uint64(len(b)) {
		return nil, errPack
	}
	out := make([]PackedCheckpoint, 0, n)
	for range n {
		var p PackedCheckpoint
		if len(b) < len(p.Key) {
			return nil, errPack
		}
		copy(p.Key[:], b)
		b = b[len(p.Key):]
		at, k := binary.Varint(b)
		if k <= 0 {
			return nil, errPack
		}
		b = b[k:]
		size := uv()
		if size > uint64(len(b)) {
			return nil, errPack
		}
		p.NowNs, p.Data, b = at, b[:size], b[size:]
		out = append(out, p)
	}
	if len(b) != 0 {
		return nil, errPack
	}
	return out, nil
}

package engine

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// Checkpoint packs: several checkpoints in one file, as the page's bundle
// keeps those of one scenario (its moments) and a share those of all its arms.
// A pack is the magic "SPKP", the pack format version (uvarint, 1), the count
// (uvarint), then each checkpoint as its length (uvarint) and its bytes.

const (
	packMagic   = "SPKP"
	packVersion = 1
	// maxPackEntries bounds a pack's count.
	maxPackEntries = 4096
)

// PackedCheckpoint is one checkpoint of a pack: its header and its bytes (a
// view of the pack's).
type PackedCheckpoint struct {
	CheckpointInfo
	Data []byte
}

// AppendCheckpointPack appends a pack of cks to dst.
func AppendCheckpointPack(dst []byte, cks ...[]byte) []byte {
	dst = append(dst, packMagic...)
	dst = binary.AppendUvarint(dst, packVersion)
	dst = binary.AppendUvarint(dst, uint64(len(cks)))
	for _, ck := range cks {
		dst = binary.AppendUvarint(dst, uint64(len(ck)))
		dst = append(dst, ck...)
	}
	return dst
}

// ReadCheckpointPack lists a pack's checkpoints with their headers. A damaged
// pack, or a checkpoint in it of another format version, is an error that
// wraps ErrCheckpointCorrupt or ErrCheckpointVersion; the checkpoints
// themselves are checked only when resumed.
func ReadCheckpointPack(data []byte) ([]PackedCheckpoint, error) {
	if !bytes.HasPrefix(data, []byte(packMagic)) {
		return nil, fmt.Errorf("%w: not a checkpoint pack (it does not start with %q)", ErrCheckpointCorrupt, packMagic)
	}
	r := &ckReader{b: data, off: len(packMagic), idx: -1, where: "pack"}
	if v := r.uv(); r.err == nil && v != packVersion {
		return nil, fmt.Errorf("%w: the pack is format version %d; this engine reads version %d", ErrCheckpointVersion, v, packVersion)
	}
	n := r.count(1, maxPackEntries)
	out := make([]PackedCheckpoint, 0, n)
	for i := range n {
		r.idx = i
		ck := r.raw(len(data))
		if r.err != nil {
			break
		}
		info, err := ReadCheckpointInfo(ck)
		if err != nil {
			return nil, fmt.Errorf("pack entry %d: %w", i, err)
		}
		out = append(out, PackedCheckpoint{CheckpointInfo: info, Data: ck})
	}
	if r.err == nil && r.off != len(data) {
		r.failf("%d bytes after the last checkpoint", len(data)-r.off)
	}
	if r.err != nil {
		return nil, r.err
	}
	return out, nil
}

package trace

// The scheduler's decisions in a Perfetto trace: track events (TrackEvent,
// TYPE_INSTANT) on a track per deciding CPU, described once by a
// TrackDescriptor. Field numbers: protos/perfetto/trace/trace_packet.proto
// (timestamp 8, track_event 11, trusted_packet_sequence_id 10,
// sequence_flags 13, track_descriptor 60), track_event/track_event.proto
// (type 9, track_uuid 11, categories 22, name 23, debug_annotations 4),
// track_event/track_descriptor.proto (uuid 1, name 2) and
// track_event/debug_annotation.proto (name 10, int_value 4, string_value 6).

import (
	"strconv"

	"schedplay/engine"
)

// decisionTrackUUID is CPU n's decision track (the external one last).
func decisionTrackUUID(n int) uint64 { return 0x5c4ed000 + uint64(n) }

// seqPacket starts a packet on the track events' sequence; the first one
// clears incremental state, as a sequence must.
func (pw *pfWriter) seqPacket() []byte {
	p := appendVarint(nil, 10, pfSeqID)
	if !pw.seqStarted {
		pw.seqStarted = true
		p = appendVarint(p, 13, 1) // SEQ_INCREMENTAL_STATE_CLEARED
	}
	return p
}

func (pw *pfWriter) decision(d engine.Decision) {
	n := int(d.CPU)
	if n < 0 || n >= len(pw.cpus) {
		n = len(pw.cpus)
	}
	uuid := decisionTrackUUID(n)
	if !pw.decTracks[n] {
		pw.decTracks[n] = true
		name := "decisions, external"
		if n < len(pw.cpus) {
			name = "decisions, CPU " + strconv.Itoa(n)
		}
		desc := appendStr(appendVarint(nil, 1, uuid), 2, name)
		pw.packet(appendMsg(pw.seqPacket(), 60, desc))
	}
	ev := appendVarint(nil, 9, 3) // TYPE_INSTANT
	ev = appendVarint(ev, 11, uuid)
	ev = appendStr(ev, 22, "decision")
	ev = appendStr(ev, 23, d.Kind.String())
	ev = appendMsg(ev, 4, appendStr(appendStr(nil, 10, "reason"), 6, d.Reason))
	if d.Target >= 0 {
		ev = appendMsg(ev, 4, appendVarint(appendStr(nil, 10, "target"), 4, uint64(d.Target)))
	}
	if d.Thread >= 0 {
		ev = appendMsg(ev, 4, appendStr(appendStr(nil, 10, "thread"), 6, pw.comm(d.Thread, 0)))
	}
	ev = appendMsg(ev, 4, appendVarint(appendStr(nil, 10, "value"), 4, uint64(d.Value)))
	p := appendVarint(pw.seqPacket(), 8, uint64(d.AtNs))
	pw.packet(appendMsg(p, 11, ev))
	pw.stats.Decisions++
}

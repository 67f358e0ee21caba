// Package kerneltrace reads recorded Linux scheduler traces and turns them into
// a workload a simulated scheduler can replay: "what would this scheduler have
// done with my machine's work?".
//
// # Reading
//
// Read detects the format from the content (Detect) and decodes it into one
// event model, a Trace: scheduler events (switch, waking, fork, exit, rename,
// migrate) merged across CPUs in time order, with the CPU count and what the
// trace says of processes. The formats:
//
//   - Perfetto protobuf (perfetto.go): Trace.packet, full FtraceEvent and the
//     compact_sched encoding, zlib-compressed packets, a gzip-wrapped file.
//     Decoded by hand with protowire over the dozen messages needed, not
//     generated types for all of perfetto_trace.proto (megabytes in WebAssembly).
//     Field numbers follow google/perfetto's protos/perfetto/trace/.
//   - ftrace text (text.go): tracefs `trace`, `trace-cmd report` with and without
//     -N, systrace text and HTML, `perf script` sched tracepoint lines, and the
//     systemTraceEvents string of a Chrome JSON trace.
//   - trace-cmd's trace.dat (tracedat.go), versions 6 and 7 (zlib sections;
//     zstd refused), decoded through the file's own tracefs format files.
//
// Bad input is an error naming the byte offset or line and the field; no input
// makes a decoder panic or loop (each has a fuzz test).
//
// ReadModel reads and builds in one, streaming: the decoders yield events a
// line, packet or page at a time, an ordering stage (order.go) puts them in
// Trace.Events' order holding only what a later event could precede, and
// the builder takes them one at a time, so memory holds the model rather
// than the file (stream.go says how the facts of the whole trace are had
// before it is read: a second pass when the first guessed one wrong).
//
// # Replaying
//
// Build turns a Trace into a Model: per thread, a list of segments (run so many
// ns, then what ends the segment: a wakeup by another thread at a point of its
// progress, a timed sleep, a spawn, an exit), and the figures the trace
// records (CPU time, wake-to-run latency, runnable time, migrations) per thread
// and per process. It is a pure data transform; running the model under a
// simulated scheduler is the engine's job. docs/mechanisms.md (Replaying a
// recorded trace) has the model and its pitfalls; model.go says which rule
// handles which.
package kerneltrace

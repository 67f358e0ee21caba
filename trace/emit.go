package trace

// The JSON of each trace event, appended by hand (see the package doc, Encoding).
// Every string goes through jsontext.AppendQuote; keys and fixed names are
// constants known to need no escaping.

import (
	"fmt"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"

	"schedplay/engine"
)

// emit writes one complete event (b holds its JSON object).
func (tw *writer) emit(b []byte) {
	tw.stats.Events++
	tw.raw(b)
}

// raw writes b; the first write error stops the trace (and the run).
func (tw *writer) raw(b []byte) {
	tw.stats.Bytes += int64(len(b))
	if _, err := tw.bw.Write(b); err != nil && tw.err == nil {
		tw.err = fmt.Errorf("trace: writing: %w", err)
		tw.stopped = true
		tw.stopNs = tw.lastNs
	}
}

// event starts an event object with its phase, time and track; the caller
// appends further members and the closing brace.
func (tw *writer) event(ph string, ts int64, tid int) []byte {
	b := tw.bw.AvailableBuffer()
	if tw.stats.Events > 0 {
		b = append(b, ",\n"...)
	}
	b = append(b, `{"ph":"`...)
	b = append(b, ph...)
	b = append(b, `","ts":`...)
	b = appendTs(b, ts)
	b = append(b, `,"pid":1`...)
	if tid > 0 {
		b = append(b, `,"tid":`...)
		b = strconv.AppendInt(b, int64(tid), 10)
	}
	return b
}

// appendTs appends ns as microseconds with up to three decimals (exact).
func appendTs(b []byte, ns int64) []byte {
	b = strconv.AppendInt(b, ns/1000, 10)
	frac := ns % 1000
	if frac == 0 {
		return b
	}
	d := [3]byte{byte('0' + frac/100), byte('0' + frac/10%10), byte('0' + frac%10)}
	n := 3
	for d[n-1] == '0' {
		n--
	}
	b = append(b, '.')
	return append(b, d[:n]...)
}

// quote appends s as a JSON string.
func quote(b []byte, s string) []byte {
	// Invalid UTF-8 is replaced (and reported, which we do not need): the output
	// stays valid JSON either way.
	b, _ = jsontext.AppendQuote(b, s)
	return b
}

// maxQuotes bounds the quoted-string cache, should reasons ever stop being a
// few constant phrases.
const maxQuotes = 1024

// quoted returns s quoted, cached (decision reasons are a few constant phrases).
func (tw *writer) quoted(s string) []byte {
	q, ok := tw.quotes[s]
	if !ok {
		q = quote(nil, s)
		if len(tw.quotes) < maxQuotes {
			tw.quotes[s] = q
		}
	}
	return q
}

// label returns thread id's quoted label, "name #id".
func (tw *writer) label(id int32) []byte {
	tw.threadInfo(id)
	return tw.labels[id]
}

// threadInfo caches thread id's label and slice members.
func (tw *writer) threadInfo(id int32) {
	for int(id) >= len(tw.labels) {
		tw.labels = append(tw.labels, nil)
		tw.sargs = append(tw.sargs, nil)
	}
	if tw.labels[id] != nil {
		return
	}
	name, role, pinned := tw.sim.ThreadInfo(int(id))
	l := quote(nil, name+" #"+strconv.Itoa(int(id)))
	tw.labels[id] = l
	a := append([]byte(`,"cat":"thread","name":`), l...)
	a = append(a, `,"args":{"role":`...)
	a = quote(a, role.String())
	a = append(a, `,"pinned":`...)
	a = strconv.AppendBool(a, pinned)
	tw.sargs[id] = append(a, `}}`...)
}

// idleMembers returns the category, name and chrome://tracing colour members of
// an idle state's slice (Perfetto colours by name).
func idleMembers(s engine.CPUState) string {
	switch s {
	case engine.CPUSpinning:
		return `,"cat":"idle","name":"spin","cname":"yellow"}`
	case engine.CPUHalted:
		return `,"cat":"idle","name":"halt","cname":"grey"}`
	case engine.CPUWaking:
		return `,"cat":"idle","name":"waking","cname":"olive"}`
	case engine.CPUIRQ:
		return `,"cat":"idle","name":"irq","cname":"terrible"}`
	}
	return ""
}

func (tw *writer) writeBegin(t *track) {
	t.pending = false
	t.open = true
	t.anchorTs = -1
	b := tw.event("B", t.start, t.tid)
	switch {
	case t.cur.state == engine.CPURunning && t.cur.thread >= 0:
		tw.threadInfo(t.cur.thread)
		b = append(b, tw.sargs[t.cur.thread]...)
	case idleMembers(t.cur.state) != "":
		b = append(b, idleMembers(t.cur.state)...)
	default:
		b = append(b, `,"cat":"idle","name":`...)
		b = quote(b, t.cur.state.String())
		b = append(b, '}')
	}
	tw.emit(b)
	tw.stats.Slices++
}

func (tw *writer) writeEnd(t *track, at int64) {
	t.open = false
	t.anchorTs = -1
	tw.emit(append(tw.event("E", at, t.tid), '}'))
}

// instant starts a thread-scoped instant on t; name is already quoted.
func (tw *writer) instant(t *track, ts int64, cat string, name []byte) []byte {
	t.anchorTs = ts
	b := tw.event("i", ts, t.tid)
	b = append(b, `,"s":"t","cat":"`...)
	b = append(b, cat...)
	b = append(b, `","name":`...)
	return append(b, name...)
}

// appendIntArg appends ,"key":v (key needs no escaping).
func appendIntArg(b []byte, key string, v int64) []byte {
	b = append(b, `,"`...)
	b = append(b, key...)
	b = append(b, `":`...)
	return strconv.AppendInt(b, v, 10)
}

func (tw *writer) decision(d engine.Decision) {
	t := &tw.tracks[tw.trackOf(d.CPU)]
	tw.ensureOpen(t)
	b := tw.instant(t, d.AtNs, "decision", tw.quoted(d.Kind.String()))
	b = append(b, `,"args":{"reason":`...)
	b = append(b, tw.quoted(d.Reason)...)
	if d.Target >= 0 {
		b = appendIntArg(b, "target", int64(d.Target))
	}
	if d.Thread >= 0 {
		b = append(b, `,"thread":`...)
		b = append(b, tw.label(d.Thread)...)
	}
	b = appendIntArg(b, "value", d.Value)
	tw.emit(append(b, "}}"...))
	tw.stats.Decisions++
}

func (tw *writer) migrate(e engine.VisEvent) {
	t := &tw.tracks[tw.trackOf(e.CPU)]
	tw.ensureOpen(t)
	b := tw.instant(t, e.AtNs, "migrate", tw.quoted("migrate"))
	b = append(b, `,"args":{`...)
	if e.Thread >= 0 {
		b = append(b, `"thread":`...)
		b = append(b, tw.label(e.Thread)...)
		b = append(b, ',')
	}
	b = append(b, `"to":`...)
	b = strconv.AppendInt(b, int64(e.Other), 10)
	tw.emit(append(b, "}}"...))
	tw.stats.Migrations++
}

// ipiText holds the strings of one IPI kind: the flow's quoted name and its
// category, and the send and arrival instants' quoted names.
type ipiText struct {
	flow, send, arrive, atEnd []byte
	cat                       string
}

// ipiNames returns IPI kind k's strings (built once per kind: the engine may add
// kinds, each is named by its String).
func (tw *writer) ipiNames(k engine.IPIKind) *ipiText {
	if x := tw.ipiText[k]; x != nil {
		return x
	}
	n := k.String()
	x := &ipiText{
		flow:   quote(nil, n),
		cat:    string(quote(nil, "ipi."+n)),
		send:   quote(nil, "send "+n+" IPI"),
		arrive: quote(nil, n+" IPI"),
		atEnd:  quote(nil, n+" IPI (in flight at trace end)"),
	}
	tw.ipiText[k] = x
	return x
}

// sendInstant marks an IPI send on t (the anchor of its flow start).
func (tw *writer) sendInstant(t *track, e engine.VisEvent) {
	b := tw.instant(t, e.AtNs, "ipi", tw.ipiNames(e.IPI).send)
	b = append(b, `,"args":{"to":`...)
	b = strconv.AppendInt(b, int64(e.Other), 10)
	if e.Thread >= 0 {
		b = append(b, `,"thread":`...)
		b = append(b, tw.label(e.Thread)...)
	}
	tw.emit(append(b, "}}"...))
}

// arriveInstant marks an IPI arrival on t (the anchor of its flow end).
func (tw *writer) arriveInstant(t *track, ts int64, k engine.IPIKind, p pend, atEnd bool) {
	name := tw.ipiNames(k).arrive
	if atEnd {
		name = tw.ipiNames(k).atEnd
	}
	b := tw.instant(t, ts, "ipi", name)
	b = append(b, `,"args":{`...)
	b = append(b, `"from":`...)
	b = strconv.AppendInt(b, int64(p.from), 10)
	if p.thread >= 0 {
		b = append(b, `,"thread":`...)
		b = append(b, tw.label(p.thread)...)
	}
	tw.emit(append(b, "}}"...))
}

// flowEvent writes a flow start ('s') or end ('f') of IPI kind k on t.
func (tw *writer) flowEvent(t *track, ph byte, ts int64, id uint64, k engine.IPIKind) {
	t.anchorTs = -1
	b := tw.event(string(ph), ts, t.tid)
	if ph == 'f' {
		b = append(b, `,"bp":"e"`...)
	}
	x := tw.ipiNames(k)
	b = append(b, `,"cat":`...)
	b = append(b, x.cat...)
	b = append(b, `,"name":`...)
	b = append(b, x.flow...)
	b = append(b, `,"id":`...)
	b = strconv.AppendUint(b, id, 10)
	tw.emit(append(b, '}'))
}

// counter writes the completion counter's value for the bucket starting at ts,
// if it changed (a counter holds its value until the next sample).
func (tw *writer) counter(ts, n int64) {
	if n == tw.lastCount {
		return
	}
	tw.lastCount = n
	b := tw.event("C", ts, 0)
	b = append(b, `,"name":"completed","args":{`...)
	b = append(b, tw.counterKey...)
	b = append(b, ':')
	b = strconv.AppendInt(b, n, 10)
	tw.emit(append(b, "}}"...))
}

// header opens the document and names the process and its tracks.
func (tw *writer) header() {
	tw.raw(append(tw.bw.AvailableBuffer(), "{\"traceEvents\":[\n"...))

	b := tw.event("M", tw.start, 0)
	tw.emit(append(b, `,"name":"process_name","args":{"name":"vCPUs"}}`...))
	for i := range tw.tracks {
		name := "external"
		if i < tw.ext() {
			name = "vCPU " + strconv.Itoa(i)
		}
		b = tw.event("M", tw.start, tw.tracks[i].tid)
		b = append(b, `,"name":"thread_name","args":{"name":`...)
		b = quote(b, name)
		tw.emit(append(b, "}}"...))
		b = tw.event("M", tw.start, tw.tracks[i].tid)
		b = append(b, `,"name":"thread_sort_index","args":{"sort_index":`...)
		b = strconv.AppendInt(b, int64(i), 10)
		tw.emit(append(b, "}}"...))
	}
}

// trailer closes the event array and the document.
func (tw *writer) trailer(end int64) {
	b := tw.bw.AvailableBuffer()
	b = append(b, "\n],\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"schedplay/trace\",\"scenario\":"...)
	b = quote(b, tw.sim.Scenario().Name)
	b = appendIntArg(b, "vcpus", int64(tw.ext()))
	b = appendIntArg(b, "start_ns", tw.start)
	b = appendIntArg(b, "end_ns", end)
	b = append(b, `,"truncated":`...)
	b = strconv.AppendBool(b, tw.stats.Truncated)
	tw.raw(append(b, "}}\n"...))
}

package trace

// An independent reader of the traces Write makes: it parses the whole document
// with go-json-experiment into generic values (any) and checks the shape Chrome's
// trace-event format and Perfetto's JSON importer need, returning what it found
// for the tests to compare with the engine.

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/go-json-experiment/json"
)

// tEvent is one parsed trace event.
type tEvent struct {
	Ph, Name, Cat string
	TsNs          int64
	Tid           int
	Args          map[string]any
	raw           map[string]any
}

// tSlice is a B/E (or X) pair on a track.
type tSlice struct {
	Name, Cat    string
	StartNs, End int64
	Args         map[string]any
}

// tFlow is a matched flow start and end.
type tFlow struct {
	ID                 int64
	Name, Cat          string
	FromTid, ToTid     int
	SentNs, ArrivedNs  int64
	SendAnchor, Anchor tEvent // the instants the flow binds to
}

// parsed is a checked trace.
type parsed struct {
	Events     []tEvent
	Slices     map[int][]tSlice // by tid, in time order
	Instants   map[int][]tEvent // by tid, in file order
	Flows      []tFlow          // in order of their starts
	Counters   []tEvent
	ThreadName map[int]string
	SortIndex  map[int]int
	Process    string
	Other      map[string]any
}

// tsNs converts a trace timestamp (µs, three decimals) to ns.
func tsNs(v float64) int64 { return int64(math.Round(v * 1000)) }

// parseTrace parses data and checks every rule; the first violation is an error.
func parseTrace(data []byte) (*parsed, error) {
	var top map[string]any
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("not a JSON object: %v", err)
	}
	for k := range top {
		if k != "traceEvents" && k != "displayTimeUnit" && k != "otherData" {
			return nil, fmt.Errorf("unexpected top-level member %q", k)
		}
	}
	if u, _ := top["displayTimeUnit"].(string); u != "ns" && u != "ms" {
		return nil, fmt.Errorf("displayTimeUnit is %v, want \"ns\" or \"ms\"", top["displayTimeUnit"])
	}
	arr, ok := top["traceEvents"].([]any)
	if !ok {
		return nil, fmt.Errorf("traceEvents is %T, want an array", top["traceEvents"])
	}
	p := &parsed{Slices: map[int][]tSlice{}, Instants: map[int][]tEvent{}, ThreadName: map[int]string{}, SortIndex: map[int]int{}}
	p.Other, _ = top["otherData"].(map[string]any)

	open := map[int]*tSlice{}       // the open B slice per track
	lastTs := map[string]int64{}    // per track (tid or counter name): last ts in file order
	lastOnTrack := map[int]tEvent{} // the previous event on each track
	starts := map[int64]tEvent{}    // flow id -> its start
	ended := map[int64]bool{}
	flowIdx := map[int64]int{}
	for i, x := range arr {
		m, ok := x.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("event %d is %T, want an object", i, x)
		}
		if err := noArrays(m); err != nil {
			return nil, fmt.Errorf("event %d: %v (Perfetto rejects arrays inside events)", i, err)
		}
		e := tEvent{raw: m}
		e.Ph, _ = m["ph"].(string)
		e.Name, _ = m["name"].(string)
		e.Cat, _ = m["cat"].(string)
		e.Args, _ = m["args"].(map[string]any)
		ts, ok := m["ts"].(float64)
		if !ok || ts < 0 {
			return nil, fmt.Errorf("event %d (%v): ts is %v, want a number >= 0", i, e.Ph, m["ts"])
		}
		e.TsNs = tsNs(ts)
		if pid, ok := m["pid"].(float64); !ok || pid != 1 {
			return nil, fmt.Errorf("event %d: pid is %v, want 1", i, m["pid"])
		}
		needTid := e.Ph != "C" && !(e.Ph == "M" && e.Name == "process_name")
		if tid, ok := m["tid"].(float64); ok {
			if tid < 1 || tid != math.Trunc(tid) {
				return nil, fmt.Errorf("event %d: tid is %v, want a positive integer", i, tid)
			}
			e.Tid = int(tid)
		} else if needTid {
			return nil, fmt.Errorf("event %d (%s %q): no tid", i, e.Ph, e.Name)
		}
		if e.Ph != "M" {
			key := fmt.Sprint(e.Tid)
			if e.Ph == "C" {
				key = "counter " + e.Name
			}
			if last, ok := lastTs[key]; ok && e.TsNs < last {
				return nil, fmt.Errorf("event %d (%s %q): ts %d ns before the previous event on its track (%d ns)", i, e.Ph, e.Name, e.TsNs, last)
			}
			lastTs[key] = e.TsNs
		}
		switch e.Ph {
		case "M":
			switch e.Name {
			case "process_name":
				p.Process, _ = e.Args["name"].(string)
			case "thread_name":
				p.ThreadName[e.Tid], _ = e.Args["name"].(string)
			case "thread_sort_index":
				v, ok := e.Args["sort_index"].(float64)
				if !ok {
					return nil, fmt.Errorf("event %d: thread_sort_index without a numeric sort_index", i)
				}
				p.SortIndex[e.Tid] = int(v)
			default:
				return nil, fmt.Errorf("event %d: unknown metadata %q", i, e.Name)
			}
		case "B":
			if e.Name == "" {
				return nil, fmt.Errorf("event %d: B without a name", i)
			}
			if o := open[e.Tid]; o != nil {
				return nil, fmt.Errorf("event %d: slice %q begins on tid %d at %d ns while %q (from %d ns) is open", i, e.Name, e.Tid, e.TsNs, o.Name, o.StartNs)
			}
			open[e.Tid] = &tSlice{Name: e.Name, Cat: e.Cat, StartNs: e.TsNs, Args: e.Args}
		case "E":
			o := open[e.Tid]
			if o == nil {
				return nil, fmt.Errorf("event %d: E on tid %d at %d ns with no open slice", i, e.Tid, e.TsNs)
			}
			o.End = e.TsNs
			p.Slices[e.Tid] = append(p.Slices[e.Tid], *o)
			delete(open, e.Tid)
		case "X":
			if e.Name == "" {
				return nil, fmt.Errorf("event %d: X without a name", i)
			}
			dur, ok := m["dur"].(float64)
			if !ok || dur < 0 {
				return nil, fmt.Errorf("event %d: X with dur %v, want a number >= 0", i, m["dur"])
			}
			if o := open[e.Tid]; o != nil {
				return nil, fmt.Errorf("event %d: X inside open slice %q", i, o.Name)
			}
			if l := p.Slices[e.Tid]; len(l) > 0 && l[len(l)-1].End > e.TsNs {
				return nil, fmt.Errorf("event %d: X at %d ns overlaps %q ending %d ns", i, e.TsNs, l[len(l)-1].Name, l[len(l)-1].End)
			}
			p.Slices[e.Tid] = append(p.Slices[e.Tid], tSlice{Name: e.Name, Cat: e.Cat, StartNs: e.TsNs, End: e.TsNs + tsNs(dur), Args: e.Args})
		case "i":
			if s, _ := m["s"].(string); s != "t" {
				return nil, fmt.Errorf("event %d: instant scope %v, want \"t\"", i, m["s"])
			}
			if e.Name == "" || e.Cat == "" {
				return nil, fmt.Errorf("event %d: instant without name or cat", i)
			}
			if e.Cat == "decision" {
				if r, _ := e.Args["reason"].(string); r == "" {
					return nil, fmt.Errorf("event %d: decision %q without a reason", i, e.Name)
				}
			}
			p.Instants[e.Tid] = append(p.Instants[e.Tid], e)
		case "s", "f":
			idf, ok := m["id"].(float64)
			if !ok || e.Name == "" || e.Cat == "" {
				return nil, fmt.Errorf("event %d: flow %s needs id, name and cat", i, e.Ph)
			}
			id := int64(idf)
			// Perfetto binds the flow to the topmost slice on the track: it must be
			// an instant at the same time, so the arrow is drawn at the right time.
			prev, ok := lastOnTrack[e.Tid]
			if !ok || prev.Ph != "i" || prev.TsNs != e.TsNs {
				return nil, fmt.Errorf("event %d: flow %s id %d at %d ns on tid %d does not follow an instant at that time (previous %s %q at %d)", i, e.Ph, id, e.TsNs, e.Tid, prev.Ph, prev.Name, prev.TsNs)
			}
			if e.Ph == "s" {
				if _, dup := starts[id]; dup {
					return nil, fmt.Errorf("event %d: flow id %d starts twice", i, id)
				}
				starts[id] = e
				flowIdx[id] = len(p.Flows)
				p.Flows = append(p.Flows, tFlow{ID: id, Name: e.Name, Cat: e.Cat, FromTid: e.Tid, SentNs: e.TsNs, SendAnchor: prev})
				break
			}
			if bp, _ := m["bp"].(string); bp != "e" {
				return nil, fmt.Errorf("event %d: flow end without \"bp\":\"e\"", i)
			}
			s, ok := starts[id]
			switch {
			case !ok:
				return nil, fmt.Errorf("event %d: flow id %d ends without a start", i, id)
			case ended[id]:
				return nil, fmt.Errorf("event %d: flow id %d ends twice", i, id)
			case s.Name != e.Name || s.Cat != e.Cat:
				return nil, fmt.Errorf("event %d: flow id %d ends as %s/%s but started as %s/%s", i, id, e.Cat, e.Name, s.Cat, s.Name)
			case e.TsNs < s.TsNs:
				return nil, fmt.Errorf("event %d: flow id %d ends before it starts", i, id)
			}
			ended[id] = true
			f := &p.Flows[flowIdx[id]]
			f.ToTid, f.ArrivedNs, f.Anchor = e.Tid, e.TsNs, prev
		case "C":
			if e.Name == "" || len(e.Args) == 0 {
				return nil, fmt.Errorf("event %d: counter without name or args", i)
			}
			for k, v := range e.Args {
				if _, ok := v.(float64); !ok {
					return nil, fmt.Errorf("event %d: counter arg %q is %T, want a number", i, k, v)
				}
			}
			p.Counters = append(p.Counters, e)
		default:
			return nil, fmt.Errorf("event %d: unexpected phase %q", i, e.Ph)
		}
		if e.Ph != "M" && e.Ph != "C" {
			lastOnTrack[e.Tid] = e
		}
		p.Events = append(p.Events, e)
	}
	for tid, o := range open {
		return nil, fmt.Errorf("slice %q on tid %d (from %d ns) never ends", o.Name, tid, o.StartNs)
	}
	for id := range starts {
		if !ended[id] {
			return nil, fmt.Errorf("flow id %d has no end", id)
		}
	}
	if p.Process == "" {
		return nil, fmt.Errorf("no process_name")
	}
	for tid := range p.Slices {
		if p.ThreadName[tid] == "" {
			return nil, fmt.Errorf("tid %d has slices but no thread_name", tid)
		}
	}
	for tid := range p.Instants {
		if p.ThreadName[tid] == "" {
			return nil, fmt.Errorf("tid %d has instants but no thread_name", tid)
		}
	}
	return p, nil
}

// noArrays fails if v holds a JSON array anywhere.
func noArrays(v any) error {
	switch x := v.(type) {
	case []any:
		return fmt.Errorf("has an array")
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			if err := noArrays(x[k]); err != nil {
				return fmt.Errorf("%s: %v", k, err)
			}
		}
	}
	return nil
}

// sliceAt returns the slice on tid with start < t <= end (what the CPU was doing
// just before t), if any.
func (p *parsed) sliceAt(tid int, t int64) (tSlice, bool) {
	l := p.Slices[tid]
	i, _ := slices.BinarySearchFunc(l, t, func(s tSlice, t int64) int {
		if s.End < t {
			return -1
		}
		return 1
	})
	if i < len(l) && l[i].StartNs < t && t <= l[i].End {
		return l[i], true
	}
	return tSlice{}, false
}

// names lists the slice names on tid.
func (p *parsed) names(tid int) []string {
	var out []string
	for _, s := range p.Slices[tid] {
		out = append(out, s.Name)
	}
	return out
}

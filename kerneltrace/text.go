package kerneltrace

// ftrace text: one event a line, `comm-pid (tgid) [cpu] flags ts: event: args`
// (tracefs `trace`, systrace, `trace-cmd report`), or perf script's
// `comm pid [cpu] ts: sched:event: args`. Lines are anchored on the CPU
// bracket and on known keys, never split on spaces alone: comms may hold
// spaces and dashes. Lines of another shape (headers, markers) are skipped;
// a sched event line with a malformed field is an error naming its line.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// textLine is the common part of an event line.
type textLine struct {
	comm  string
	pid   int32
	tgid  int32 // 0: not given
	cpu   int32
	flags string
	ts    int64
	event string
	args  string
	// tsText is the timestamp as written, parsed only for known events.
	tsText string
}

// readText decodes ftrace text.
func readText(data []byte, f Format) (*Trace, error) {
	t := newTrace(f)
	p := textParser{t: t}
	for lineNo := 1; len(data) > 0; lineNo++ {
		var line []byte
		var ended bool
		line, data, ended = bytes.Cut(data, []byte{'\n'})
		if err := p.line(string(bytes.TrimRight(line, "\r")), lineNo, ended || f != FormatText); err != nil {
			return nil, fmt.Errorf("%s: line %d: %w", f, lineNo, err)
		}
	}
	if err := p.done(); err != nil {
		return nil, err
	}
	t.Events = p.out
	t.finish()
	t.CPUs = max(t.CPUs, p.headerCPUs)
	return t, nil
}

type textParser struct {
	t          *Trace
	out        []Event // the events decoded, in file order
	headerCPUs int
	events     int
	lostMark   bool // a lost-events mark was seen: the next event's time starts the valid part
}

func (p *textParser) done() error {
	if p.events == 0 {
		return fmt.Errorf("%s: no scheduler events found (sched_switch, sched_waking, ... lines)", p.t.Format)
	}
	return nil
}

// textSource reads ftrace text from a stream, a line at a time.
type textSource struct {
	p      textParser
	r      *bufio.Reader
	lineNo int
	long   []byte // a line longer than r's buffer, gathered
}

func newTextSource(r io.Reader, t *Trace) *textSource {
	return &textSource{p: textParser{t: t}, r: bufio.NewReaderSize(r, 1<<16)}
}

func (s *textSource) more(buf []Event) ([]Event, error) {
	s.p.out = buf
	for len(s.p.out) == len(buf) {
		line, err := s.r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			s.long = append(s.long, line...)
			continue
		}
		if s.long != nil {
			line = append(s.long, line...)
			s.long = nil
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return s.p.out, err
		}
		if len(line) > 0 {
			s.lineNo++
			ended := line[len(line)-1] == '\n'
			text := string(bytes.TrimRight(bytes.TrimSuffix(line, []byte{'\n'}), "\r"))
			if perr := s.p.line(text, s.lineNo, ended || s.p.t.Format != FormatText); perr != nil {
				return s.p.out, fmt.Errorf("%s: line %d: %w", s.p.t.Format, s.lineNo, perr)
			}
		}
		if err != nil {
			if derr := s.p.done(); derr != nil {
				return s.p.out, derr
			}
			s.p.t.CPUs = max(s.p.t.CPUs, s.p.headerCPUs)
			return s.p.out, io.EOF
		}
	}
	return s.p.out, nil
}

// line decodes one line; ended says a newline closed it. A file of
// ftrace text that ends inside an event line was cut short: the line may
// have lost a field and still parse (next_pid=12 of next_pid=123), so it
// is refused. Text taken from HTML or JSON has its container to say it is
// whole.
func (p *textParser) line(s string, lineNo int, ended bool) error {
	trim := strings.TrimSpace(s)
	switch {
	case trim == "":
		return nil
	case trim[0] == '#':
		// tracefs: "# entries-in-buffer/entries-written: 12/12   #P:2".
		if i := strings.Index(trim, "#P:"); i >= 0 {
			if n, err := strconv.Atoi(leadingDigits(trim[i+3:])); err == nil && n > 0 && n <= MaxCPUs {
				p.headerCPUs = n
			}
		}
		if strings.Contains(trim, "buffer started") {
			p.lostMark = true
		}
		return nil
	case strings.HasPrefix(trim, "cpus="): // trace-cmd report header
		if n, err := strconv.Atoi(leadingDigits(trim[5:])); err == nil && n > 0 && n <= MaxCPUs {
			p.headerCPUs = n
		}
		return nil
	case strings.HasPrefix(trim, "CPU:") && strings.Contains(trim, "LOST"):
		p.t.LostEvents++
		p.lostMark = true
		return nil
	}
	l, ok := splitLine(s)
	if !ok {
		return nil
	}
	ev, known := sched(l.event)
	if !known {
		return nil
	}
	ts, err := parseSeconds(l.tsText)
	if err != nil {
		return fmt.Errorf("%s: timestamp %q: %v", l.event, l.tsText, err)
	}
	l.ts = ts
	e, err := ev(l)
	if err != nil {
		return fmt.Errorf("%s: %w", l.event, err)
	}
	if l.tgid > 0 {
		p.t.Tgid[l.pid] = l.tgid
	}
	if p.lostMark {
		p.lostMark = false
		p.t.ValidFromNs = max(p.t.ValidFromNs, ts)
	}
	if !ended {
		return fmt.Errorf("the file ends inside this %s line, with no newline: it was cut short", l.event)
	}
	p.events++
	p.out = append(p.out, e)
	return nil
}

// splitLine finds the task, CPU, flags, timestamp and event of a line.
func splitLine(s string) (textLine, bool) {
	var l textLine
	// The CPU: the first "[digits]" after a space.
	open := -1
	for i := strings.IndexByte(s, '['); i >= 0; {
		j := i + 1
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if i > 0 && s[i-1] == ' ' && j > i+1 && j < len(s) && s[j] == ']' {
			open = i
			cpu, err := strconv.Atoi(s[i+1 : j])
			if err != nil || cpu > MaxCPUs {
				return l, false
			}
			l.cpu = int32(cpu)
			break
		}
		k := strings.IndexByte(s[i+1:], '[')
		if k < 0 {
			break
		}
		i += 1 + k
	}
	if open < 0 {
		return l, false
	}
	head := strings.TrimSpace(s[:open])
	rest := s[strings.IndexByte(s[open:], ']')+open+1:]
	// An optional "(tgid)" column: digits, or dashes when unknown.
	if strings.HasSuffix(head, ")") {
		k := strings.LastIndexByte(head, '(')
		if k < 0 {
			return l, false
		}
		if g, err := strconv.Atoi(strings.TrimSpace(head[k+1 : len(head)-1])); err == nil {
			l.tgid = int32(g)
		}
		head = strings.TrimSpace(head[:k])
	}
	// "comm-pid" (ftrace) or "comm pid" / "comm pid/tid" (perf script).
	if k := strings.LastIndexByte(head, '-'); k > 0 && isDigits(head[k+1:]) {
		l.comm, l.pid = head[:k], atoi32(head[k+1:])
	} else if k := strings.LastIndexAny(head, " \t"); k > 0 {
		id := head[k+1:]
		if a, b, ok := strings.Cut(id, "/"); ok && isDigits(a) && isDigits(b) {
			id = b
		}
		if !isDigits(id) {
			return l, false
		}
		l.comm, l.pid = strings.TrimSpace(head[:k]), atoi32(id)
	} else {
		return l, false
	}
	// Then: [flags] ts: [period] event: args.
	f := strings.Fields(rest)
	if len(f) < 2 {
		return l, false
	}
	i := 0
	if !strings.HasSuffix(f[0], ":") {
		l.flags = f[0]
		i = 1
	}
	if i >= len(f) || !strings.HasSuffix(f[i], ":") {
		return l, false
	}
	l.tsText = strings.TrimSuffix(f[i], ":")
	i++
	for i < len(f) && isDigits(f[i]) { // perf script's period column
		i++
	}
	if i >= len(f) || !strings.HasSuffix(f[i], ":") {
		return l, false
	}
	l.event = strings.TrimSuffix(f[i], ":")
	l.event = l.event[strings.LastIndexByte(l.event, ':')+1:] // perf's "sched:" prefix
	// args: everything after the event token, spaces kept.
	at := strings.Index(rest, f[i]) + len(f[i])
	args := strings.TrimLeft(rest[at:], " \t")
	l.args = args
	return l, true
}

// irq says the flags column marks hardirq or softirq context: its third
// character (irqs-off, need-resched, then hardirq/softirq).
func (l *textLine) irq() bool {
	return len(l.flags) >= 3 && strings.IndexByte("hHs", l.flags[2]) >= 0
}

// parseSeconds reads "123.456789" (seconds) as integer nanoseconds exactly.
func parseSeconds(s string) (int64, error) {
	whole, frac, _ := strings.Cut(s, ".")
	if !isDigits(whole) || (frac != "" && !isDigits(frac)) || len(whole) > 10 {
		return 0, fmt.Errorf("want seconds such as 123.456789")
	}
	if len(frac) > 9 {
		frac = frac[:9]
	}
	sec, _ := strconv.ParseInt(whole, 10, 64)
	ns, _ := strconv.ParseInt((frac + "000000000")[:9], 10, 64)
	return sec*1_000_000_000 + ns, nil
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func leadingDigits(s string) string {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[:i]
}

// atoi32 reads digits already checked; values past int32 saturate.
func atoi32(s string) int32 {
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return -1
	}
	return int32(n)
}

package kerneltrace

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"

	"google.golang.org/protobuf/encoding/protowire"
)

// traceDatMagic opens a trace-cmd trace.dat file (trace-cmd.dat(5)).
const traceDatMagic = "\x17\x08\x44tracing"

// Detect names the format of data from its first bytes, as rtapp.Detect tells
// rt-app files from scenarios: trace.dat by its magic, systrace HTML by its
// markup, Chrome JSON by its systemTraceEvents member, ftrace text by a
// header or an event line, Perfetto by a first
// field that is a well-formed Trace.packet. A gzip file is looked into.
// It says nothing of whether the file is valid; Read does.
func Detect(data []byte) Format {
	if isGzip(data) {
		inner, err := gunzipPrefix(data, 64<<10)
		if err != nil {
			return FormatUnknown
		}
		return Detect(inner)
	}
	switch {
	case bytes.HasPrefix(data, []byte(traceDatMagic)):
		return FormatTraceDat
	case looksPerfetto(data):
		return FormatPerfetto
	}
	if looksChromeJSON(data) {
		return FormatChrome
	}
	head := data[:min(len(data), 4096)]
	lower := bytes.ToLower(head)
	if bytes.Contains(lower, []byte("<html")) || bytes.Contains(lower, []byte("<!doctype")) ||
		bytes.Contains(bytes.ToLower(data), []byte(`class="trace-data"`)) {
		return FormatHTML
	}
	if looksText(head) {
		return FormatText
	}
	return FormatUnknown
}

// looksPerfetto: the file starts with field 1, length-delimited, whose length
// fits the file, and the packet inside starts with a valid tag.
func looksPerfetto(data []byte) bool {
	if len(data) < 2 || data[0] != 0x0a {
		return false
	}
	ok := false
	err := walk(data[:min(len(data), 1<<20)], 0, "Trace", func(f field) error {
		ok = f.num == fTracePacket
		return stopErr{}
	})
	if _, stopped := err.(stopErr); stopped {
		return ok
	}
	// A file cut inside its first packet: the packet's length runs past
	// the end, but what is there starts like a packet and not like text.
	// Read then refuses it naming the offset, not as of no known format.
	l, n := protowire.ConsumeVarint(data[1:])
	if n < 0 || l <= uint64(len(data)-1-n) || looksText(data[:min(len(data), 4096)]) {
		return false
	}
	num, typ, m := protowire.ConsumeTag(data[1+n:])
	return m > 0 && num < 1000 && (typ == protowire.VarintType || typ == protowire.BytesType ||
		typ == protowire.Fixed32Type || typ == protowire.Fixed64Type)
}

// looksText: a tracefs/trace-cmd header, or an event line among the first lines.
func looksText(head []byte) bool {
	for _, line := range bytes.Split(head, []byte{'\n'}) {
		s := string(bytes.TrimSpace(line))
		switch {
		case s == "":
			continue
		case s == "TRACE:", len(s) > 8 && s[:8] == "# tracer", len(s) > 5 && s[:5] == "cpus=", len(s) > 10 && s[:10] == "version = ":
			return true
		}
		if _, ok := splitLine(s); ok {
			return true
		}
	}
	return false
}

// stopErr ends a walk early; not a failure.
type stopErr struct{}

func (stopErr) Error() string { return "stop" }

func isGzip(data []byte) bool { return len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b }

func gunzipPrefix(data []byte, n int64) ([]byte, error) {
	r, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(r, n))
	if err != nil && len(b) == 0 {
		return nil, err
	}
	return b, nil
}

// Read decodes a trace in any supported format (Detect).
func Read(data []byte) (*Trace, error) {
	if isGzip(data) {
		inner, err := inflate(func() (io.ReadCloser, error) { return gzip.NewReader(bytes.NewReader(data)) }, MaxInflatedBytes)
		if err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
		data = inner
	}
	switch f := Detect(data); f {
	case FormatPerfetto:
		return readPerfetto(data)
	case FormatText:
		return readText(data, FormatText)
	case FormatHTML:
		text, err := systraceHTML(data)
		if err != nil {
			return nil, err
		}
		return readText(text, FormatHTML)
	case FormatTraceDat:
		return readTraceDat(data)
	case FormatChrome:
		text, err := chromeSystemTrace(data)
		if err != nil {
			return nil, err
		}
		return readText(text, FormatChrome)
	}
	return nil, fmt.Errorf("unknown trace format: not Perfetto protobuf, ftrace text, systrace HTML, Chrome JSON with systemTraceEvents "+
		"or trace.dat (first bytes % x)", data[:min(len(data), 8)])
}

// systraceHTML extracts the ftrace text from systrace's
// `<script class="trace-data" type="application/text">` blocks; blocks that
// hold JSON (Chrome's part of a combined trace) are left out.
func systraceHTML(data []byte) ([]byte, error) {
	var out []byte
	open := []byte(`<script class="trace-data"`)
	for at := 0; ; {
		i := bytes.Index(data[at:], open)
		if i < 0 {
			break
		}
		tag := at + i
		at = tag + len(open)
		gt := bytes.IndexByte(data[at:], '>')
		if gt < 0 {
			return nil, fmt.Errorf("systrace HTML: offset %d: unterminated <script class=\"trace-data\"> tag", tag)
		}
		at += gt + 1
		end := bytes.Index(data[at:], []byte("</script>"))
		if end < 0 {
			return nil, fmt.Errorf("systrace HTML: offset %d: <script class=\"trace-data\"> without </script> (the file is cut short?)", tag)
		}
		block := bytes.TrimSpace(data[at : at+end])
		at += end
		if len(block) > 0 && (block[0] == '{' || block[0] == '[') {
			continue
		}
		out = append(out, block...)
		out = append(out, '\n')
	}
	if out == nil {
		return nil, fmt.Errorf("systrace HTML: no <script class=\"trace-data\"> block with ftrace text")
	}
	return out, nil
}

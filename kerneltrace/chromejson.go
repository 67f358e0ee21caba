package kerneltrace

// Chrome's JSON trace format carries a kernel trace only as ftrace text in
// the legacy "systemTraceEvents" string (perfetto export_json.cc; Chrome's
// about:tracing and systrace wrote it): read that string as ftrace text.

import (
	"bytes"
	"fmt"

	"github.com/go-json-experiment/json"
)

// looksChromeJSON: a JSON object that names systemTraceEvents.
func looksChromeJSON(data []byte) bool {
	t := bytes.TrimLeft(data, " \t\r\n")
	return len(t) > 0 && t[0] == '{' && bytes.Contains(data, []byte(`"systemTraceEvents"`))
}

// chromeSystemTrace returns the systemTraceEvents text of a Chrome JSON trace.
func chromeSystemTrace(data []byte) ([]byte, error) {
	// The rest (traceEvents, metadata) is Chrome's own: unknown members are
	// skipped.
	var top struct {
		SystemTraceEvents *string `json:"systemTraceEvents"`
	}
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf("chrome JSON: %w", err)
	}
	if top.SystemTraceEvents == nil {
		return nil, fmt.Errorf("chrome JSON: no systemTraceEvents string (the kernel part of a trace)")
	}
	return []byte(*top.SystemTraceEvents), nil
}

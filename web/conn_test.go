package web

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"schedplay/engine"
	"schedplay/internal/shareapi"
	"schedplay/web/internal/sharetest"
)

// These tests talk HTTP/1.1 over a raw connection to the handler behind Go's
// server, as `schedplay serve` runs it, for what net/http's client does not let a
// test control: when the body is sent, or that it never comes.

// hangGuard bounds how long a test waits for a reply, so that a server that never
// answers fails the test instead of hanging it. It is no speed requirement.
const hangGuard = time.Minute

// dialRaw opens a connection to ts and sends head (the request line and headers,
// without the blank line that ends them) and then body.
func dialRaw(t *testing.T, ts *httptest.Server, head string, body []byte) (net.Conn, *bufio.Reader) {
	t.Helper()
	conn, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if err := conn.SetDeadline(time.Now().Add(hangGuard)); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(conn, head+"\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Write(body); err != nil {
		t.Fatal(err)
	}
	return conn, bufio.NewReader(conn)
}

// TestExpectContinue sends only the headers of a share with Expect: 100-continue.
// A share the server will refuse must be refused at once, before the client is
// told to send its body; one it may take gets "100 Continue".
func TestExpectContinue(t *testing.T) {
	ts := httptest.NewServer(newTestServer(t, NewMemStore()))
	defer ts.Close()
	for _, tc := range []struct {
		desc          string
		contentType   string
		contentLength int
		status        int
	}{
		{"declared length over the limit", "application/json", shareapi.MaxTraceShareBytes + 1, http.StatusRequestEntityTooLarge},
		{"far over the limit", "application/json", 1 << 30, http.StatusRequestEntityTooLarge},
		{"not JSON", "text/plain", 100, http.StatusUnsupportedMediaType},
		{"acceptable", "application/json", engine.MaxScenarioBytes, http.StatusContinue},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			head := fmt.Sprintf("POST /api/share HTTP/1.1\r\nHost: test\r\nContent-Type: %s\r\nContent-Length: %d\r\nExpect: 100-continue",
				tc.contentType, tc.contentLength)
			_, rd := dialRaw(t, ts, head, nil)
			resp, err := http.ReadResponse(rd, nil)
			if err != nil {
				t.Fatalf("no reply to the headers alone: %v", err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Fatalf("reply to the headers alone: %s, want %d", resp.Status, tc.status)
			}
		})
	}
}

// TestSlowBody sends part of a share's body and stalls until the server's read
// timeout ends the request. The reply must say what happened without the socket
// addresses the read error names.
func TestSlowBody(t *testing.T) {
	ts := httptest.NewUnstartedServer(newTestServer(t, NewMemStore()))
	// Short so the test is quick, yet long enough for the headers and half the body
	// to arrive first on a busy machine; the test waits for the reply, whenever
	// it comes.
	ts.Config.ReadTimeout = 300 * time.Millisecond
	ts.Start()
	defer ts.Close()
	doc := sharetest.Scenario(1)
	head := fmt.Sprintf("POST /api/share HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: %d", len(doc))
	conn, rd := dialRaw(t, ts, head, doc[:len(doc)/2])
	resp, err := http.ReadResponse(rd, nil)
	if err != nil {
		t.Fatalf("no reply to a stalled body: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusRequestTimeout {
		t.Errorf("stalled body: %s %s, want 408", resp.Status, body)
	}
	for _, addr := range []net.Addr{conn.LocalAddr(), conn.RemoteAddr()} {
		host, port, _ := net.SplitHostPort(addr.String())
		if strings.Contains(string(body), host) || strings.Contains(string(body), port) {
			t.Errorf("the reply names the socket address %s: %s", addr, body)
		}
	}
}

// TestReadErrorReply maps the errors a body read can end in, as a server or the
// Cloudflare Worker's shim report them, to replies that never repeat the error's
// text.
func TestReadErrorReply(t *testing.T) {
	addrErr := func(err error) error {
		return &net.OpError{Op: "read", Net: "tcp",
			Source: &net.TCPAddr{IP: net.IPv4(10, 9, 8, 7), Port: 51234},
			Addr:   &net.TCPAddr{IP: net.IPv4(192, 0, 2, 1), Port: 8080}, Err: err}
	}
	for _, tc := range []struct {
		desc   string
		err    error
		status int
	}{
		{"read timeout", addrErr(os.ErrDeadlineExceeded), http.StatusRequestTimeout},
		{"connection reset", addrErr(errors.New("connection reset by peer")), http.StatusBadRequest},
		{"stream error", errors.New("failed on promise: TypeError: stream 10.9.8.7 cancelled"), http.StatusBadRequest},
		{"truncated body", io.ErrUnexpectedEOF, http.StatusBadRequest},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			req := jsonRequest("POST", "/api/share", nil)
			req.Body = io.NopCloser(io.MultiReader(strings.NewReader(`{"version":`), &failingReader{tc.err}))
			rec := httptest.NewRecorder()
			newTestServer(t, NewMemStore()).ServeHTTP(rec, req)
			if rec.Code != tc.status {
				t.Errorf("status %d, want %d (%s)", rec.Code, tc.status, rec.Body)
			}
			for _, leak := range []string{"10.9.8.7", "51234", "192.0.2.1", "8080", tc.err.Error()} {
				if strings.Contains(rec.Body.String(), leak) {
					t.Errorf("the reply repeats %q: %s", leak, rec.Body)
				}
			}
		})
	}
}

// failingReader fails every read with err.
type failingReader struct{ err error }

func (r *failingReader) Read([]byte) (int, error) { return 0, r.err }

// Package sharetest is the share API's contract as a test: the round trip and the
// error cases, run over HTTP against any running home of package web's handler.
// web's own tests run it against `schedplay serve`'s stack (bbolt, loopback),
// web/cloudflare's integration test against the Cloudflare Worker under wrangler
// dev, so both homes are held to the same behaviour.
package sharetest

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"schedplay/docs"
	"schedplay/engine"
	"schedplay/internal/shareapi"
)

// Reply is the body of a successful share.
type Reply struct {
	ID  string `json:"id"`
	URL string `json:"url"`
}

// ErrorReply is the body of a failed API call.
type ErrorReply struct {
	Error string `json:"error"`
	Field string `json:"field"`
}

// Scenario returns a small valid scenario document that differs for each n.
func Scenario(n int) []byte {
	return fmt.Appendf(nil, `{"version":1,"name":"share-%d","seed":%d,"machine":{"vcpus":%d}}`, n, n+1, 1+n%8)
}

// Canonical is the canonical form the server must store for doc.
func Canonical(t testing.TB, doc []byte) []byte {
	t.Helper()
	sc, err := engine.DecodeScenario(doc)
	if err != nil {
		t.Fatalf("test scenario does not decode: %v\n%s", err, doc)
	}
	c, err := sc.Canonical()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Share posts doc and returns the decoded reply, failing the test unless the
// status is 200. Goroutines other than the test's use TryShare.
func Share(t testing.TB, client *http.Client, base string, doc []byte) Reply {
	t.Helper()
	r, err := TryShare(client, base, doc)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// HeavyHackbench is inside every knob's range but would take about 3e10 events:
// hackbench with 4096 senders per group at the cheapest reads and writes.
func HeavyHackbench() []byte {
	return []byte(`{"version":1,"machine":{"platform":"native","vcpus":8},"sched":{"policy":"scx_simple"},` +
		`"workload":{"kind":"hackbench","clients":0,"hackbench":{"groups":1,"fds":4096,"loops":1000,"write_ns":50,"read_ns":50}}}`)
}

// HeavyArm is a light hackbench whose second arm is HeavyHackbench's.
func HeavyArm() []byte {
	return []byte(`{"version":1,"machine":{"platform":"native","vcpus":8},"sched":{"policy":"scx_simple"},` +
		`"workload":{"kind":"hackbench","clients":0,"hackbench":{"groups":1,"fds":8,"loops":10,"write_ns":50,"read_ns":50}},` +
		`"arms":[{"name":"light","set":{}},{"name":"heavy","set":{"workload.hackbench.fds":"4096","workload.hackbench.loops":"1000"}}]}`)
}

// TryShare posts doc and returns the decoded reply, or an error unless the
// status is 200.
func TryShare(client *http.Client, base string, doc []byte) (Reply, error) {
	resp, err := client.Post(base+"/api/share", "application/json", bytes.NewReader(doc))
	if err != nil {
		return Reply{}, fmt.Errorf("POST /api/share: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return Reply{}, fmt.Errorf("POST /api/share: reading body: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return Reply{}, fmt.Errorf("POST /api/share: %s: %s", resp.Status, body)
	}
	var r Reply
	if err := json.Unmarshal(body, &r); err != nil {
		return Reply{}, fmt.Errorf("POST /api/share: reply is not {id, url}: %v: %s", err, body)
	}
	return r, nil
}

// Do sends one request and returns the response with its body read. A body is
// sent as application/json.
func Do(t testing.TB, client *http.Client, method, url string, body []byte) (*http.Response, []byte) {
	t.Helper()
	return DoHeader(t, client, method, url, body, nil)
}

// DoHeader is Do with header set on the request: "Host" sets the Host header, and
// an empty value removes a header (Content-Type "" sends a body without one).
func DoHeader(t testing.TB, client *http.Client, method, url string, body []byte, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		switch {
		case k == "Host":
			req.Host = v
		case v == "":
			req.Header.Del(k)
		default:
			req.Header.Set(k, v)
		}
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", method, url, err)
	}
	return resp, data
}

// Host is one running home of the share handler.
type Host struct {
	Client *http.Client
	Base   string // where it listens: http://127.0.0.1:PORT, no trailing slash
	Page   []byte // the playground page /s/{id} must serve
	// PublicURL is the public base URL it was configured with (links are
	// PublicURL+"/s/ID"), or "" when it was given none (links are relative).
	PublicURL string
}

// Contract runs the share API's cases against h.
func Contract(t *testing.T, h Host) {
	client, base := h.Client, h.Base
	t.Run("round trip", func(t *testing.T) {
		doc := Scenario(1)
		r := Share(t, client, base, doc)
		if want := h.PublicURL + "/s/" + r.ID; r.URL != want {
			t.Errorf("url = %q, want %q", r.URL, want)
		}
		resp, got := Do(t, client, http.MethodGet, base+"/api/share/"+r.ID, nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET /api/share/%s: %s: %s", r.ID, resp.Status, got)
		}
		if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("GET /api/share/%s: Content-Type %q", r.ID, ct)
		}
		if want := Canonical(t, doc); !bytes.Equal(got, want) {
			t.Errorf("GET /api/share/%s =\n%s\nwant the canonical scenario\n%s", r.ID, got, want)
		}
		// Sharing what was stored gives the same link: canonical form is a fixed point.
		if again := Share(t, client, base, got); again.ID != r.ID {
			t.Errorf("resharing the stored scenario gave %q, want %q", again.ID, r.ID)
		}
		resp, got = Do(t, client, http.MethodGet, base+"/s/"+r.ID, nil)
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET /s/%s: %s, body %.80q; want 200 and the playground page", r.ID, resp.Status, got)
		}
		CheckPage(t, got, h.Page)
		if cc := resp.Header.Get("Cache-Control"); cc != "no-cache" {
			t.Errorf("GET /s/%s: Cache-Control %q, want no-cache", r.ID, cc)
		}
		checkHeaders(t, resp)
	})

	t.Run("link preview", func(t *testing.T) { previewContract(t, h) })

	t.Run("saved states", func(t *testing.T) { statesContract(t, h) })

	t.Run("own policy", func(t *testing.T) { policyContract(t, h) })

	t.Run("trace", func(t *testing.T) { traceContract(t, h) })

	t.Run("forged Host", func(t *testing.T) {
		const forged = "evil.example"
		resp, body := DoHeader(t, client, http.MethodPost, base+"/api/share", Scenario(5), map[string]string{"Host": forged})
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("POST /api/share with Host %s: %s: %s", forged, resp.Status, body)
		}
		var r Reply
		if err := json.Unmarshal(body, &r); err != nil {
			t.Fatalf("reply is not {id, url}: %v: %s", err, body)
		}
		if want := h.PublicURL + "/s/" + r.ID; r.URL != want {
			t.Errorf("url = %q, want %q whatever the Host header says", r.URL, want)
		}
	})

	t.Run("content-addressed", func(t *testing.T) {
		a := Share(t, client, base, Scenario(2))
		// Same scenario, other spelling: whitespace, member order, an explicit default.
		respelled := []byte("{\n  \"machine\": {\"vcpus\": 3},\n  \"seed\": 3, \"name\": \"share-2\",\n  \"version\": 1, \"duration_ms\": 2000\n}")
		b := Share(t, client, base, respelled)
		if a.ID != b.ID {
			t.Errorf("equal scenarios got IDs %q and %q", a.ID, b.ID)
		}
		if c := Share(t, client, base, Scenario(3)); c.ID == a.ID {
			t.Errorf("different scenarios share ID %q", a.ID)
		}
		if len(a.ID) < 11 || strings.Trim(a.ID, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") != "" {
			t.Errorf("ID %q is not 11+ URL-safe characters", a.ID)
		}
	})

	// long is far longer than any ID and fits every host's URL limit (wrangler
	// dev's Node.js proxy allows 16 KiB of headers).
	long := strings.Repeat("L", 4000)
	for _, tc := range []struct {
		desc   string
		method string
		path   string
		header map[string]string // on top of Content-Type: application/json for a body
		body   []byte
		status int
		field  string // for 400: the field the error must name
		allow  string // for 405: the Allow header
		accept string // for 415: the Accept header
		noEcho string // a part of the request the reply must not repeat
	}{
		{desc: "malformed JSON", method: "POST", path: "/api/share", body: []byte(`{"version":1,`), status: 400},
		{desc: "empty body", method: "POST", path: "/api/share", body: []byte{}, status: 400},
		{desc: "unknown field", method: "POST", path: "/api/share", body: []byte(`{"version":1,"machine":{"vcpu":4}}`), status: 400, field: "machine.vcpu"},
		{desc: "wrong type", method: "POST", path: "/api/share", body: []byte(`{"version":1,"machine":{"vcpus":"four"}}`), status: 400, field: "machine.vcpus"},
		{desc: "out of range", method: "POST", path: "/api/share", body: []byte(`{"version":1,"machine":{"vcpus":0}}`), status: 400, field: "machine.vcpus"},
		{desc: "unsupported version", method: "POST", path: "/api/share", body: []byte(`{"version":99}`), status: 400, field: "version"},
		{desc: "a scenario that would run for hours", method: "POST", path: "/api/share", body: HeavyHackbench(), status: 400, field: "workload.hackbench.fds"},
		{desc: "an arm that would run for hours", method: "POST", path: "/api/share", body: HeavyArm(), status: 400, field: "workload.hackbench.fds"},
		{desc: "body over the limit", method: "POST", path: "/api/share", body: padded(engine.MaxScenarioBytes + 1), status: 413},
		{desc: "body at the limit", method: "POST", path: "/api/share", body: padded(engine.MaxScenarioBytes), status: 200},
		{desc: "JSON with a charset", method: "POST", path: "/api/share", header: map[string]string{"Content-Type": "application/json; charset=utf-8"},
			body: Scenario(6), status: 200},
		{desc: "text/plain", method: "POST", path: "/api/share", header: map[string]string{"Content-Type": "text/plain;charset=UTF-8"},
			body: Scenario(6), status: 415, accept: "application/json"},
		{desc: "form post", method: "POST", path: "/api/share", header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"},
			body: Scenario(6), status: 415, accept: "application/json"},
		{desc: "no Content-Type", method: "POST", path: "/api/share", header: map[string]string{"Content-Type": ""},
			body: Scenario(6), status: 415, accept: "application/json"},
		{desc: "long Content-Type", method: "POST", path: "/api/share", header: map[string]string{"Content-Type": "application/" + long},
			body: Scenario(6), status: 415, accept: "application/json", noEcho: long[:100]},
		{desc: "unknown id", method: "GET", path: "/api/share/AAAAAAAAAAA", status: 404},
		{desc: "malformed id", method: "GET", path: "/api/share/not*an*id", status: 404},
		{desc: "long id", method: "GET", path: "/api/share/" + long, status: 404, noEcho: long[:100]},
		{desc: "unknown page id", method: "GET", path: "/s/AAAAAAAAAAA", status: 404},
		{desc: "long page id", method: "GET", path: "/s/" + long, status: 404, noEcho: long[:100]},
		{desc: "unknown endpoint", method: "GET", path: "/api/nothing", status: 404},
		{desc: "long endpoint", method: "GET", path: "/api/" + long, status: 404, noEcho: long[:100]},
		{desc: "GET the share endpoint", method: "GET", path: "/api/share", status: 405, allow: "POST"},
		{desc: "DELETE a share", method: "DELETE", path: "/api/share/AAAAAAAAAAA", status: 405, allow: "GET, HEAD"},
		{desc: "POST a page", method: "POST", path: "/s/AAAAAAAAAAA", body: []byte("{}"), status: 405, allow: "GET, HEAD"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			resp, body := DoHeader(t, client, tc.method, base+tc.path, tc.body, tc.header)
			if resp.StatusCode != tc.status {
				t.Fatalf("%s %.60s: %s, want %d; body %.300s", tc.method, tc.path, resp.Status, tc.status, body)
			}
			checkHeaders(t, resp)
			if tc.allow != "" && resp.Header.Get("Allow") != tc.allow {
				t.Errorf("Allow = %q, want %q", resp.Header.Get("Allow"), tc.allow)
			}
			if tc.accept != "" && resp.Header.Get("Accept") != tc.accept {
				t.Errorf("Accept = %q, want %q", resp.Header.Get("Accept"), tc.accept)
			}
			if tc.noEcho != "" && bytes.Contains(body, []byte(tc.noEcho)) {
				t.Errorf("the reply repeats the request (%d bytes): %.200s", len(body), body)
			}
			if tc.status == http.StatusOK || strings.HasPrefix(tc.path, "/s/") {
				return
			}
			var e ErrorReply
			if err := json.Unmarshal(body, &e); err != nil || e.Error == "" {
				t.Fatalf("error body is not {\"error\": ...}: %v: %s", err, body)
			}
			if e.Field != tc.field {
				t.Errorf("field = %q, want %q (error %q)", e.Field, tc.field, e.Error)
			}
			if tc.field != "" && !strings.Contains(e.Error, tc.field) {
				t.Errorf("error %q does not name the field %q", e.Error, tc.field)
			}
			if tc.status == http.StatusUnsupportedMediaType && !strings.Contains(e.Error, "application/json") {
				t.Errorf("error %q does not say which type to send", e.Error)
			}
		})
	}
}

// padded is a valid scenario of exactly n bytes (trailing whitespace is allowed).
func padded(n int) []byte {
	doc := []byte(`{"version":1,"name":"padded"}`)
	return append(doc, bytes.Repeat([]byte(" "), n-len(doc))...)
}

// checkHeaders asserts what every response carries: the CSP that allows the
// wasm, nosniff, and no cookies or credentialed CORS.
func checkHeaders(t *testing.T, resp *http.Response) {
	t.Helper()
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "'wasm-unsafe-eval'") || !strings.Contains(csp, "default-src 'none'") {
		t.Errorf("Content-Security-Policy = %q", csp)
	}
	if v := resp.Header.Get("X-Content-Type-Options"); v != "nosniff" {
		t.Errorf("X-Content-Type-Options = %q", v)
	}
	for _, h := range []string{"Set-Cookie", "Access-Control-Allow-Credentials", "Access-Control-Allow-Origin", "X-Frame-Options"} {
		if v := resp.Header.Get(h); v != "" {
			t.Errorf("unexpected %s: %q", h, v)
		}
	}
}

// statesDoc is a small scenario whose link preview runs past its warm-up.
const statesDoc = `{"version":1,"name":"share-states","seed":5,"duration_ms":400,"warmup_ms":100,"series_interval_ms":50,
	"machine":{"vcpus":3},"workload":{"kind":"request_server","clients":4}}`

// statesContract: a share keeps the engine states its preview passed through,
// served as a checkpoint pack, for good, to a page of this engine only; each
// state resumes the shared scenario (web's own tests check that the page
// resumed from them shows what it shows from zero).
func statesContract(t *testing.T, h Host) {
	table, err := docs.Load()
	if err != nil {
		t.Fatal(err)
	}
	r := Share(t, h.Client, h.Base, []byte(statesDoc))
	path := shareapi.StatesPath(r.ID, table.Fingerprint)
	resp, pack := Do(t, h.Client, http.MethodGet, h.Base+path, nil)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/octet-stream" ||
		!strings.Contains(resp.Header.Get("Cache-Control"), "immutable") {
		t.Fatalf("GET %s: %s, Content-Type %q, Cache-Control %q", path, resp.Status, resp.Header.Get("Content-Type"), resp.Header.Get("Cache-Control"))
	}
	cks, err := engine.ReadCheckpointPack(pack)
	if err != nil || len(cks) == 0 {
		t.Fatalf("GET %s: %d states, %v", path, len(cks), err)
	}
	sc, err := engine.DecodeScenario([]byte(statesDoc))
	if err != nil {
		t.Fatal(err)
	}
	atWarmup := false
	for _, ck := range cks {
		if ck.Key != sc.Key() {
			t.Errorf("a state of another scenario (key %s, want %s)", ck.Key, sc.Key())
			continue
		}
		if _, err := engine.Resume(sc, ck.Data); err != nil {
			t.Errorf("the state at %d ns does not resume: %v", ck.NowNs, err)
		}
		atWarmup = atWarmup || ck.NowNs == sc.WarmupMs*1e6
	}
	if !atWarmup {
		t.Errorf("no state at the warm-up's end among %d", len(cks))
	}
	for _, tc := range []struct{ desc, path string }{
		{"another engine", "/api/share/" + r.ID + "/checkpoints?e=0000000000000000"},
		{"no engine named", "/api/share/" + r.ID + "/checkpoints"},
		{"an unknown share", shareapi.StatesPath("AAAAAAAAAAA", table.Fingerprint)},
	} {
		resp, body := Do(t, h.Client, http.MethodGet, h.Base+tc.path, nil)
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s, GET %s: %s %.200s, want 404", tc.desc, tc.path, resp.Status, body)
		}
	}
}

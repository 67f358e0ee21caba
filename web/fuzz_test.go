package web

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/go-json-experiment/json"

	"schedplay/web/internal/sharetest"
)

// FuzzShare drives the whole request path (routing, methods, body limit, strict
// decoding, storage) with arbitrary methods, paths and bodies. The server must
// never panic, must answer only with the statuses it documents, must give every
// API error as JSON, and every share it accepts must read back as a canonical
// scenario that shares to the same ID again.
func FuzzShare(f *testing.F) {
	f.Add(uint8(0), "/api/share", sharetest.Scenario(1))
	f.Add(uint8(0), "/api/share", []byte(`{"version":1,"machine":{"vcpus":"x"}}`))
	f.Add(uint8(0), "/api/share", []byte(`{"version":1,"arms":[{"name":"a","set":{"machine.vcpus":"4"}}]}`))
	f.Add(uint8(0), "/api/share", []byte(`{"version":1,"workload":{"service":{"dist":"lognormal","mean_us":1e308,"cv":-1}}}`))
	f.Add(uint8(0), "/api/share", []byte("{\"version\":1,\"name\":\"\xff\"}"))
	f.Add(uint8(0), "/api/share", []byte(`[]`))
	f.Add(uint8(1), "/api/share/AAAAAAAAAAA", []byte(nil))
	f.Add(uint8(1), "/s/goswvk-kBmG", []byte(nil))
	f.Add(uint8(1), "/s/../api/share", []byte(nil))
	f.Add(uint8(2), "/api/share", []byte(`{}`))
	f.Add(uint8(3), "/", []byte(nil))
	f.Add(uint8(1), "/schedplay.wasm", []byte(nil))
	f.Add(uint8(4), "/api/share/%2e%2e", []byte("x"))
	methods := []string{"POST", "GET", "PUT", "HEAD", "DELETE", "OPTIONS", "PATCH", "TRACE"}
	allowed := map[int]bool{200: true, 304: true, 307: true, 301: true, 400: true, 404: true, 405: true, 413: true}

	f.Fuzz(func(t *testing.T, m uint8, path string, body []byte) {
		s := newTestServer(t, NewMemStore()) // fresh, so memory stays flat over a long run
		method := methods[int(m)%len(methods)]
		req := jsonRequest(method, "/", body)
		req.URL = &url.URL{Path: path}
		req.RequestURI = path
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)

		if !allowed[rec.Code] {
			t.Fatalf("%s %q: status %d, body %s", method, path, rec.Code, rec.Body)
		}
		if rec.Header().Get("X-Content-Type-Options") != "nosniff" {
			t.Fatalf("%s %q: no nosniff header", method, path)
		}
		if rec.Header().Get("Content-Type") == "application/json" && rec.Code != 200 {
			var e sharetest.ErrorReply
			if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Error == "" {
				t.Fatalf("%s %q: %d with a malformed error body %q", method, path, rec.Code, rec.Body)
			}
		}
		if method != "POST" || path != "/api/share" || rec.Code != http.StatusOK {
			return
		}
		var r sharetest.Reply
		if err := json.Unmarshal(rec.Body.Bytes(), &r); err != nil {
			t.Fatalf("share reply %q: %v", rec.Body, err)
		}
		get := httptest.NewRecorder()
		s.ServeHTTP(get, httptest.NewRequest("GET", "/api/share/"+r.ID, nil))
		if get.Code != http.StatusOK {
			t.Fatalf("GET /api/share/%s after sharing: %d", r.ID, get.Code)
		}
		stored := get.Body.Bytes()
		if want := sharetest.Canonical(t, body); !bytes.Equal(stored, want) {
			t.Fatalf("stored %s, want canonical %s", stored, want)
		}
		again := httptest.NewRecorder()
		s.ServeHTTP(again, jsonRequest("POST", "/api/share", stored))
		var r2 sharetest.Reply
		if err := json.Unmarshal(again.Body.Bytes(), &r2); err != nil || r2.ID != r.ID {
			t.Fatalf("resharing the stored scenario: %d %s, want ID %s", again.Code, again.Body, r.ID)
		}
	})
}

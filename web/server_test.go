package web

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/go-json-experiment/json"

	"schedplay/scxstar"
	"schedplay/web/internal/sharetest"
)

// testStatic is a miniature playground bundle; schedplay.wasm has brotli and
// gzip siblings.
const testStatic = "testdata/static"

// testPreviewBudget keeps each share's preview to tens of milliseconds: enough
// to complete sharetest.PreviewScenario, while the other test scenarios (two
// simulated seconds of 64 clients) are cut short.
const testPreviewBudget = 300_000

func testLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(t.Output(), nil))
}

func newTestServer(t testing.TB, st Store, opts ...Option) *Server {
	t.Helper()
	opts = append([]Option{WithStore(st), WithLogger(testLogger(t)), WithStaticDir(testStatic),
		WithPreviewBudget(testPreviewBudget)}, opts...)
	s, err := NewServer(opts...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func readTestFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testStatic, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// jsonRequest is an in-process request whose body is JSON, as a share must be.
func jsonRequest(method, target string, body []byte) *http.Request {
	req := httptest.NewRequest(method, target, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	return req
}

// TestContract runs the share API's contract against each host store behind a
// real loopback server, as `schedplay serve` runs it (with the policy
// compiler), with and without a public URL. In -short mode each store runs it once, the stores taking turns at the two
// kinds of link (a run is about a second, most of it link previews).
func TestContract(t *testing.T) {
	for ki, kind := range storeKinds() {
		for li, link := range []struct{ name, publicURL string }{{"relative", ""}, {"public URL", "https://play.example.org"}} {
			if testing.Short() && ki%2 != li {
				continue
			}
			t.Run(kind.name+"/"+link.name, func(t *testing.T) {
				ts := httptest.NewServer(newTestServer(t, kind.open(t), WithPublicURL(link.publicURL),
					WithCompiler(scxstar.CompilerNamed("policy.star"))))
				defer ts.Close()
				sharetest.Contract(t, sharetest.Host{Client: ts.Client(), Base: ts.URL,
					Page: readTestFile(t, "index.html"), PublicURL: link.publicURL})
			})
		}
	}
}

func TestNewServerRefusesMissingParts(t *testing.T) {
	st, log := NewMemStore(), testLogger(t)
	for _, tc := range []struct {
		desc string
		opts []Option
		want string
	}{
		{"no store", []Option{WithLogger(log), WithStaticDir(testStatic)}, "no store"},
		{"no logger", []Option{WithStore(st), WithStaticDir(testStatic)}, "no logger"},
		{"no page", []Option{WithStore(st), WithLogger(log)}, "no playground page"},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			if _, err := NewServer(tc.opts...); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("NewServer = %v, want an error about %q", err, tc.want)
			}
		})
	}
}

// TestStatic covers the static handler: types, brotli and gzip siblings,
// caching, methods.
func TestStatic(t *testing.T) {
	s := newTestServer(t, NewMemStore())
	wasm := readTestFile(t, "schedplay.wasm")
	index := readTestFile(t, "index.html")
	for _, tc := range []struct {
		desc        string
		method      string
		path        string
		header      map[string]string
		status      int
		wantHeaders map[string]string // "" means must be absent
		body        []byte            // decoded when Content-Encoding is gzip or br
	}{
		{desc: "root is index.html", method: "GET", path: "/", status: 200, body: index,
			wantHeaders: map[string]string{"Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-cache"}},
		{desc: "index.html by name", method: "GET", path: "/index.html", status: 200, body: index,
			wantHeaders: map[string]string{"Cache-Control": "no-cache"}},
		{desc: "script", method: "GET", path: "/app.js", status: 200, body: readTestFile(t, "app.js"),
			wantHeaders: map[string]string{"Content-Type": "text/javascript; charset=utf-8", "Cache-Control": "public, max-age=300"}},
		{desc: "wasm, brotli and gzip accepted: brotli", method: "GET", path: "/schedplay.wasm", status: 200, body: wasm,
			header:      map[string]string{"Accept-Encoding": "gzip, deflate, br, zstd"},
			wantHeaders: map[string]string{"Content-Type": "application/wasm", "Content-Encoding": "br", "Vary": "Accept-Encoding"}},
		{desc: "wasm, gzip accepted", method: "GET", path: "/schedplay.wasm", status: 200, body: wasm,
			header:      map[string]string{"Accept-Encoding": "gzip"},
			wantHeaders: map[string]string{"Content-Type": "application/wasm", "Content-Encoding": "gzip", "Vary": "Accept-Encoding"}},
		{desc: "wasm, brotli refused", method: "GET", path: "/schedplay.wasm", status: 200, body: wasm,
			header:      map[string]string{"Accept-Encoding": "br;q=0, gzip"},
			wantHeaders: map[string]string{"Content-Type": "application/wasm", "Content-Encoding": "gzip", "Vary": "Accept-Encoding"}},
		{desc: "wasm, gzip refused", method: "GET", path: "/schedplay.wasm", status: 200, body: wasm,
			header:      map[string]string{"Accept-Encoding": "gzip;q=0, br;q=0, *;q=0.5"},
			wantHeaders: map[string]string{"Content-Type": "application/wasm", "Content-Encoding": "", "Vary": "Accept-Encoding"}},
		{desc: "wasm, brotli by a star", method: "GET", path: "/schedplay.wasm", status: 200, body: wasm,
			header:      map[string]string{"Accept-Encoding": "gzip;q=0, *"},
			wantHeaders: map[string]string{"Content-Type": "application/wasm", "Content-Encoding": "br", "Vary": "Accept-Encoding"}},
		{desc: "wasm, brotli HEAD", method: "HEAD", path: "/schedplay.wasm", status: 200, body: []byte{},
			header:      map[string]string{"Accept-Encoding": "br"},
			wantHeaders: map[string]string{"Content-Type": "application/wasm", "Content-Encoding": "br", "Vary": "Accept-Encoding"}},
		{desc: "wasm, no Accept-Encoding", method: "GET", path: "/schedplay.wasm", status: 200, body: wasm,
			wantHeaders: map[string]string{"Content-Type": "application/wasm", "Content-Encoding": ""}},
		{desc: "HEAD", method: "HEAD", path: "/", status: 200, body: []byte{},
			wantHeaders: map[string]string{"Content-Type": "text/html; charset=utf-8"}},
		{desc: "missing file", method: "GET", path: "/nope.js", status: 404},
		{desc: "directory", method: "GET", path: "/sub/", status: 404},
		{desc: "POST a file", method: "POST", path: "/app.js", status: 405,
			wantHeaders: map[string]string{"Allow": "GET, HEAD"}},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			req := httptest.NewRequest(tc.method, "http://example.com"+tc.path, nil)
			for k, v := range tc.header {
				req.Header.Set(k, v)
			}
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, req)
			resp := rec.Result()
			if resp.StatusCode != tc.status {
				t.Fatalf("%s %s: %s, want %d", tc.method, tc.path, resp.Status, tc.status)
			}
			for k, want := range tc.wantHeaders {
				if got := resp.Header.Get(k); got != want {
					t.Errorf("%s = %q, want %q", k, got, want)
				}
			}
			if got := resp.Header.Get("X-Content-Type-Options"); got != "nosniff" {
				t.Errorf("X-Content-Type-Options = %q", got)
			}
			if !strings.Contains(resp.Header.Get("Content-Security-Policy"), "'wasm-unsafe-eval'") {
				t.Errorf("Content-Security-Policy = %q", resp.Header.Get("Content-Security-Policy"))
			}
			if tc.body == nil {
				return
			}
			body := rec.Body.Bytes()
			switch enc := resp.Header.Get("Content-Encoding"); {
			case tc.method == "HEAD":
			case enc == "gzip":
				zr, err := gzip.NewReader(bytes.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				if body, err = io.ReadAll(zr); err != nil {
					t.Fatal(err)
				}
			case enc == "br":
				var err error
				if body, err = io.ReadAll(brotli.NewReader(bytes.NewReader(body))); err != nil {
					t.Fatal(err)
				}
			}
			if !bytes.Equal(body, tc.body) {
				t.Errorf("body = %.60q, want %.60q", body, tc.body)
			}
		})
	}
}

// TestStaticStaysInside feeds the static handler paths that climb out of its
// root directly (the mux would redirect them first): they must resolve inside.
func TestStaticStaysInside(t *testing.T) {
	h := &staticHandler{fsys: rootDirFS(testStatic)}
	for _, p := range []string{"/../server_test.go", "/../../web/server_test.go", "../static/../../doc.go", "/./../index.html"} {
		req := httptest.NewRequest("GET", "/", nil)
		req.URL.Path = p
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if strings.Contains(rec.Body.String(), "package web") {
			t.Errorf("GET %q served a file outside the root", p)
		}
		if p == "/./../index.html" && rec.Code != http.StatusOK {
			t.Errorf("GET %q: %d, want index.html inside the root", p, rec.Code)
		}
	}
}

// TestStaticSymlinks checks that a symbolic link in the bundle is served while it
// points inside the bundle and refused when it leads out, by relative path,
// absolute path or through a linked directory.
func TestStaticSymlinks(t *testing.T) {
	top := t.TempDir()
	bundle, outside := filepath.Join(top, "bundle"), filepath.Join(top, "outside")
	const secret = "outside the bundle"
	for name, body := range map[string]string{
		"bundle/index.html":   "<!doctype html>",
		"bundle/js/app.js":    "inside",
		"outside/secret.txt":  secret,
		"outside/secret.html": secret,
	} {
		p := filepath.Join(top, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"inside.js":  "js/app.js",
		"up.txt":     "../outside/secret.txt",
		"abs.txt":    filepath.Join(outside, "secret.txt"),
		"outdir":     "../outside",
		"js/deep.js": "../../outside/secret.txt",
	} {
		if err := os.Symlink(target, filepath.Join(bundle, filepath.FromSlash(link))); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
	}
	s := newTestServer(t, NewMemStore(), WithStaticDir(bundle))
	// os.DirFS follows links anywhere: the same requests through it would leak,
	// so these paths do test the confinement.
	leaky := &staticHandler{fsys: os.DirFS(bundle)}
	for _, tc := range []struct {
		path   string
		status int
		body   string
	}{
		{"/inside.js", 200, "inside"},
		{"/js/app.js", 200, "inside"},
		{"/up.txt", 404, ""},
		{"/abs.txt", 404, ""},
		{"/outdir/secret.txt", 404, ""},
		{"/outdir/secret.html", 404, ""},
		{"/js/deep.js", 404, ""},
	} {
		t.Run(tc.path, func(t *testing.T) {
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, httptest.NewRequest("GET", tc.path, nil))
			if rec.Code != tc.status || (tc.body != "" && rec.Body.String() != tc.body) {
				t.Errorf("GET %s: %d %.60q, want %d %q", tc.path, rec.Code, rec.Body, tc.status, tc.body)
			}
			if strings.Contains(rec.Body.String(), secret) {
				t.Errorf("GET %s served a file outside the bundle", tc.path)
			}
			if tc.status == 404 {
				leak := httptest.NewRecorder()
				leaky.ServeHTTP(leak, httptest.NewRequest("GET", tc.path, nil))
				if !strings.Contains(leak.Body.String(), secret) {
					t.Errorf("GET %s through os.DirFS: %d; the link does not lead out as the test means", tc.path, leak.Code)
				}
			}
		})
	}
}

// TestStaticRevalidation checks that an ETag comes back as 304, and that the
// gzip and identity forms of one file never share an ETag.
func TestStaticRevalidation(t *testing.T) {
	s := newTestServer(t, NewMemStore())
	get := func(path string, header ...string) *http.Response {
		req := httptest.NewRequest("GET", path, nil)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		return rec.Result()
	}
	first := get("/")
	etag := first.Header.Get("ETag")
	if etag == "" {
		t.Fatal("no ETag on index.html")
	}
	if again := get("/", "If-None-Match", etag); again.StatusCode != http.StatusNotModified {
		t.Errorf("If-None-Match %s: %s, want 304", etag, again.Status)
	}
	plain := get("/schedplay.wasm").Header.Get("ETag")
	zipped := get("/schedplay.wasm", "Accept-Encoding", "gzip").Header.Get("ETag")
	if plain == "" || plain == zipped {
		t.Errorf("ETags identity %q, gzip %q: want two different ones", plain, zipped)
	}
}

func TestAccepts(t *testing.T) {
	for _, tc := range []struct {
		header   string
		gzip, br bool
	}{
		{"", false, false},
		{"gzip", true, false},
		{"deflate, gzip;q=0.5", true, false},
		{"GZIP", true, false},
		{"x-gzip", true, false},
		{"br", false, true},
		{"gzip, deflate, br, zstd", true, true}, // what Chromium sends, over http to localhost too
		{"gzip;q=0", false, false},
		{"gzip;q=0.000", false, false},
		{"br;q=0, gzip", true, false},
		{"*", true, true},
		{"*;q=0", false, false},
		{"gzip;q=0, *", false, true},
		{"gzip;q=nonsense", false, false},
		{"BR;q=0.1", false, true},
	} {
		for coding, want := range map[string]bool{"gzip": tc.gzip, "br": tc.br} {
			if got := accepts(tc.header, coding); got != want {
				t.Errorf("accepts(%q, %s) = %v, want %v", tc.header, coding, got, want)
			}
		}
	}
}

// TestPublicURL checks which bases WithPublicURL takes, and the links they give;
// the contract test checks that a forged Host header changes nothing.
func TestPublicURL(t *testing.T) {
	for _, tc := range []struct {
		desc, base string
		want       string // the link's prefix before the ID; "" with wantErr
		wantErr    bool
	}{
		{desc: "none: relative links", base: "", want: "/s/"},
		{desc: "https host", base: "https://play.example.org", want: "https://play.example.org/s/"},
		{desc: "trailing slash", base: "https://play.example.org/", want: "https://play.example.org/s/"},
		{desc: "http with a port", base: "http://127.0.0.1:8080", want: "http://127.0.0.1:8080/s/"},
		{desc: "no scheme", base: "play.example.org", wantErr: true},
		{desc: "other scheme", base: "ftp://play.example.org", wantErr: true},
		{desc: "no host", base: "https://", wantErr: true},
		{desc: "a path", base: "https://example.org/play", wantErr: true},
		{desc: "a query", base: "https://play.example.org/?x=1", wantErr: true},
		{desc: "a fragment", base: "https://play.example.org/#x", wantErr: true},
		{desc: "user info", base: "https://me@play.example.org", wantErr: true},
		{desc: "not a URL", base: "https://play example.org", wantErr: true},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			s, err := NewServer(WithStore(NewMemStore()), WithLogger(testLogger(t)), WithStaticDir(testStatic), WithPublicURL(tc.base), WithPreviewBudget(testPreviewBudget))
			if tc.wantErr {
				if err == nil || !strings.Contains(err.Error(), "public URL") || !strings.Contains(err.Error(), tc.base) {
					t.Fatalf("WithPublicURL(%q): NewServer = %v, want an error naming the public URL and its value", tc.base, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, jsonRequest("POST", "http://forged.example/api/share", sharetest.Scenario(1)))
			var r sharetest.Reply
			if err := json.Unmarshal(rec.Body.Bytes(), &r); err != nil {
				t.Fatalf("%v: %s", err, rec.Body)
			}
			if r.URL != tc.want+r.ID {
				t.Errorf("url = %q, want %q", r.URL, tc.want+r.ID)
			}
		})
	}
}

// TestShareNilBody covers the Cloudflare Worker's shim, which passes a nil Body for
// a request without one.
func TestShareNilBody(t *testing.T) {
	s := newTestServer(t, NewMemStore())
	req := jsonRequest("POST", "/api/share", nil)
	req.Body = nil
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	if rec.Code != http.StatusBadRequest {
		t.Fatalf("POST without a body: %d, want 400", rec.Code)
	}
}

// failingStore fails every call, as a broken disk or KV outage would.
type failingStore struct{}

func (failingStore) Put(context.Context, string, []byte) error { return errors.New("disk on fire") }
func (failingStore) Get(context.Context, string) ([]byte, error) {
	return nil, errors.New("disk on fire")
}

// TestStoreFailure checks that storage errors are logged in full but answered
// with a plain 500.
func TestStoreFailure(t *testing.T) {
	var logBuf bytes.Buffer
	s, err := NewServer(WithStore(failingStore{}), WithLogger(slog.New(slog.NewTextHandler(&logBuf, nil))),
		WithStaticDir(testStatic))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ method, path string }{
		{"POST", "/api/share"},
		{"GET", "/api/share/AAAAAAAAAAA"},
		{"GET", "/s/AAAAAAAAAAA"},
	} {
		logBuf.Reset()
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, jsonRequest(tc.method, tc.path, sharetest.Scenario(1)))
		if rec.Code != http.StatusInternalServerError {
			t.Errorf("%s %s: %d, want 500", tc.method, tc.path, rec.Code)
		}
		if strings.Contains(rec.Body.String(), "fire") {
			t.Errorf("%s %s: the reply leaks the storage error: %s", tc.method, tc.path, rec.Body)
		}
		if !strings.Contains(logBuf.String(), "disk on fire") {
			t.Errorf("%s %s: the log misses the storage error: %q", tc.method, tc.path, logBuf.String())
		}
	}
}

// TestSharePageFromPageFunc checks the Cloudflare Worker's wiring: no static FS,
// the page from a PageFunc, and no static routes.
func TestSharePageFromPageFunc(t *testing.T) {
	page := []byte("<!doctype html><title>from assets</title>")
	st := NewMemStore()
	s, err := NewServer(WithStore(st), WithLogger(testLogger(t)), WithPreviewBudget(testPreviewBudget),
		WithPage(func(context.Context) ([]byte, error) { return page, nil }))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	defer ts.Close()
	r := sharetest.Share(t, ts.Client(), ts.URL, sharetest.Scenario(4))
	resp, body := sharetest.Do(t, ts.Client(), "GET", ts.URL+"/s/"+r.ID, nil)
	if resp.StatusCode != 200 || !bytes.HasPrefix(body, []byte("<!doctype html><!-- link preview")) {
		t.Errorf("GET /s/%s: %s %q; want the page with the link-preview tags after its doctype", r.ID, resp.Status, body)
	}
	sharetest.CheckPage(t, body, page)
	if resp, _ := sharetest.Do(t, ts.Client(), "GET", ts.URL+"/index.html", nil); resp.StatusCode != 404 {
		t.Errorf("GET /index.html without static files: %s, want 404", resp.Status)
	}
}

// TestHeadersFileMatchesServer checks that the Cloudflare Worker's _headers file
// gives static files exactly the security headers the server sets itself.
func TestHeadersFileMatchesServer(t *testing.T) {
	rec := httptest.NewRecorder()
	newTestServer(t, NewMemStore()).ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	lines := strings.Split(strings.TrimSpace(string(HeadersFile())), "\n")
	var rules int
	for _, line := range lines {
		switch {
		case strings.HasPrefix(line, "#"):
		case line == "/*":
			rules++
		default:
			name, value, ok := strings.Cut(strings.TrimSpace(line), ": ")
			if !ok || !strings.HasPrefix(line, "  ") {
				t.Fatalf("malformed _headers line %q", line)
			}
			if got := rec.Header().Get(name); got != value {
				t.Errorf("_headers sets %s: %q; the server sends %q", name, value, got)
			}
		}
	}
	if rules != 1 || len(lines) != 2+len(securityHeaders()) {
		t.Errorf("_headers =\n%s\nwant one /* rule with every security header", HeadersFile())
	}
}

package web_test

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"

	"schedplay/web"
)

// The policy editor (static/editor.js) and its styles (static/editor.css)
// are built by npm from web/editor and committed, so the README's commands
// need only Go. Each records, near its top, a hash of what it was built
// from, computed as web/editor/build.mjs does (inputsHash); a change to those
// inputs without a rebuild fails here. Their precompressed siblings must
// hold the same bytes.
func TestEditorBundleIsCurrent(t *testing.T) {
	dir := "editor"
	src, err := os.ReadDir(filepath.Join(dir, "src"))
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"build.mjs", "package-lock.json"}
	var names []string
	for _, e := range src {
		names = append(names, e.Name())
	}
	slices.Sort(names) // JavaScript's default sort, for these ASCII names
	for _, n := range names {
		files = append(files, "src/"+n)
	}
	h := sha256.New()
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(h, f+"\n")
		h.Write(b)
		io.WriteString(h, "\n")
	}
	want := "inputs sha256:" + hex.EncodeToString(h.Sum(nil))
	for _, name := range []string{"editor.js", "editor.css"} {
		checkBuilt(t, "../static/"+name, want)
	}
}

// checkBuilt checks that the file at path names want in its first three
// lines (the stylesheet's first is its @charset) and that its .gz and .br
// siblings hold it.
func checkBuilt(t *testing.T, path, want string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	head := bytes.SplitN(data, []byte("\n"), 4)
	if !bytes.Contains(bytes.Join(head[:min(3, len(head))], []byte("\n")), []byte(want)) {
		t.Fatalf("%s is not built from web/editor as it is: it begins\n  %.300s\nwant %s\nrebuild: cd web/editor && npm ci && npm run build", path, data, want)
	}
	for _, sib := range []struct {
		ext  string
		open func(io.Reader) (io.Reader, error)
	}{
		{".gz", func(r io.Reader) (io.Reader, error) { return gzip.NewReader(r) }},
		{".br", func(r io.Reader) (io.Reader, error) { return brotli.NewReader(r), nil }},
	} {
		f, err := os.Open(path + sib.ext)
		if err != nil {
			t.Fatal(err)
		}
		r, err := sib.open(f)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		f.Close()
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("%s%s does not hold %s (%v): rebuild", path, sib.ext, path, err)
		}
	}
}

// TestEditorFilesServed: `schedplay serve` sends the editor's script and
// stylesheet from the repository's bundle with their types, brotli, the
// cache lifetime of the page's other scripts, and the page's CSP, whose
// style-src admits the stylesheet (same origin) and nothing inline: the
// editor's styles must come from the file (web/editor/build.mjs), and a
// policy that allowed inline styles would hide a return of the <style>
// element the page once depended on.
func TestEditorFilesServed(t *testing.T) {
	s, err := web.NewServer(web.WithStore(web.NewMemStore()), web.WithLogger(slog.New(slog.DiscardHandler)), web.WithStaticDir("../static"))
	if err != nil {
		t.Fatal(err)
	}
	for path, ctype := range map[string]string{"/editor.css": "text/css; charset=utf-8", "/editor.js": "text/javascript; charset=utf-8"} {
		req := httptest.NewRequest("GET", path, nil)
		req.Header.Set("Accept-Encoding", "gzip, deflate, br, zstd")
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		h := rec.Result().Header
		if rec.Code != 200 || h.Get("Content-Type") != ctype || h.Get("Content-Encoding") != "br" || h.Get("Cache-Control") != "public, max-age=300" {
			t.Errorf("GET %s: %d, type %q, encoding %q, cache %q; want 200 %q, br, public, max-age=300",
				path, rec.Code, h.Get("Content-Type"), h.Get("Content-Encoding"), h.Get("Cache-Control"), ctype)
		}
		csp := h.Get("Content-Security-Policy")
		if csp != web.ContentSecurityPolicy() {
			t.Errorf("GET %s: CSP %q, want %q", path, csp, web.ContentSecurityPolicy())
		}
		if !slices.Contains(strings.Split(csp, "; "), "style-src 'self'") {
			t.Errorf("GET %s: CSP %q: want style-src 'self' and nothing more", path, csp)
		}
	}
}

package web_test

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
)

// The policy editor (static/editor.js) is built by npm from web/editor and
// committed, so the README's commands need only Go. Its first line records a
// hash of what it was built from, computed as web/editor/build.mjs does
// (inputsHash); a change to those inputs without a rebuild fails here. Its
// precompressed siblings must hold the same script.
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
	js, err := os.ReadFile("../static/editor.js")
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := bytes.Cut(js, []byte("\n"))
	if !strings.Contains(string(first), want) {
		t.Fatalf("static/editor.js is not built from web/editor as it is: its first line is\n  %s\nwant %s\nrebuild: cd web/editor && npm ci && npm run build", first, want)
	}
	for _, sib := range []struct {
		ext  string
		open func(io.Reader) (io.Reader, error)
	}{
		{".gz", func(r io.Reader) (io.Reader, error) { return gzip.NewReader(r) }},
		{".br", func(r io.Reader) (io.Reader, error) { return brotli.NewReader(r), nil }},
	} {
		f, err := os.Open("../static/editor.js" + sib.ext)
		if err != nil {
			t.Fatal(err)
		}
		r, err := sib.open(f)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		f.Close()
		if err != nil || !bytes.Equal(got, js) {
			t.Errorf("static/editor.js%s does not hold static/editor.js (%v): rebuild", sib.ext, err)
		}
	}
}

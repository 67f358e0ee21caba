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
	"testing"

	"github.com/andybalholm/brotli"
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

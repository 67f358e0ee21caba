package web

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// indexFile is the playground page inside the static directory.
const indexFile = "index.html"

// contentType fixes the types of what the bundle holds instead of trusting the
// host's mime tables: browsers compile wasm while streaming only when it is
// served as application/wasm, and nosniff makes a wrong script type fatal.
func contentType(name string) string {
	switch ext := path.Ext(name); ext {
	case ".html":
		return "text/html; charset=utf-8"
	case ".js", ".mjs":
		return "text/javascript; charset=utf-8"
	case ".css":
		return "text/css; charset=utf-8"
	case ".wasm":
		return "application/wasm"
	case ".json":
		return "application/json"
	case ".svg":
		return "image/svg+xml"
	case ".png":
		return "image/png"
	case ".ico":
		return "image/x-icon"
	case ".txt":
		return "text/plain; charset=utf-8"
	case ".gz":
		return "application/gzip"
	default:
		if t := mime.TypeByExtension(ext); t != "" {
			return t
		}
		return "application/octet-stream"
	}
}

// staticHandler serves the playground bundle from a directory:
//   - "/" is index.html; other directories are not listed (404);
//   - a precompressed sibling is served for NAME to clients that accept its
//     coding: "NAME.br" with Content-Encoding: br, else "NAME.gz" with gzip
//     (the wasm binary is several MiB and compresses about 5x and 4x);
//   - HTML must be revalidated on every load (no-cache + ETag) so a new bundle
//     shows at once; other files may be reused for cacheMaxAge. Their names carry
//     no content hash, so a longer lifetime would pair a new page with old
//     scripts for that long.
type staticHandler struct {
	fsys fs.FS // never nil
}

// cacheMaxAge is how long browsers may reuse a non-HTML file without asking.
const cacheMaxAge = 5 * time.Minute

func (h *staticHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		methodNotAllowed(w, http.MethodGet, http.MethodHead)
		return
	}
	name := strings.TrimPrefix(path.Clean("/"+r.URL.Path), "/")
	if name == "" {
		name = indexFile
	}
	if !fs.ValidPath(name) {
		writeNotFoundPage(w, "")
		return
	}
	file, err := openFile(h.fsys, name)
	if err != nil {
		writeNotFoundPage(w, "")
		return
	}
	defer func() { file.Close() }()
	hdr := w.Header()
	accept := r.Header.Get("Accept-Encoding")
	varied := false
	for _, enc := range precompressed() {
		sib, err := openFile(h.fsys, name+enc.suffix)
		if err != nil {
			continue
		}
		if !varied {
			// The reply depends on Accept-Encoding whenever a sibling exists.
			hdr.Add("Vary", "Accept-Encoding")
			varied = true
		}
		if !accepts(accept, enc.coding) {
			sib.Close()
			continue
		}
		file.Close()
		file = sib
		file.etag = strings.TrimSuffix(file.etag, `"`) + "-" + enc.coding + `"`
		hdr.Set("Content-Encoding", enc.coding)
		break
	}
	hdr.Set("Content-Type", contentType(name))
	hdr.Set("ETag", file.etag)
	if strings.HasSuffix(name, ".html") {
		hdr.Set("Cache-Control", "no-cache")
	} else {
		hdr.Set("Cache-Control", fmt.Sprintf("public, max-age=%d", int(cacheMaxAge.Seconds())))
	}
	// ServeContent answers If-None-Match, If-Modified-Since, HEAD and ranges.
	http.ServeContent(w, r, name, file.modTime, file.content)
}

// rootDirFS is the file tree at a directory, like os.DirFS, except that a
// symbolic link is followed only while it stays inside the tree: os.OpenInRoot
// resolves every component within the directory (os.Root) and fails on a link
// that leads out. os.DirFS follows links anywhere, so a stray link in the bundle
// (static/notes -> /etc) would serve whatever it points at.
//
// Each Open opens the directory afresh instead of holding it open: a bundle rebuilt
// by replacing the directory is served at once, and the Server keeps no
// descriptor that would need closing.
type rootDirFS string

func (d rootDirFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	f, err := os.OpenInRoot(string(d), filepath.FromSlash(name))
	if err != nil {
		return nil, err // not f: a nil *os.File is not a nil fs.File
	}
	return f, nil
}

// staticFile is one regular file ready to serve; Close releases it.
type staticFile struct {
	content io.ReadSeeker
	modTime time.Time
	etag    string
	io.Closer
}

// openFile opens a regular file. Files of rootDirFS and os.DirFS seek and have a
// modification time, so the ETag comes from size and time (as nginx does) without
// reading the file; files without a time (embed.FS) are read and hashed.
func openFile(fsys fs.FS, name string) (staticFile, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return staticFile{}, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return staticFile{}, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return staticFile{}, errors.New("not a regular file")
	}
	if rs, ok := f.(io.ReadSeeker); ok && !st.ModTime().IsZero() {
		return staticFile{
			content: rs,
			modTime: st.ModTime(),
			etag:    fmt.Sprintf(`"%x-%x"`, st.Size(), st.ModTime().UnixNano()),
			Closer:  f,
		}, nil
	}
	data, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		return staticFile{}, err
	}
	sum := sha256.Sum256(data)
	return staticFile{
		content: bytes.NewReader(data),
		modTime: st.ModTime(),
		etag:    `"` + base64.RawURLEncoding.EncodeToString(sum[:12]) + `"`,
		Closer:  io.NopCloser(nil), // nothing stays open
	}, nil
}

// precompressed lists the siblings a file may have, in the order they are
// preferred: brotli (internal/wasmbuild writes it; about a fifth smaller than
// gzip for the wasm binaries), then gzip.
func precompressed() [2]struct{ suffix, coding string } {
	return [...]struct{ suffix, coding string }{{".br", "br"}, {".gz", "gzip"}}
}

// accepts reports whether an Accept-Encoding value admits coding: named with a
// non-zero quality, or left to a "*" with a non-zero quality ("x-gzip" names
// gzip too).
func accepts(accept, coding string) bool {
	named, star := -1.0, -1.0 // quality, or -1 when not listed
	for part := range strings.SplitSeq(accept, ",") {
		c, params, _ := strings.Cut(part, ";")
		q := 1.0
		if v, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				continue // a malformed entry counts as absent
			}
			q = f
		}
		switch c = strings.ToLower(strings.TrimSpace(c)); {
		case c == coding, coding == "gzip" && c == "x-gzip":
			named = q
		case c == "*":
			star = q
		}
	}
	if named >= 0 {
		return named > 0
	}
	return star > 0
}

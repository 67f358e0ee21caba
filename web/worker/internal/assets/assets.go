// Package assets assembles the Worker's static assets directory: a copy of the
// playground bundle (static/) plus a _headers file carrying the security headers
// of schedplay/web, so files served by Workers assets (without Go) get the same
// Content-Security-Policy as those `schedplay serve` sends.
//
// Precompressed siblings (*.gz, *.br) are left out: Workers assets compress on
// their own, and the copies would only count against the upload. Dotfiles are
// left out too.
package assets

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"schedplay/web"
)

// maxAssetBytes is Cloudflare's limit for one static asset file.
const maxAssetBytes = 25 << 20

// Assemble recreates out from the bundle in static. It warns on warn when the
// bundle has no wasm (the page would load but not start).
func Assemble(static, out string, warn io.Writer) error {
	if _, err := os.Stat(filepath.Join(static, "index.html")); err != nil {
		return fmt.Errorf("%s has no index.html: build the playground first: %w", static, err)
	}
	if err := os.RemoveAll(out); err != nil {
		return err
	}
	wasm := false
	err := filepath.WalkDir(static, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(static, path)
		if err != nil {
			return err
		}
		name := d.Name()
		if rel != "." && strings.HasPrefix(name, ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		dst := filepath.Join(out, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(dst, 0o755)
		case strings.HasSuffix(name, ".gz") || strings.HasSuffix(name, ".br"):
			return nil
		case !d.Type().IsRegular():
			return nil
		}
		wasm = wasm || strings.HasSuffix(name, ".wasm")
		return copyFile(dst, path)
	})
	if err != nil {
		return err
	}
	if !wasm {
		fmt.Fprintf(warn, "mkassets: warning: %s holds no .wasm; the playground page will not start\n", static)
	}
	return os.WriteFile(filepath.Join(out, "_headers"), web.HeadersFile(), 0o644)
}

func copyFile(dst, src string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return err
	}
	if st.Size() > maxAssetBytes {
		return fmt.Errorf("%s is %d bytes, above Workers' per-asset limit of %d", src, st.Size(), maxAssetBytes)
	}
	outf, err := os.Create(dst)
	if err != nil {
		return err
	}
	_, err = io.Copy(outf, in)
	return errors.Join(err, outf.Close())
}

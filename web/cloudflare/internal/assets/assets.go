// Package assets assembles the Cloudflare Worker's static assets directory: a copy
// of the playground bundle (static/) plus a _headers file carrying the security
// headers of schedplay/web, so files served by Workers assets (without Go) get the
// same Content-Security-Policy as those `schedplay serve` sends.
//
// Precompressed siblings (*.gz, *.br) are left out: Workers assets cannot serve
// them as an encoding of NAME (a NAME.br asset is served as a file of its own,
// without Content-Encoding; Cloudflare's workers-sdk issue 11089 asks for it and
// is open), and Cloudflare compresses on its own what it sends a browser:
// application/wasm, text/javascript, text/css and text/html are on its list of
// compressed types, in brotli, gzip or zstd as Accept-Encoding admits (browsers
// ask for br over https). So the deployment sends the wasm brotli-compressed at
// Cloudflare's level, not at wasmbuild's, and the copies would only count
// against the upload. Dotfiles are
// left out too, and so are symbolic links that lead out of the bundle (see
// Assemble).
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
// bundle has no wasm (the page would load but not start) and for each symbolic
// link it leaves out.
//
// Files are read through os.Root, as `schedplay serve` serves them
// (web.WithStaticDir): a symbolic link to a file inside the bundle is copied as
// that file, and one that leads out of the bundle is left out, so the Cloudflare
// Worker never publishes what the bundle only points at.
func Assemble(static, out string, warn io.Writer) error {
	if _, err := os.Stat(filepath.Join(static, "index.html")); err != nil {
		return fmt.Errorf("%s has no index.html: build the playground first: %w", static, err)
	}
	root, err := os.OpenRoot(static)
	if err != nil {
		return err
	}
	defer root.Close()
	if err := os.RemoveAll(out); err != nil {
		return err
	}
	wasm := false
	err = fs.WalkDir(root.FS(), ".", func(rel string, d fs.DirEntry, err error) error {
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
		dst := filepath.Join(out, filepath.FromSlash(rel))
		switch {
		case d.IsDir():
			return os.MkdirAll(dst, 0o755)
		case strings.HasSuffix(name, ".gz") || strings.HasSuffix(name, ".br"):
			return nil
		case d.Type()&fs.ModeSymlink != 0:
			// WalkDir does not follow links; opening one through the root does,
			// and fails when the link leads out of the bundle.
		case !d.Type().IsRegular():
			return nil
		}
		in, err := root.Open(filepath.FromSlash(rel))
		if err != nil {
			if d.Type()&fs.ModeSymlink != 0 {
				fmt.Fprintf(warn, "mkassets: warning: left out %s: a symbolic link that leads out of the bundle (%v)\n", rel, err)
				return nil
			}
			return err
		}
		defer in.Close()
		st, err := in.Stat()
		if err != nil {
			return err
		}
		if !st.Mode().IsRegular() {
			fmt.Fprintf(warn, "mkassets: warning: left out %s: a symbolic link to a directory or special file\n", rel)
			return nil
		}
		if st.Size() > maxAssetBytes {
			return fmt.Errorf("%s is %d bytes, above Workers' per-asset limit of %d", filepath.Join(static, rel), st.Size(), maxAssetBytes)
		}
		wasm = wasm || strings.HasSuffix(name, ".wasm")
		return copyFile(dst, in)
	})
	if err != nil {
		return err
	}
	if !wasm {
		fmt.Fprintf(warn, "mkassets: warning: %s holds no .wasm; the playground page will not start\n", static)
	}
	return os.WriteFile(filepath.Join(out, "_headers"), web.HeadersFile(), 0o644)
}

// copyFile copies in to a new file dst.
func copyFile(dst string, in io.Reader) error {
	outf, err := os.Create(dst)
	if err != nil {
		return err
	}
	_, err = io.Copy(outf, in)
	return errors.Join(err, outf.Close())
}

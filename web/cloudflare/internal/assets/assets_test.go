package assets

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"schedplay/web"
)

func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestAssemble(t *testing.T) {
	for _, tc := range []struct {
		desc    string
		static  map[string]string
		links   map[string]string // symbolic link -> target; "OUTSIDE" stands for a file outside the bundle
		want    []string          // files that must be in out (besides _headers)
		linked  map[string]string // copied links -> the file whose content they must have
		absent  []string
		warn    string // substring of the warning, "" for none
		wantErr string
	}{
		{
			desc: "bundle",
			static: map[string]string{"index.html": "<p>", "app.js": "1", "schedplay.wasm": "\x00asm", "schedplay.wasm.gz": "gz", "x.br": "br", ".gitignore": "*", "img/logo.svg": "<svg/>",
				"editor.css": "@charset \"utf-8\";", "editor.css.br": "br"},
			want:   []string{"index.html", "app.js", "schedplay.wasm", "img/logo.svg", "editor.css"},
			absent: []string{"schedplay.wasm.gz", "x.br", ".gitignore", "editor.css.br"},
		},
		{
			desc:   "symbolic links",
			static: map[string]string{"index.html": "<p>", "app.js": "1", "schedplay.wasm": "\x00asm", "img/logo.svg": "<svg/>"},
			links: map[string]string{"inside.js": "app.js", "img/up.js": "../app.js", "out.txt": "OUTSIDE",
				"img/out.txt": "../../outside/secret.txt", "imglink": "img"},
			want:   []string{"index.html", "app.js"},
			linked: map[string]string{"inside.js": "app.js", "img/up.js": "app.js"},
			absent: []string{"out.txt", "img/out.txt", "imglink"},
			warn:   "leads out of the bundle",
		},
		{
			desc:   "no wasm warns",
			static: map[string]string{"index.html": "<p>"},
			want:   []string{"index.html"},
			warn:   "holds no .wasm",
		},
		{
			desc:    "no index.html fails",
			static:  map[string]string{"app.js": "1"},
			wantErr: "no index.html",
		},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			top := t.TempDir()
			static, out := filepath.Join(top, "static"), filepath.Join(top, "assets")
			writeTree(t, static, tc.static)
			secret := filepath.Join(top, "outside", "secret.txt")
			writeTree(t, filepath.Dir(secret), map[string]string{"secret.txt": "secret"})
			for link, target := range tc.links {
				if target == "OUTSIDE" {
					target = secret
				}
				if err := os.Symlink(target, filepath.Join(static, filepath.FromSlash(link))); err != nil {
					t.Skipf("no symbolic links here: %v", err)
				}
			}
			// A stale file from an earlier build must not survive.
			writeTree(t, out, map[string]string{"stale.js": "old"})
			var warn bytes.Buffer
			err := Assemble(static, out, &warn)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Assemble = %v, want an error about %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range tc.want {
				got, err := os.ReadFile(filepath.Join(out, name))
				if err != nil || string(got) != tc.static[name] {
					t.Errorf("%s: %q, %v; want a copy", name, got, err)
				}
			}
			for link, file := range tc.linked {
				got, err := os.ReadFile(filepath.Join(out, link))
				if err != nil || string(got) != tc.static[file] {
					t.Errorf("%s: %q, %v; want a copy of %s", link, got, err, file)
				}
			}
			for _, name := range append(tc.absent, "stale.js") {
				if _, err := os.Stat(filepath.Join(out, name)); err == nil {
					t.Errorf("%s was copied, want it left out", name)
				}
			}
			// The static files get the very policy `schedplay serve` sends
			// (web.ContentSecurityPolicy), for every path (/*).
			headers, err := os.ReadFile(filepath.Join(out, "_headers"))
			if err != nil || !bytes.Contains(headers, []byte("\n/*\n")) ||
				!bytes.Contains(headers, []byte("\n  Content-Security-Policy: "+web.ContentSecurityPolicy()+"\n")) ||
				!bytes.Contains(headers, []byte("X-Content-Type-Options: nosniff")) {
				t.Errorf("_headers = %q, %v; want serve's CSP %q for /*", headers, err, web.ContentSecurityPolicy())
			}
			if (tc.warn == "") != (warn.Len() == 0) || !strings.Contains(warn.String(), tc.warn) {
				t.Errorf("warning %q, want one containing %q", warn.String(), tc.warn)
			}
		})
	}
}

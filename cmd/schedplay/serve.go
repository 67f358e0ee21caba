package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"syscall"
	"time"

	"schedplay/scxstar"
	"schedplay/web"
)

// Timeouts of the local server. Reads are bounded so a slow or stalled client
// cannot hold a connection (a share body is at most engine.MaxScenarioBytes, 80 KiB); the write timeout
// leaves room for the playground's wasm (several MiB) on a slow link.
const (
	serveReadHeaderTimeout = 5 * time.Second
	serveReadTimeout       = 15 * time.Second
	serveWriteTimeout      = 60 * time.Second
	serveIdleTimeout       = 2 * time.Minute
	serveShutdownTimeout   = 5 * time.Second
)

// shareDBName is the bbolt file inside the data directory.
const shareDBName = "shares.db"

// cmdServe runs the playground's HTTP server: the static bundle and the share-link
// API of package web, with shares in a bbolt file. It returns when SIGINT or
// SIGTERM arrives, after in-flight requests finish.
func cmdServe(args []string, stdout, stderr io.Writer) error {
	a := newApp(nil, stdout, stderr)
	fs := a.newFlagSet("serve", "[--addr HOST:PORT] [--data DIR] [--static DIR] [--public-url URL]")
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on")
	dataDir := fs.String("data", "", "directory for the share database, created on first use (default $XDG_DATA_HOME/schedplay or ~/.local/share/schedplay)")
	staticDir := fs.String("static", "", "the playground bundle to serve (default static/ in the schedplay repository around the working directory)")
	publicURL := fs.String("public-url", "", "the URL the playground is reached at from outside, such as https://play.example.org, for the links shares return (default: links relative to the page)")
	pos, err := parse(fs, args, a)
	if err != nil {
		return err
	}
	if err := wantArgs(fs, pos); err != nil {
		return err
	}

	if *staticDir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return err
		}
		root, err := findRepoRoot(wd)
		if err != nil {
			return fmt.Errorf("serve: %w; pass --static DIR", err)
		}
		// The repo's own bundle may be stale or unbuilt; build it as needed.
		if err := ensurePlayground(root, stderr); err != nil {
			return fmt.Errorf("serve: building the playground: %w", err)
		}
		*staticDir = filepath.Join(root, "static")
	}
	if _, err := os.Stat(filepath.Join(*staticDir, "index.html")); err != nil {
		return fmt.Errorf("serve: %s is not a playground bundle: %w", *staticDir, err)
	}
	if *dataDir == "" {
		if *dataDir, err = defaultDataDir(); err != nil {
			return fmt.Errorf("serve: %w; pass --data DIR", err)
		}
	}
	if err := os.MkdirAll(*dataDir, 0o700); err != nil {
		return fmt.Errorf("serve: data directory: %w", err)
	}
	store, err := web.OpenBolt(filepath.Join(*dataDir, shareDBName))
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	defer store.Close()

	logger := slog.New(slog.NewTextHandler(stderr, nil))
	handler, err := web.NewServer(web.WithStore(store), web.WithLogger(logger), web.WithStaticDir(*staticDir),
		web.WithPublicURL(*publicURL), web.WithCompiler(scxstar.CompilerNamed("policy.star")))
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: serveReadHeaderTimeout,
		ReadTimeout:       serveReadTimeout,
		WriteTimeout:      serveWriteTimeout,
		IdleTimeout:       serveIdleTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	// Listen before announcing, so the printed URL works (and names the real port
	// when --addr asks for port 0).
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	fmt.Fprintf(stdout, "schedplay: serving http://%s/ (bundle %s, shares in %s)\n", ln.Addr(), *staticDir, *dataDir)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	stop() // a second signal kills the process the usual way
	fmt.Fprintln(stderr, "schedplay: shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), serveShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("serve: shutdown: %w", err)
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}

// findRepoRoot walks up from dir to the directory whose go.mod declares
// "module schedplay".
func findRepoRoot(dir string) (string, error) {
	for d := dir; ; {
		mod, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil && isSchedplayModule(mod) {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("no schedplay repository (go.mod with \"module schedplay\") at or above %s", dir)
		}
		d = parent
	}
}

func isSchedplayModule(gomod []byte) bool {
	for line := range bytes.Lines(gomod) {
		f := bytes.Fields(line)
		if len(f) == 2 && string(f[0]) == "module" && string(bytes.Trim(f[1], `"`)) == "schedplay" {
			return true
		}
	}
	return false
}

// defaultDataDir is the per-user data directory: $XDG_DATA_HOME/schedplay, else
// ~/.local/share/schedplay (%LocalAppData%\schedplay on Windows).
func defaultDataDir() (string, error) {
	if d := os.Getenv("XDG_DATA_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "schedplay"), nil
	}
	if runtime.GOOS == "windows" {
		if d := os.Getenv("LocalAppData"); d != "" {
			return filepath.Join(d, "schedplay"), nil
		}
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no per-user data directory: %w", err)
	}
	return filepath.Join(home, ".local", "share", "schedplay"), nil
}

package web

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"runtime"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"schedplay/docs"
	"schedplay/engine"
	"schedplay/internal/shareapi"
	"schedplay/preview"
)

// PageFunc returns the playground's index.html, which /s/{id} serves.
type PageFunc func(ctx context.Context) ([]byte, error)

// Server is the share-link handler, plus the static files when it has them.
type Server struct {
	mux      *http.ServeMux
	store    Store              // never nil
	log      *slog.Logger       // never nil
	static   fs.FS              // nil when something else serves them (Cloudflare's static assets)
	page     PageFunc           // never nil
	budget   int64              // engine events a share's preview may take (WithPreviewBudget)
	compile  engine.ScxCompiler // a policy's compiler for previews (WithCompiler), or nil
	previews previews
	// engine names the engine that makes and serves shares' saved states
	// (states.go): shareapi.EngineTag of the calibration fingerprint.
	engine string
	// publicURL is the scheme and host share links name ("https://play.example.org"),
	// or "" for links relative to whatever host the page came from.
	publicURL string
}

// Option configures a Server under construction.
type Option func(*Server) error

// WithStore sets where shares live (required).
func WithStore(st Store) Option {
	return func(s *Server) error { s.store = st; return nil }
}

// WithLogger sets where storage and internal errors are logged (required).
func WithLogger(l *slog.Logger) Option {
	return func(s *Server) error { s.log = l; return nil }
}

// WithStatic serves the playground bundle from fsys at / and takes /s/{id}'s page
// from fsys's index.html unless WithPage says otherwise.
func WithStatic(fsys fs.FS) Option {
	return func(s *Server) error { s.static = fsys; return nil }
}

// WithStaticDir serves the playground bundle in the directory dir, as WithStatic
// does, except that a symbolic link is followed only while it stays inside dir.
// `schedplay serve` uses it; os.DirFS would follow a stray link anywhere.
func WithStaticDir(dir string) Option {
	return func(s *Server) error { s.static = rootDirFS(dir); return nil }
}

// WithPublicURL sets the base of the links POST /api/share returns: the scheme
// and host the playground is reached at from outside, such as
// "https://play.example.org". Without it (or with "") links are relative
// ("/s/ID"), which the playground resolves against its own page. The request's
// Host header is never used: anyone can forge it, and the link it made would send
// whoever opens the share to the forger's host.
func WithPublicURL(base string) Option {
	return func(s *Server) error {
		if base == "" {
			s.publicURL = ""
			return nil
		}
		u, err := url.Parse(base)
		// The playground's page names its files by absolute paths (/app.js), so it
		// works only at the root of a host: a base with a path would give dead links.
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
			u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
			return fmt.Errorf("public URL %q is not the root URL of a host, such as https://play.example.org", base)
		}
		s.publicURL = u.Scheme + "://" + u.Host
		return nil
	}
}

// WithPage sets where /s/{id} gets the playground page from; the Cloudflare Worker
// reads it from its assets binding.
func WithPage(page PageFunc) Option {
	return func(s *Server) error { s.page = page; return nil }
}

// NewServer builds a Server. It refuses to build without a store, a logger, and a
// way to get the playground page (WithStatic or WithPage).
func NewServer(opts ...Option) (*Server, error) {
	table, err := docs.Load()
	if err != nil {
		return nil, err
	}
	s := &Server{mux: http.NewServeMux(), budget: preview.DefaultEventBudget,
		previews: previews{slots: make(chan struct{}, runtime.GOMAXPROCS(0))}, engine: shareapi.EngineTag(table.Fingerprint)}
	for _, o := range opts {
		if err := o(s); err != nil {
			return nil, err
		}
	}
	if s.store == nil {
		return nil, errors.New("web.NewServer: no store (use WithStore)")
	}
	if s.log == nil {
		return nil, errors.New("web.NewServer: no logger (use WithLogger)")
	}
	if s.page == nil && s.static != nil {
		fsys := s.static
		s.page = func(context.Context) ([]byte, error) { return fs.ReadFile(fsys, indexFile) }
	}
	if s.page == nil {
		return nil, errors.New("web.NewServer: no playground page (use WithStatic or WithPage)")
	}
	s.routes()
	return s, nil
}

// routes registers every route; methods are checked in the handlers so that a
// wrong method gets the same JSON error shape as every other API failure.
func (s *Server) routes() {
	s.mux.HandleFunc("/api/share", s.handleShare)
	s.mux.HandleFunc("/api/share/{id}", s.handleGetShare)
	s.mux.HandleFunc(shareapi.StatesRoute, s.handleShareStates)
	s.mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		// The path is not echoed: it may be as long as the server's header limit.
		writeError(w, http.StatusNotFound, "", "no such API endpoint; the API is POST /api/share, GET /api/share/{id} and GET /api/share/{id}/checkpoints?e=ENGINE")
	})
	s.mux.HandleFunc("/s/{name}", s.handleShareFile)
	s.mux.HandleFunc("/oembed", s.handleOEmbed)
	if s.static != nil {
		s.mux.Handle("/", &staticHandler{fsys: s.static})
	} else {
		s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { writeNotFoundPage(w, "") })
	}
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	setSecurityHeaders(w.Header())
	s.mux.ServeHTTP(w, r)
}

// errorReply is the body of every API error. Field is the dotted JSON path of the
// scenario field at fault, when there is one.
type errorReply struct {
	Error string `json:"error"`
	Field string `json:"field,omitzero"`
}

// writeJSON writes v as the JSON reply. Error messages may quote the request
// (a path, a field name), which may be invalid UTF-8: such bytes become U+FFFD
// rather than failing the reply.
func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v, jsontext.AllowInvalidUTF8(true))
	if err != nil { // only plain structs of strings are passed here
		status, body = http.StatusInternalServerError, []byte(`{"error":"internal error"}`)
	}
	body = append(body, '\n')
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Length", fmt.Sprint(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}

func writeError(w http.ResponseWriter, status int, field, msg string) {
	writeJSON(w, status, errorReply{Error: msg, Field: field})
}

func writeNotFoundJSON(w http.ResponseWriter, id string) {
	writeError(w, http.StatusNotFound, "", "no shared scenario "+describeID(id))
}

// describeID names id in a not-found reply. Only a well-formed ID is quoted:
// anything else is part of the request URL, may be as long as the server's header
// limit (tens of kilobytes), and is not worth sending back; saying what an ID
// looks like helps more.
func describeID(id string) string {
	if validID(id) {
		return fmt.Sprintf("%q", id)
	}
	return fmt.Sprintf("with that ID (an ID is %d to %d characters of A-Z, a-z, 0-9, - and _)", idLen, maxIDLen)
}

// writeNotFoundPage answers a browser: a small page that leads back to the
// playground.
func writeNotFoundPage(w http.ResponseWriter, id string) {
	msg := "Page not found."
	if id != "" {
		msg = "No shared scenario " + html.EscapeString(describeID(id)) + "."
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusNotFound)
	fmt.Fprintf(w, "<!doctype html>\n<title>schedplay: not found</title>\n<p>%s <a href=\"/\">Open the playground</a>.</p>\n", msg)
}

func methodNotAllowed(w http.ResponseWriter, allowed ...string) {
	w.Header().Set("Allow", strings.Join(allowed, ", "))
	writeError(w, http.StatusMethodNotAllowed, "", "method not allowed; use "+strings.Join(allowed, " or "))
}

// internalError logs the full error and answers with a plain 500, so storage
// details never reach clients.
func (s *Server) internalError(w http.ResponseWriter, r *http.Request, err error) {
	s.log.Error("web: request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	writeError(w, http.StatusInternalServerError, "", "internal error")
}

package web

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"

	"schedplay/engine"
)

const (
	// idSalt keeps share IDs from being the bare SHA-256 of public JSON, so they
	// match no other system's content hashes. It is not a secret.
	idSalt = "schedplay share\n"

	// idLen is the usual ID length: 11 base64url characters carry 66 bits, so
	// collisions are negligible for any number of shares a playground will see and
	// IDs cannot be enumerated. On the rare collision putShare uses a longer prefix.
	idLen = 11
)

// shareHash is the full base64url (unpadded) SHA-256 of the salted canonical
// scenario; IDs are prefixes of it.
func shareHash(canonical []byte) string {
	h := sha256.New()
	io.WriteString(h, idSalt)
	h.Write(canonical)
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}

// idPrefixes lists the IDs a scenario may get, shortest first. Web sites often do
// not link a trailing underscore, making such a link look broken, so prefixes
// that end in '_' are skipped (the Go playground extends its IDs the same way).
func idPrefixes(hash string) []string {
	var ids []string
	for n := idLen; n <= len(hash); n++ {
		if hash[n-1] != '_' {
			ids = append(ids, hash[:n])
		}
	}
	return ids
}

// validID reports whether id could be a share ID, so that garbage never reaches
// the store.
func validID(id string) bool {
	if len(id) < idLen || len(id) > base64.RawURLEncoding.EncodedLen(sha256.Size) {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// putShare stores canonical under the shortest free ID prefix of its hash. The
// same scenario always lands on the same ID (Put is idempotent), and a different
// scenario that collides moves on to a longer prefix.
func putShare(ctx context.Context, st Store, canonical []byte) (string, error) {
	for _, id := range idPrefixes(shareHash(canonical)) {
		err := st.Put(ctx, id, canonical)
		if errors.Is(err, ErrConflict) {
			continue
		}
		if err != nil {
			return "", err
		}
		return id, nil
	}
	return "", errors.New("every ID prefix of the scenario's hash holds another scenario")
}

// shareReply is the body of a successful POST /api/share.
type shareReply struct {
	ID  string `json:"id"`
	URL string `json:"url"`
}

// handleShare stores a scenario: method, size limit, strict decode, store, reply.
func (s *Server) handleShare(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		methodNotAllowed(w, http.MethodPost)
		return
	}
	var body []byte
	if r.Body != nil { // the Worker shim passes a nil Body for a request without one
		var err error
		body, err = io.ReadAll(http.MaxBytesReader(w, r.Body, engine.MaxScenarioBytes))
		if err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				writeError(w, http.StatusRequestEntityTooLarge, "",
					fmt.Sprintf("scenario is larger than the limit of %d bytes", engine.MaxScenarioBytes))
				return
			}
			writeError(w, http.StatusBadRequest, "", "reading the request body: "+err.Error())
			return
		}
	}
	sc, err := engine.DecodeScenario(body)
	if err != nil {
		var ferr *engine.FieldError
		if errors.As(err, &ferr) {
			writeError(w, http.StatusBadRequest, ferr.Path, ferr.Error())
			return
		}
		writeError(w, http.StatusBadRequest, "", err.Error())
		return
	}
	canonical, err := sc.Canonical()
	if err != nil {
		s.internalError(w, r, fmt.Errorf("canonical scenario: %w", err))
		return
	}
	id, err := putShare(r.Context(), s.store, canonical)
	if err != nil {
		s.internalError(w, r, fmt.Errorf("storing share: %w", err))
		return
	}
	writeJSON(w, http.StatusOK, shareReply{ID: id, URL: absoluteURL(r, "/s/"+id)})
}

// handleGetShare returns a stored scenario's canonical JSON.
func (s *Server) handleGetShare(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		methodNotAllowed(w, http.MethodGet, http.MethodHead)
		return
	}
	data, ok := s.lookup(w, r, r.PathValue("id"), writeNotFoundJSON)
	if !ok {
		return
	}
	// An ID names one scenario forever (the store is write-once), so the reply never
	// changes and may be cached for good.
	writeBody(w, r, "application/json", "public, max-age=31536000, immutable", data)
}

// writeBody answers 200 with body (headers only for HEAD).
func writeBody(w http.ResponseWriter, r *http.Request, contentType, cacheControl string, body []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Cache-Control", cacheControl)
	h.Set("Content-Length", fmt.Sprint(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// handleSharePage serves the playground page for a known share ID; the page's
// script sees the /s/{id} path and fetches /api/share/{id} itself.
func (s *Server) handleSharePage(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		methodNotAllowed(w, http.MethodGet, http.MethodHead)
		return
	}
	if _, ok := s.lookup(w, r, r.PathValue("id"), writeNotFoundPage); !ok {
		return
	}
	page, err := s.page(r.Context())
	if err != nil {
		s.internalError(w, r, fmt.Errorf("loading the playground page: %w", err))
		return
	}
	writeBody(w, r, "text/html; charset=utf-8", "no-cache", page)
}

// lookup fetches a share, answering the request itself (with notFound or a 500)
// when it cannot.
func (s *Server) lookup(w http.ResponseWriter, r *http.Request, id string, notFound func(http.ResponseWriter, string)) ([]byte, bool) {
	if !validID(id) {
		notFound(w, id)
		return nil, false
	}
	data, err := s.store.Get(r.Context(), id)
	if errors.Is(err, ErrNotFound) {
		notFound(w, id)
		return nil, false
	}
	if err != nil {
		s.internalError(w, r, fmt.Errorf("reading share %s: %w", id, err))
		return nil, false
	}
	return data, true
}

// absoluteURL makes path absolute on the host the request came to. The Worker
// sees absolute request URLs (with the real scheme); the local server sees only a
// path and the Host header.
func absoluteURL(r *http.Request, path string) string {
	scheme, host := r.URL.Scheme, r.Host
	if host == "" {
		host = r.URL.Host
	}
	if scheme == "" {
		scheme = "http"
		if r.TLS != nil {
			scheme = "https"
		}
	}
	return scheme + "://" + host + path
}

package web

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"unicode/utf8"

	"schedplay/engine"
	"schedplay/internal/shareapi"
)

const (
	// idSalt keeps share IDs from being the bare SHA-256 of public JSON, so they
	// match no other system's content hashes. It is not a secret.
	idSalt = "schedplay share\n"

	// idLen is the usual ID length: 11 base64url characters carry 66 bits, so
	// collisions are negligible for any number of shares a playground will see and
	// IDs cannot be enumerated. On the rare collision putShare uses a longer prefix.
	idLen = 11

	// maxIDLen is the longest ID: the whole hash.
	maxIDLen = 43 // base64.RawURLEncoding.EncodedLen(sha256.Size)
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
	if len(id) < idLen || len(id) > maxIDLen {
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

// handleShare stores a scenario: method, media type, size limit, strict decode,
// store, reply.
func (s *Server) handleShare(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		methodNotAllowed(w, http.MethodPost)
		return
	}
	// The media type and a declared length are judged before the body is read. Go's
	// server sends "100 Continue" to a client that asked for it (Expect:
	// 100-continue) only when the handler first reads the body, so such a client
	// gets the refusal without sending its body.
	if msg := checkJSONType(r.Header.Get("Content-Type")); msg != "" {
		w.Header().Set("Accept", "application/json") // RFC 9110, 15.5.16
		writeError(w, http.StatusUnsupportedMediaType, "", msg)
		return
	}
	if r.ContentLength > shareapi.MaxTraceShareBytes {
		writeTooLarge(w)
		return
	}
	var body []byte
	if r.Body != nil { // nil from the Cloudflare Worker's shim when there is no body
		var err error
		body, err = io.ReadAll(http.MaxBytesReader(w, r.Body, shareapi.MaxTraceShareBytes))
		if err != nil {
			writeReadError(w, err)
			return
		}
	}
	sc, err := shareapi.DecodeScenario(body)
	if errors.Is(err, shareapi.ErrTooLarge) {
		writeTooLarge(w)
		return
	}
	if err != nil {
		var ferr *engine.FieldError
		if errors.As(err, &ferr) {
			writeError(w, http.StatusBadRequest, ferr.Path, ferr.Error())
			return
		}
		writeError(w, http.StatusBadRequest, "", err.Error())
		return
	}
	// A share is a link someone will open in a browser: refuse one that would run
	// for hours there (engine.MaxEvents), naming the fields, as the CLI does.
	if err := engine.CheckRunnable(sc); err != nil {
		var ferr *engine.FieldError
		if errors.As(err, &ferr) {
			writeError(w, http.StatusBadRequest, ferr.Path, ferr.Error())
		} else {
			writeError(w, http.StatusBadRequest, "", err.Error())
		}
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
	// The link preview is computed now, once, and stored with the share. The
	// share is made either way: without a preview its page still works, and its
	// card makes one when first asked for.
	if _, err := s.previewFor(r.Context(), id, canonical, &sc); err != nil {
		s.log.Warn("web: no link preview for a share", "id", id, "err", err)
	}
	writeJSON(w, http.StatusOK, shareReply{ID: id, URL: s.publicURL + "/s/" + id})
}

// checkJSONType returns why a share's Content-Type is refused, or "" when it is
// JSON. Parameters such as charset=utf-8 are allowed; the decoder insists on
// UTF-8 anyway.
func checkJSONType(contentType string) string {
	const want = "send the scenario as application/json"
	if contentType == "" {
		return "no Content-Type; " + want
	}
	mediaType, _, err := mime.ParseMediaType(contentType)
	switch {
	case err != nil:
		return "malformed Content-Type; " + want
	case mediaType != "application/json":
		return fmt.Sprintf("Content-Type %q is not supported; %s", clip(mediaType, 40), want)
	}
	return ""
}

// clip shortens s, taken from a request, to at most n characters (plus an
// ellipsis), so a reply never repeats an unbounded piece of the request. It cuts
// between characters: a title cut inside one would not be valid UTF-8.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

func writeTooLarge(w http.ResponseWriter) {
	writeError(w, http.StatusRequestEntityTooLarge, "",
		fmt.Sprintf("scenario is larger than the limit of %d bytes (%d, %s, for one that replays a trace)",
			engine.MaxScenarioBytes, shareapi.MaxTraceShareBytes, shareapi.Size(shareapi.MaxTraceShareBytes)))
}

// writeReadError answers a body that could not be read. The error itself is not
// echoed: a network error names the server's and the client's socket addresses
// ("read tcp 127.0.0.1:8080->10.0.0.7:51234: i/o timeout").
func writeReadError(w http.ResponseWriter, err error) {
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		writeTooLarge(w)
	case errors.Is(err, os.ErrDeadlineExceeded):
		writeError(w, http.StatusRequestTimeout, "", "the request body did not arrive in time")
	default:
		writeError(w, http.StatusBadRequest, "", "the request body could not be read")
	}
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

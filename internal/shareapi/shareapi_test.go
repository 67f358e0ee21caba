package shareapi

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestStatesPathMatchesRoute: the path the page asks for is the one the
// server's route serves, with the share's id and the engine's tag.
func TestStatesPathMatchesRoute(t *testing.T) {
	mux := http.NewServeMux()
	var id, tag string
	mux.HandleFunc(StatesRoute, func(w http.ResponseWriter, r *http.Request) {
		id, tag = r.PathValue("id"), r.URL.Query().Get("e")
	})
	fp := "0123456789abcdef0123456789abcdef"
	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, StatesPath("Ab3_x", fp), nil))
	if rec.Code != http.StatusOK || id != "Ab3_x" || tag != "0123456789abcdef" {
		t.Fatalf("GET %s: status %d, id %q, tag %q", StatesPath("Ab3_x", fp), rec.Code, id, tag)
	}
	if got := EngineTag("abc"); got != "abc" {
		t.Fatalf("EngineTag of a short fingerprint: %q", got)
	}
}

package web

import (
	"errors"
	"net/http"
)

// A share's saved engine states: when a share is made, its link preview runs
// the engine anyway (preview.ComputeStates), and the states its arms pass
// through on the way (the warm-up's end, moments spread over the run, where it
// stopped) are kept beside the preview, so a page that opens the share with t=
// inside that span resumes there instead of simulating up to it
// (playground.SavedStates). States are only good for the engine that made
// them, so each engine's are a record of their own (statesKey), named by the
// engine's calibration fingerprint (shareapi.EngineTag), and served only to a
// page of the same engine. A share made before states were kept, or by
// another engine, has none for this one: its page runs from zero, as before.

// handleShareStates serves GET /api/share/{id}/checkpoints?e=ENGINE: the
// share's saved states as an engine checkpoint pack, when ENGINE is this
// server's engine and the share has them.
func (s *Server) handleShareStates(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		methodNotAllowed(w, http.MethodGet, http.MethodHead)
		return
	}
	id := r.PathValue("id")
	if _, ok := s.lookup(w, r, id, writeNotFoundJSON); !ok {
		return
	}
	if e := r.URL.Query().Get("e"); e != s.engine {
		writeError(w, http.StatusNotFound, "e", "this server's engine is "+s.engine+": it has no saved states for another")
		return
	}
	data, err := s.store.Get(r.Context(), statesKey(id, s.engine))
	if errors.Is(err, ErrNotFound) {
		writeError(w, http.StatusNotFound, "", "this share has no saved states for this engine (it was made before they were kept, by another engine, or its preview failed)")
		return
	}
	if err != nil {
		s.internalError(w, r, err)
		return
	}
	// The URL names the engine, and a share's states for one engine never
	// change: the reply may be cached for good.
	writeBody(w, r, "application/octet-stream", "public, max-age=31536000, immutable", data)
}

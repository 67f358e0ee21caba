package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/go-json-experiment/json"
	"golang.org/x/sync/singleflight"

	"schedplay/engine"
	"schedplay/internal/shareapi"
	"schedplay/preview"
	"schedplay/view"
)

// A share's link preview is stored beside its scenario, under keys that derive
// from the share's ID: '.' is not an ID character, so no share can ever get one
// of them as its ID. They are separate records rather than fields of the
// scenario's: the scenario's bytes decide its ID and must stay exactly the
// canonical scenario (GET /api/share/{id} returns them, shares made before
// previews existed hold nothing else), and a preview computed by another version
// of the engine would otherwise make the same scenario's record differ, which
// the write-once store refuses.
//
// The preview (JSON of preview.Preview) is written last: its presence says the
// card is stored too. A share made before previews existed, or whose preview
// failed, gets one the first time its card or chart is asked for.

func previewKey(id string) string { return id + ".preview" }
func cardKey(id string) string    { return id + ".png" }

// statesKey is where share id's saved engine states (states.go) made by the
// engine named engine are stored: another engine's are another record.
func statesKey(id, engine string) string { return id + ".states-" + engine }

// WithPreviewBudget sets how much engine work a share's preview may take, in engine
// events over all its arms (see preview.Compute); the default is
// preview.DefaultEventBudget. The Cloudflare Worker gives less: its CPU is slower
// and each request's CPU time is billed.
func WithPreviewBudget(events int64) Option {
	return func(s *Server) error {
		if events <= 0 {
			return fmt.Errorf("preview budget %d: must be a positive number of engine events", events)
		}
		s.budget = events
		return nil
	}
}

// WithCompiler sets what compiles a shared scenario's own sched_ext policy
// for its preview (the Starlark binding: `schedplay serve` and the Cloudflare
// Worker link it). The preview then runs the policy within the preview budget
// (its steps count, preview.PolicyStepsPerEvent), and a policy that does not
// compile gets a card that says so. Without one, such a share is stored and
// its page runs it, but its card is refused (422) naming sched.scx.source.
func WithCompiler(compile engine.ScxCompiler) Option {
	return func(s *Server) error { s.compile = compile; return nil }
}

// previews runs the computations of share previews: one per share at a time
// (concurrent requests for the same share wait for it), and at most as many at
// once as there are CPUs, since each is CPU-bound and more at once would only
// make every one of them, and every other request, slower.
//
// Each Server has its own. The Cloudflare Worker builds a Server for every request
// and must not share one between them: a request whose Go code waits for another
// request's work is waiting on that request's promises, and workerd cancels it as
// hung.
type previews struct {
	flight singleflight.Group
	slots  chan struct{}
}

// noPreviewError is a scenario the engine cannot run for a preview (an arm whose
// knobs make it invalid): the request is answered 422, not 500.
type noPreviewError struct{ err error }

func (e *noPreviewError) Error() string { return e.err.Error() }
func (e *noPreviewError) Unwrap() error { return e.err }

// storedPreview returns share id's stored preview; ok is false when it has none.
func (s *Server) storedPreview(ctx context.Context, id string) (p preview.Preview, ok bool, err error) {
	data, err := s.store.Get(ctx, previewKey(id))
	if errors.Is(err, ErrNotFound) {
		return p, false, nil
	}
	if err != nil {
		return p, false, err
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return p, false, fmt.Errorf("preview of %s: %w", id, err)
	}
	return p, true, nil
}

// previewFor returns share id's preview, computing and storing it (with its
// card) when the share has none yet. canonical is the share's scenario, and
// decoded the same decoded when the caller has it (nil: decode canonical; a
// trace's share is megabytes of JSON, read once only). Concurrent requests
// for the same share wait for one computation.
func (s *Server) previewFor(ctx context.Context, id string, canonical []byte, decoded *engine.Scenario) (preview.Preview, error) {
	if p, ok, err := s.storedPreview(ctx, id); ok || err != nil {
		return p, err
	}
	v, err, _ := s.previews.flight.Do(id, func() (any, error) { return s.makePreview(ctx, id, canonical, decoded) })
	p, _ := v.(preview.Preview)
	return p, err
}

// makePreview computes share id's preview and card and stores them, the card
// first.
func (s *Server) makePreview(ctx context.Context, id string, canonical []byte, decoded *engine.Scenario) (preview.Preview, error) {
	// Wait for a CPU slot only as long as the request lasts: a client that has
	// gone needs no preview now (its card makes one when first asked for).
	select {
	case s.previews.slots <- struct{}{}:
	case <-ctx.Done():
		return preview.Preview{}, &noPreviewError{ctx.Err()}
	}
	defer func() { <-s.previews.slots }()
	var sc engine.Scenario
	if decoded != nil {
		sc = *decoded
	} else {
		var err error
		if sc, err = shareapi.DecodeScenario(canonical); err != nil {
			return preview.Preview{}, &noPreviewError{fmt.Errorf("stored scenario %s: %w", id, err)}
		}
	}
	p, states, err := preview.ComputeStatesWith(sc, s.budget, s.compile)
	if err != nil {
		return p, &noPreviewError{err}
	}
	card, err := p.PNG()
	if err != nil {
		return p, err
	}
	data, err := json.Marshal(p, json.Deterministic(true))
	if err != nil {
		return p, fmt.Errorf("preview of %s: %w", id, err)
	}
	// Write-once: a conflict means another request (or an older engine) stored
	// this share's preview first; what was stored first stays, and both are
	// previews of the same scenario. The saved states are this engine's own
	// record (statesKey), so they conflict only with identical ones. The
	// preview goes last: its presence says the rest is stored.
	for _, rec := range []struct {
		key  string
		data []byte
	}{{cardKey(id), card}, {statesKey(id, s.engine), states}, {previewKey(id), data}} {
		if rec.data == nil {
			continue // no states: a policy that does not compile ran nothing
		}
		if err := s.store.Put(ctx, rec.key, rec.data); err != nil && !errors.Is(err, ErrConflict) {
			return p, fmt.Errorf("storing %s: %w", rec.key, err)
		}
	}
	return p, nil
}

// handleShareFile serves /s/{name}: the page for an ID, the card for ID.png,
// the chart for ID.svg. (A pattern wildcard is a whole path segment, so the
// three cannot be separate routes.)
func (s *Server) handleShareFile(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		methodNotAllowed(w, http.MethodGet, http.MethodHead)
		return
	}
	name := r.PathValue("name")
	switch {
	case strings.HasSuffix(name, ".png"):
		s.handleCard(w, r, strings.TrimSuffix(name, ".png"))
	case strings.HasSuffix(name, ".svg"):
		s.handleChart(w, r, strings.TrimSuffix(name, ".svg"))
	default:
		s.handleSharePage(w, r, name)
	}
}

// previewOrError looks up share id and its preview, answering the request
// itself when it cannot.
func (s *Server) previewOrError(w http.ResponseWriter, r *http.Request, id string) (preview.Preview, bool) {
	canonical, ok := s.lookup(w, r, id, writeNotFoundJSON)
	if !ok {
		return preview.Preview{}, false
	}
	p, err := s.previewFor(r.Context(), id, canonical, nil)
	var np *noPreviewError
	switch {
	case errors.As(err, &np):
		writeError(w, http.StatusUnprocessableEntity, "", "this scenario cannot be previewed: "+clip(np.Error(), 300))
		return p, false
	case err != nil:
		s.internalError(w, r, err)
		return p, false
	}
	return p, true
}

// handleCard serves the 1200x630 PNG card of the link preview. It is stored with
// the share, so serving it is a read.
func (s *Server) handleCard(w http.ResponseWriter, r *http.Request, id string) {
	p, ok := s.previewOrError(w, r, id)
	if !ok {
		return
	}
	card, err := s.store.Get(r.Context(), cardKey(id))
	if errors.Is(err, ErrNotFound) {
		// A preview stored without its card (written by hand, or restored from a
		// backup of previews only): draw it again rather than fail.
		if card, err = p.PNG(); err == nil {
			if err := s.store.Put(r.Context(), cardKey(id), card); err != nil && !errors.Is(err, ErrConflict) {
				s.log.Error("web: storing a card", "id", id, "err", err)
			}
		}
	}
	if err != nil {
		s.internalError(w, r, fmt.Errorf("the card of %s: %w", id, err))
		return
	}
	// Write-once, like the share: the card never changes.
	writeBody(w, r, "image/png", "public, max-age=31536000, immutable", card)
}

// handleChart serves the SVG throughput chart, in the theme ?theme= names.
func (s *Server) handleChart(w http.ResponseWriter, r *http.Request, id string) {
	th, ok := view.PaletteByName(r.URL.Query().Get("theme"))
	if !ok {
		writeError(w, http.StatusBadRequest, "", "theme must be light or dark")
		return
	}
	p, ok := s.previewOrError(w, r, id)
	if !ok {
		return
	}
	writeBody(w, r, "image/svg+xml; charset=utf-8", "public, max-age=31536000, immutable", p.SVG(th))
}

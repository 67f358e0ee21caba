// Package shareapi holds what the page and the share servers (web, and the
// Cloudflare Worker through it) must agree on about a share's saved engine
// states: how an engine is named and where a share's states are served. It is
// its own package because the page may not import the server, nor the server
// the page (internal/layers).
//
// GET /api/share/{id}/checkpoints?e=TAG serves share id's saved states. A
// state is only good for the engine that made it, so the page asks with its
// own engine's tag and the server answers only when it is its own: a page and
// a server of different builds never pair a state with an engine that would
// run it otherwise, and the answer can be cached for good.
package shareapi

// StatesRoute is the route pattern of a share's saved states (net/http's
// ServeMux syntax).
const StatesRoute = "/api/share/{id}/checkpoints"

// EngineTag names an engine by its calibration fingerprint (docs.Table's),
// which CI keeps the digest of what the engine does (`schedplay calibrate
// --check`).
func EngineTag(fingerprint string) string { return fingerprint[:min(16, len(fingerprint))] }

// StatesPath is the path of share id's saved states for the engine with the
// given calibration fingerprint.
func StatesPath(id, fingerprint string) string {
	return "/api/share/" + id + "/checkpoints?e=" + EngineTag(fingerprint)
}

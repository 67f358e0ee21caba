package urlstate

// Where a share's saved engine states are served (web) and fetched (the page):
// GET /api/share/{id}/checkpoints?e=TAG, TAG naming the engine. A state is only
// good for the engine that made it, so the page asks with its own engine's tag
// and the server answers only when it is its own: a page and a server of
// different builds never pair a state with an engine that would run it
// otherwise, and the answer can be cached for good.

// StatesTag names an engine by its calibration fingerprint (docs.Table's),
// which CI keeps the digest of what the engine does (`schedplay calibrate
// --check`).
func StatesTag(fingerprint string) string { return fingerprint[:min(16, len(fingerprint))] }

// SharedStatesPath is the path of share id's saved states for the engine with
// the given calibration fingerprint.
func SharedStatesPath(id, fingerprint string) string {
	return "/api/share/" + id + "/checkpoints?e=" + StatesTag(fingerprint)
}

// Package web serves schedplay's share links and the playground's static files.
//
// One net/http handler (Server) has two homes: `schedplay serve` runs it with the
// bbolt store and the static/ directory, and the Cloudflare Worker (web/cloudflare)
// runs it with the KV store while Workers assets serve static/ without waking Go.
//
// Routes (all registered in Server.routes):
//
//	POST /api/share       scenario JSON (<= engine.MaxScenarioBytes, or
//	                      shareapi.MaxTraceShareBytes for one that replays a
//	                      trace: it carries the trace's model) -> {"id", "url"}
//	GET  /api/share/{id}  the stored canonical scenario JSON
//	GET  /s/{id}          the playground page, which then fetches /api/share/{id},
//	                      with link-preview tags (OpenGraph, Twitter card, oEmbed
//	                      discovery) added to its head
//	GET  /s/{id}.png      the link preview's 1200x630 card
//	GET  /s/{id}.svg      throughput over simulated time (?theme=light|dark)
//	GET  /oembed          oEmbed: url=LINK&maxwidth=&maxheight=&format=json
//	GET  /...             static files (only when the server has a static FS)
//
// /s/{id} serves index.html with only the tags added (meta.go), so the page must
// name its assets by absolute paths (/app.js, /schedplay.wasm): relative ones
// would resolve under /s/.
//
// A share's link preview (package preview: headline results, series, one
// moment of the vCPU tiles) is computed when the share is made, within an
// event budget (WithPreviewBudget), and stored with it, as is its card
// (preview.go). A share stored before previews existed gets one when its card
// or chart is first asked for. Link unfurlers and oEmbed consumers need absolute
// links (og:image, the iframe's src): a server without a public URL gives paths
// from the root, which only its own pages resolve.
//
// A share is decoded by the engine's strict decoder and stored in canonical form
// under a content-addressed ID (see putShare), so one scenario always gets one link
// and nothing is ever overwritten. The link it returns is relative ("/s/ID") unless
// the server was given its public URL (WithPublicURL); the Host header, which
// anyone can forge, is never used. Errors are JSON {"error": msg, "field": path}
// with one status per kind of failure: 400 bad scenario or unreadable body, 404
// unknown ID, 405 wrong method, 408 body too slow, 413 body too large (refused
// before the body is read when Content-Length says so, so no "100 Continue" is
// sent), 415 not application/json, 422 a stored scenario the engine cannot run
// for a preview, 500 storage trouble (logged in full, answered plainly), 501 an
// oEmbed format other than json. Replies never repeat unbounded parts of the request (a malformed ID,
// a long path) or the text of a network error (it names socket addresses).
//
// The static bundle is served from a directory through os.Root (WithStaticDir),
// so a symbolic link inside it is never followed out of it.
//
// The security headers every response carries are decided in headers.go, the one
// place to change them; the Cloudflare Worker's assets get the same headers through
// the _headers file HeadersFile renders.
package web

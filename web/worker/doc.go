// Command worker is schedplay's Cloudflare Worker: the web package's handler with
// the share store in Workers KV. Workers assets serve the playground bundle
// without starting Go; only /api/* and /s/* reach this program (wrangler.toml's
// run_worker_first, and entry.mjs for paths that name no asset).
//
// The shim (github.com/syumai/workers) starts a fresh Go instance and runs main for
// every request, so main and every package init on the way must stay cheap: no
// work beyond wiring, nothing computed ahead of need. BenchmarkWorker measures the
// cost per request.
//
// The program exists only as js/wasm (main.go); on other platforms main only says
// how to build it. Build and run it with `task worker:dev`, deploy it with
// `task worker:deploy` (see Taskfile.yml); worker_test.go runs the share API
// contract against it under wrangler dev.
package main

// Command cloudflare is schedplay's Cloudflare Worker: the web package's handler
// with the share store in Workers KV. Workers static assets serve the playground
// bundle without starting Go; only /api/*, /s/* and /oembed reach this program
// (wrangler.toml's run_worker_first, and entry.mjs for paths that name no asset).
// In this repository "worker" alone means the playground's engine Web Worker
// (wasm/worker); this deployment is always "the Cloudflare Worker".
//
// entry.mjs keeps one running Go instance per isolate and hands it each request's
// env and ctx; syumai/workers' generated worker.mjs, which starts a new instance
// for every request, is not used. main therefore never returns, and the handler
// reads its bindings (KV, assets, PUBLIC_URL) at the start of each request, not
// once in main. Go's start-up still costs the first Go request of every isolate
// tens of milliseconds of CPU, so main and every package init on the way stay
// cheap: no work beyond wiring, nothing computed ahead of need.
// BenchmarkCloudflare measures cold and warm CPU per request.
//
// It links the policy interpreter (scxstar, go.starlark.net), as `schedplay
// serve` does: it hosts previews, and a share's own sched_ext policy is run
// for its card. That adds 1.8 MB to the wasm (0.36 MB gzip; TestCloudflare
// holds the gzip size to the Workers Paid plan's 10 MiB).
//
// The program exists only as js/wasm (main.go); on other platforms main only says
// how to build it. Build and run it with `task cloudflare:dev`, deploy it with
// `task cloudflare:deploy` (see Taskfile.yml); cloudflare_test.go runs the share
// API contract against it under wrangler dev.
//
// Under load, wrangler dev's own proxy in front of the Worker lost requests
// (it parked a GET for ever after a lost connection and failed a POST). npm ci
// patches it (patches/proxyworker-retry.mjs says how and why), the tests refuse
// to run an unpatched wrangler, and stress_test.go holds the patch to every
// request answered under CPU contention.
package main

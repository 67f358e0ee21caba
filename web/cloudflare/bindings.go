package main

import (
	"fmt"
	"strconv"
)

// Binding and variable names, as declared in wrangler.toml. They build on every
// platform so the integration test can set them.
const (
	kvBinding     = "SHARES"
	assetsBinding = "ASSETS"
	publicURLVar  = "PUBLIC_URL" // optional: the base of share links (web.WithPublicURL)
	// previewBudgetVar optionally overrides cloudflarePreviewBudget (tests make it
	// small, so their many shares stay quick).
	previewBudgetVar = "PREVIEW_EVENT_BUDGET"
)

// cloudflarePreviewBudget is the engine events a share's preview may take in the
// Cloudflare Worker: a quarter of `schedplay serve`'s (preview.DefaultEventBudget).
// The engine runs about three times slower as wasm in V8 than natively, a Go
// instance serves its isolate's requests one computation at a time, and CPU time is
// billed, so a share whose preview spends the whole budget costs about 1.7-1.9 s of
// CPU (BenchmarkCloudflare's heavy-share-cpu-ms; a small scenario's, share-cpu-ms,
// about 0.3 s) and a long scenario's preview covers a shorter prefix. A share's
// own Starlark policy spends the same budget by its steps (three to an event,
// preview.PolicyStepsPerEvent): saturated-sync under scx_simple.star costs about
// 2.5 s where the 32-vCPU example costs 2.1 s in the same run
// (policy-share-cpu-ms, heavy-share-cpu-ms); without counting them its 2M events
// would run some 130M steps, tens of seconds of CPU.
const cloudflarePreviewBudget = 2_000_000

// previewBudget reads PREVIEW_EVENT_BUDGET ("" for the default).
func previewBudget(v string) (int64, error) {
	if v == "" {
		return cloudflarePreviewBudget, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%s=%q: want a positive number of engine events", previewBudgetVar, v)
	}
	return n, nil
}

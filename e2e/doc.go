// Package e2e drives the playground in headless Chromium: it builds the wasm
// (internal/wasmbuild), serves static/ from a throwaway HTTP server and checks what
// a visitor sees through the page's window.schedplay API, the URL and screenshots.
// TestBundleBudget holds the built bundle to its download budget
// (wasmbuild.BudgetBytes).
//
// The tests need Chromium (apt-get install chromium). Without it they skip, unless
// CI=true, where a missing browser is a failure. In -short mode they all skip (go
// test -short ./... is the quick local run; CI runs them). SCHEDPLAY_CHROME
// overrides the browser path; SCHEDPLAY_SCREENSHOTS names a directory to keep the
// screenshots in (they go to a temporary directory otherwise). SCHEDPLAY_E2E_URL
// points the tests at a running server instead of their own (e.g. `schedplay
// serve`, to check its headers and share API with the page).
//
// The tests of typing into the editors (typing_test.go) always build and start
// `schedplay serve` themselves: the page must work under its
// Content-Security-Policy, which the stand-in server does not send. They press
// keys as a keyboard does, and keep screenshots of the typed editors
// (typed-policy-editor.png, typed-workload-editor.png) as the others do.
package e2e

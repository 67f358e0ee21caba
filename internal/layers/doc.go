// Package layers holds the test that keeps schedplay's layers apart. The module
// is built in layers named for their role, each importing only the ones below:
//
//	engine/            the simulator: the standard library and the JSON library only
//	trace/, view/      neutral presentation: Chrome trace export; palette, number
//	                   formats, tile and chart geometry, the headline metric table
//	docs/              the calibration's verdict table, embedded, and how a surface
//	                   quotes a verdict (in view's formats)
//	preview/           a share's link preview, drawn with view
//	playground/...     the interactive model: view model, runner, URL state, lessons
//	wasm/..., web/cloudflare, web's KV store
//	                   thin shells for js/wasm: the Ebiten game, the JS bridge, the
//	                   engine worker's main, the Cloudflare Worker
//
// The rule that makes the page and the link preview share one view is that no
// neutral package (everything but the shells) imports syscall/js or Ebiten, by
// itself or through another schedplay package: so all of them build and are
// tested natively.
//
// It also keeps the repository's rule on a Go file's length (filesize_test.go):
// at most 500 lines, tests included.
package layers

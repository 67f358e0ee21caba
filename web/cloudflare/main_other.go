//go:build !(js && wasm)

package main

import (
	"fmt"
	"os"
)

// main explains how to build the Cloudflare Worker: it exists only as js/wasm,
// but a host build of this package must still succeed so that `go build ./...`,
// `go vet ./...` and this directory's integration test work.
func main() {
	fmt.Fprintln(os.Stderr, "cloudflare: build with GOOS=js GOARCH=wasm (task cloudflare:dev does)")
	os.Exit(2)
}

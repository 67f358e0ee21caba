// Command wasmbuild builds the playground's deployable static/ bundle
// (static/schedplay.wasm, its .gz sibling and wasm_exec.js) when it is missing or
// stale; `task build` runs it from the repository root.
//
//	go run ./internal/wasmbuild/cmd/wasmbuild [-root dir]
package main

import (
	"flag"
	"fmt"
	"os"

	"schedplay/internal/wasmbuild"
)

func main() {
	root := flag.String("root", ".", "repository root (holding go.mod, wasm/ and static/)")
	flag.Parse()
	if err := wasmbuild.EnsureBuilt(*root, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "wasmbuild:", err)
		os.Exit(2)
	}
	fmt.Println("wasmbuild: static/ is up to date")
}

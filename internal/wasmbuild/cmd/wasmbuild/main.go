// Command wasmbuild builds the playground's deployable static/ bundle
// (static/schedplay.wasm, static/schedplay-worker.wasm, their .gz siblings and
// wasm_exec.js) when it is missing or stale, and reports what a first visit
// downloads against the bundle budget; `task build` runs it from the repository
// root.
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
	parts, err := wasmbuild.Bundle(*root)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Println("wasmbuild: static/ is up to date:", wasmbuild.Describe(parts))
	if wasmbuild.Total(parts) > wasmbuild.BudgetBytes {
		fmt.Fprintln(os.Stderr, "wasmbuild: warning: the bundle is over its budget (e2e's TestBundleBudget fails)")
	}
}

// Command mkassets assembles the Cloudflare Worker's static assets directory (see
// package schedplay/web/cloudflare/internal/assets):
//
//	go run ./mkassets -static ../../static -o build/assets
package main

import (
	"flag"
	"fmt"
	"os"

	"schedplay/web/cloudflare/internal/assets"
)

func main() {
	static := flag.String("static", "../../static", "the playground bundle to copy")
	out := flag.String("o", "build/assets", "assets directory to (re)create")
	flag.Parse()
	if err := assets.Assemble(*static, *out, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "mkassets:", err)
		os.Exit(1)
	}
}

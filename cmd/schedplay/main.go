// Command schedplay runs scheduler scenarios headless and serves the playground.
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "serve" {
		if err := cmdServe(os.Args[2:], os.Stdout, os.Stderr); err != nil {
			fmt.Fprintln(os.Stderr, "schedplay:", err)
			os.Exit(2)
		}
		return
	}
	fmt.Fprintln(os.Stderr, "usage: schedplay run|sweep|serve ...")
	os.Exit(2)
}

package main

import (
	"errors"
	"io"
)

// cmdServe runs the playground's HTTP server (owned by the web/ work).
func cmdServe(args []string, stdout, stderr io.Writer) error {
	return errors.New("serve: not built yet")
}

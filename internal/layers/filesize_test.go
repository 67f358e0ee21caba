package layers

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxGoFileLines is the repository's rule for a Go file's length: past it a
// file has more than one part, and each part reads better in a file of its
// own, named for it.
const maxGoFileLines = 500

// TestGoFilesStayShort: no Go file of the module, tests included, passes
// maxGoFileLines (installed packages under node_modules and testdata are not
// the module's code).
func TestGoFilesStayShort(t *testing.T) {
	root := "../.."
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "node_modules", "testdata", ".git":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if n := bytes.Count(data, []byte("\n")); n > maxGoFileLines {
			rel, _ := filepath.Rel(root, path)
			t.Errorf("%s has %d lines, over the %d-line rule: split it along its parts", rel, n, maxGoFileLines)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The README's layout tables stay true: every package of the module with
// non-test Go files is listed (as `dir/` or `internal/x`).
func TestReadmeLayoutListsEveryPackage(t *testing.T) {
	root := filepath.Join("..", "..")
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Skip(err)
	}
	layout := string(readme)
	if i := strings.Index(layout, "## Layout"); i >= 0 {
		layout = layout[i:]
	}
	dirs := map[string]bool{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && p != root || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			rel, _ := filepath.Rel(root, filepath.Dir(p))
			dirs[filepath.ToSlash(rel)] = true
		}
		return nil
	})
	for dir := range dirs {
		if strings.HasPrefix(dir, "internal/tools") || dir == "internal/testutil" {
			continue // development helpers
		}
		if !strings.Contains(layout, "`"+dir+"/`") && !strings.Contains(layout, "`"+dir+"`") {
			t.Errorf("README layout does not list package %s", dir)
		}
	}
	if len(dirs) < 10 {
		t.Fatalf("found only %d packages under %s", len(dirs), root)
	}
}

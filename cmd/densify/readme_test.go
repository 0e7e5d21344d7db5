package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
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

// Every Markdown table of the README and docs/ renders as one: a block of
// lines starting with "|" after a blank line has a header, the delimiter
// row (|---|…) under it, and as many cells in every row as in the header
// (a table without its header is shown as plain text).
func TestDocsTablesHaveHeaders(t *testing.T) {
	root := filepath.Join("..", "..")
	files, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	files = append(files, filepath.Join(root, "README.md"))
	delim := regexp.MustCompile(`^\|(\s*:?-+:?\s*\|)+$`)
	tables := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Skip(err)
		}
		lines := strings.Split(string(b), "\n")
		fence := false
		for i := 0; i < len(lines); i++ {
			if strings.HasPrefix(strings.TrimSpace(lines[i]), "```") {
				fence = !fence
			}
			if fence || !strings.HasPrefix(lines[i], "|") || i > 0 && strings.TrimSpace(lines[i-1]) != "" {
				continue
			}
			tables++
			where := fmt.Sprintf("%s:%d", filepath.Base(f), i+1)
			if i+1 >= len(lines) || !delim.MatchString(strings.TrimSpace(lines[i+1])) {
				t.Errorf("%s: a table without a header: the line under %q is not a delimiter row", where, lines[i])
				for i+1 < len(lines) && strings.HasPrefix(lines[i+1], "|") {
					i++
				}
				continue
			}
			n := tableCells(lines[i])
			for i+1 < len(lines) && strings.HasPrefix(lines[i+1], "|") {
				i++
				if c := tableCells(lines[i]); c != n {
					t.Errorf("%s:%d: %d cells, the header has %d", filepath.Base(f), i+1, c, n)
				}
			}
		}
	}
	if tables < 50 {
		t.Fatalf("found only %d tables", tables)
	}
}

// tableCells is the number of cells of a Markdown table row: its pipes not
// escaped by a backslash, less one.
func tableCells(row string) int {
	row = strings.TrimSpace(row)
	n := 0
	for i := 0; i < len(row); i++ {
		switch {
		case row[i] == '\\':
			i++
		case row[i] == '|':
			n++
		}
	}
	if !strings.HasSuffix(row, "|") {
		n++
	}
	return n - 1
}

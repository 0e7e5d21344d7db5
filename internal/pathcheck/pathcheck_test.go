package pathcheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDistinct(t *testing.T) {
	dir := t.TempDir()
	g := filepath.Join(dir, "graph.txt")
	os.WriteFile(g, []byte("0 0\n"), 0o644)
	os.Symlink(g, filepath.Join(dir, "link.txt"))
	os.Link(g, filepath.Join(dir, "hard.txt"))
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	os.Symlink(dir, filepath.Join(dir, "dirlink"))
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	os.Chdir(dir)
	in := []Path{{Flag: "--graph", Path: g}}
	for _, c := range []struct {
		out  Path
		want string // "" = allowed
	}{
		{Path{Flag: "--out", Path: g}, "--out " + g + " is the input --graph " + g},
		{Path{Flag: "--out", Path: "graph.txt"}, "is the input --graph"},         // relative
		{Path{Flag: "--out", Path: "sub/../graph.txt"}, "is the input --graph"},  // unclean
		{Path{Flag: "--out", Path: "link.txt"}, "is the input --graph"},          // symbolic link
		{Path{Flag: "--out", Path: "hard.txt"}, "is the input --graph"},          // hard link
		{Path{Flag: "--out", Path: "dirlink/graph.txt"}, "is the input --graph"}, // linked folder
		{Path{Flag: "--out", Path: "labels.txt"}, ""},                            // new file
		{Path{Flag: "--out", Path: "dirlink/new/x.txt"}, ""},                     // new folders
		{Path{Flag: "--out", Path: dir, Tree: true}, "would replace the folder holding the input"},
		{Path{Flag: "--out", Path: dir}, ""},
		{Path{Flag: "--out", Path: ""}, ""},
	} {
		err := Distinct([]Path{c.out}, in)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%+v: %v, want %q", c.out, err, c.want)
		}
	}
}

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

func TestName(t *testing.T) {
	for _, ok := range []string{"cars1", "synth 01", "ä-ö_1.2", strings.Repeat("x", 255)} {
		if err := Name("--name", ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for s, want := range map[string]string{
		"":                       "is not a name",
		".":                      "is not a name",
		"..":                     "is not a name",
		"../../evil":             "is a path",
		"a/b":                    "is a path",
		`a\b`:                    "is a path",
		"seq\nname":              "control character U+000A",
		"seq\rname":              "control character U+000D",
		strings.Repeat("x", 256): "longer than the 255",
	} {
		if err := Name("--name", s); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", s, err, want)
		}
	}
}

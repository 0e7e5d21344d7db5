package motiongraph

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/densify/densify/trajectory"
)

// SegmentFiles writes its outputs all together or not at all, and a name
// is a file name.
func TestSegmentFilesAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	tracks := filepath.Join(dir, "seqTracks8.dat")
	if err := trajectory.WriteTracks(tracks, randomTracks(1, 60, 8, 100, 80)); err != nil {
		t.Fatal(err)
	}
	opt := FilesOptions{Tracks: tracks, Segment: DefaultSegmentOptions()}

	// segment.json cannot be written (a folder stands there): the files
	// written before it are removed.
	opt.Out = filepath.Join(dir, "out")
	os.MkdirAll(filepath.Join(opt.Out, "segment.json", "x"), 0o755)
	if _, err := SegmentFiles(opt); err == nil {
		t.Fatal("no error")
	}
	ents, _ := os.ReadDir(opt.Out)
	var left []string
	for _, e := range ents {
		left = append(left, e.Name())
	}
	if !slices.Equal(left, []string{"segment.json"}) {
		t.Errorf("left behind: %v", left)
	}

	for _, name := range []string{"../../evil", "a/b", "..", "x\ny"} {
		opt.Out, opt.Name = filepath.Join(dir, "named"), name
		if _, err := SegmentFiles(opt); err == nil || !strings.Contains(err.Error(), "--name") {
			t.Errorf("--name %q: %v", name, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "named")); !os.IsNotExist(err) {
		t.Errorf("output for a refused name: %v", err)
	}
	opt.Name = "seq two"
	if _, err := SegmentFiles(opt); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "named", "seq twoTracks8.dat")); err != nil {
		t.Error(err)
	}
}

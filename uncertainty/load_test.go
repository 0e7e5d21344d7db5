package uncertainty

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A labelling whose cluster is not connected through E is refused, naming
// the labels file; lifted edges do not connect.
func TestLoadInstanceRefusesDisconnectedCluster(t *testing.T) {
	dir := t.TempDir()
	g := filepath.Join(dir, "g.txt")
	os.WriteFile(g, []byte("3 2\n0 1 1 0\n1 2 1 1\n"), 0o644)
	ok := filepath.Join(dir, "ok.txt")
	os.WriteFile(ok, []byte("0\n0\n1\n"), 0o644)
	if _, _, err := LoadInstance(g, ok); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("0\n1\n0\n"), 0o644)
	if _, _, err := LoadInstance(g, bad); err == nil || !strings.Contains(err.Error(), bad+": not a multicut of "+g+": multicut: cluster 0 is not connected through E (nodes 0 and 2)") {
		t.Errorf("disconnected cluster: %v", err)
	}
}

// The label column of an uncertainty CSV must group the nodes as the given
// labelling does (numbers may differ).
func TestReadCSVForChecksTheLabelling(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "u.csv")
	os.WriteFile(p, []byte("node,label,gamma,uncertainty,likelihood_uncertainty,target\n0,5,1,0.2,0.1,7\n1,5,1,0.3,0.1,7\n2,7,1,0.4,0.1,5\n"), 0o644)
	u, err := ReadCSVFor(p, []int{0, 0, 1})
	if err != nil || u[2] != 0.4 {
		t.Fatalf("%v %v", u, err)
	}
	for _, labels := range [][]int{{0, 1, 1}, {0, 0, 0}, {0, 1, 2}} {
		if _, err := ReadCSVFor(p, labels); err == nil || !strings.HasPrefix(err.Error(), p+":") || !strings.Contains(err.Error(), "the uncertainty of another segmentation") {
			t.Errorf("labels %v: %v", labels, err)
		}
	}
	if _, err := ReadCSV(p, 3); err != nil {
		t.Error(err)
	}
}

// ComputeFiles writes its outputs all together or not at all: a frame
// that cannot be read fails before the CSV or any heat map is written; a
// heat-map folder holding other files is refused; a second run replaces
// the heat maps as a whole.
func TestComputeFilesAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	frames := filepath.Join(dir, "frames")
	os.MkdirAll(frames, 0o755)
	for i := range 3 {
		var buf bytes.Buffer
		png.Encode(&buf, image.NewGray(image.Rect(0, 0, 20, 10)))
		os.WriteFile(filepath.Join(frames, fmt.Sprintf("%05d.png", i)), buf.Bytes(), 0o644)
	}
	g, l, tr := filepath.Join(dir, "g.txt"), filepath.Join(dir, "l.txt"), filepath.Join(dir, "t.dat")
	os.WriteFile(g, []byte("1 0\n"), 0o644)
	os.WriteFile(l, []byte("0\n"), 0o644)
	os.WriteFile(tr, []byte("3\n1\n0 3\n1 1 0\n2 1 1\n3 1 2\n"), 0o644)
	opt := FilesOptions{Graph: g, Labels: l, Beta: 0.5, CSV: filepath.Join(dir, "out", "u.csv"), Tracks: tr, FramesDir: frames,
		Heatmaps: filepath.Join(dir, "out", "heat"), HeatmapFrames: func(n int) []int { return HeatmapFrames(n, nil, 1, true) }}
	// a damaged last frame
	os.WriteFile(filepath.Join(frames, "00002.png"), []byte("\x89PNG\r\n\x1a\ntruncated"), 0o644)
	if _, err := ComputeFiles(opt); err == nil || !strings.Contains(err.Error(), "00002.png") {
		t.Fatalf("damaged frame: %v", err)
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, "out")); len(ents) > 0 {
		t.Errorf("left behind: %v", ents)
	}
	var buf bytes.Buffer
	png.Encode(&buf, image.NewGray(image.Rect(0, 0, 20, 10)))
	os.WriteFile(filepath.Join(frames, "00002.png"), buf.Bytes(), 0o644)
	os.MkdirAll(opt.Heatmaps, 0o755)
	os.WriteFile(filepath.Join(opt.Heatmaps, "heat_00007.png"), buf.Bytes(), 0o644)
	res, err := ComputeFiles(opt)
	if err != nil || len(res.Heatmaps) != 3 {
		t.Fatalf("%v %v", res, err)
	}
	if ents, _ := os.ReadDir(opt.Heatmaps); len(ents) != 3 {
		t.Errorf("heat maps: %v, want the three of this run", ents)
	}
	os.WriteFile(filepath.Join(opt.Heatmaps, "notes.txt"), nil, 0o644)
	if _, err := ComputeFiles(opt); err == nil || !strings.Contains(err.Error(), "notes.txt, which densify did not write there") {
		t.Errorf("foreign file: %v", err)
	}
}

// A sparsify list names each sequence once.
func TestReadSequenceListRefusesDuplicates(t *testing.T) {
	p := filepath.Join(t.TempDir(), "list.txt")
	os.WriteFile(p, []byte("a g l t gt\nb g l t gt\na g2 l2 t2 gt2\n"), 0o644)
	if _, err := ReadSequenceList(p); err == nil || !strings.Contains(err.Error(), p+`:3: sequence "a" is listed twice (also on line 1)`) {
		t.Errorf("%v", err)
	}
	os.WriteFile(p, []byte("a\vb\tg\tl\tt\tgt\n"), 0o644)
	if _, err := ReadSequenceList(p); err == nil || !strings.Contains(err.Error(), "control character U+000B") {
		t.Errorf("%v", err)
	}
}

// nbest replaces its folder as a whole: the labellings of an earlier,
// longer list go; a folder holding other files is refused.
func TestNBestFilesReplacesItsFolder(t *testing.T) {
	dir := t.TempDir()
	g, l := filepath.Join(dir, "g.txt"), filepath.Join(dir, "l.txt")
	os.WriteFile(g, []byte("4 3\n0 1 1 0\n1 2 -1 0\n2 3 1 0\n"), 0o644)
	os.WriteFile(l, []byte("0\n0\n1\n1\n"), 0o644)
	out := filepath.Join(dir, "out")
	opt := NBestFilesOptions{Graph: g, Labels: l, Out: out, NBest: NBestOptions{N: 3}}
	rep, err := NBestFiles(opt)
	if err != nil || len(rep.Alternatives) < 2 {
		t.Fatalf("%v %v", rep, err)
	}
	opt.NBest.N = 1
	if _, err := NBestFiles(opt); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(out)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "labels_01.txt nbest.json" {
		t.Errorf("files %v", names)
	}
	os.WriteFile(filepath.Join(out, "mine.txt"), nil, 0o644)
	if _, err := NBestFiles(opt); err == nil || !strings.Contains(err.Error(), "mine.txt, which densify did not write there") {
		t.Errorf("foreign file: %v", err)
	}
}

// sparsify replaces its folder as a whole, and refuses before any work a
// folder holding anything but an earlier sparsify's files.
func TestSparsifyAllOwnFolder(t *testing.T) {
	for rel, own := range map[string]bool{"curves.csv": true, "summary.json": true, "calibration.csv": true, "vi.png": true, "seq 1/ri.png": true,
		"seq 1/curves.csv": false, "notes.txt": false, "a/b/vi.png": false} {
		if got := ownSparsify(rel, false); got != own {
			t.Errorf("%s: %v, want %v", rel, got, own)
		}
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "vi.png"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), nil, 0o644)
	if _, err := SparsifyAll(nil, dir, SparsifyOptions{}, nil); err == nil || !strings.Contains(err.Error(), "notes.txt, which densify did not write there") {
		t.Errorf("foreign file: %v", err)
	}
}

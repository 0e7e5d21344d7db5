package main

import (
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/densify/densify/matfile"
)

// writeTinyBSDS writes a 40×30 two-region PNG and its BSDS-style .mat
// ground truth (two annotators: the halves, and the halves with the right
// one split in rows) into dir/images and dir/gt as id.
func writeTinyBSDS(t *testing.T, dir, id string, gtW int) {
	t.Helper()
	w, h := 40, 30
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := uint8(50 + (x*7+y*3)%9)
			if x >= w/2 {
				v = uint8(200 + (x*5+y)%9)
			}
			img.Set(x, y, color.RGBA{v, v, 255 - v, 255})
		}
	}
	os.MkdirAll(filepath.Join(dir, "images"), 0o755)
	os.MkdirAll(filepath.Join(dir, "gt"), 0o755)
	f, err := os.Create(filepath.Join(dir, "images", id+".png"))
	if err != nil {
		t.Fatal(err)
	}
	png.Encode(f, img)
	f.Close()
	ann := func(split bool) *matfile.Array {
		seg := make([]float64, gtW*h)
		bnd := make([]float64, gtW*h)
		for x := 0; x < gtW; x++ {
			for y := 0; y < h; y++ {
				l := 1.0
				if x >= w/2 {
					l = 2
					if split && y >= h/2 {
						l = 3
					}
				}
				seg[x*h+y] = l // column-major
			}
		}
		return &matfile.Array{Class: matfile.ClassStruct, Dims: []int{1, 1}, Fields: []string{"Segmentation", "Boundaries"},
			Elems: [][]*matfile.Array{{
				{Class: matfile.ClassUint16, Dims: []int{h, gtW}, Data: seg},
				{Class: matfile.ClassUint8, Logical: true, Dims: []int{h, gtW}, Data: bnd},
			}}}
	}
	data, err := matfile.Encode([]*matfile.Array{{Name: "groundTruth", Class: matfile.ClassCell, Dims: []int{1, 2},
		Cells: []*matfile.Array{ann(false), ann(true)}}}, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "gt", id+".mat"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDecomposeImageAndDataset(t *testing.T) {
	dir := t.TempDir()
	writeTinyBSDS(t, dir, "a", 40)
	writeTinyBSDS(t, dir, "b", 40)
	out := filepath.Join(dir, "out")
	img, gt := filepath.Join(dir, "images", "a.png"), filepath.Join(dir, "gt", "a.mat")
	if o, err := densify(t, "decompose", "--image", img, "--gt", gt, "--out", out, "--graph", "--min-size", "5"); err != nil {
		t.Fatalf("%v\n%s", err, o)
	}
	for _, f := range []string{"labels.png", "boundary.png", "uncertainty.png", "uncertainty.npy", "labels.npy", "boundary.npy", "removal.png", "uncertainty-segment.npy", "graph.txt", "sparsify.csv", "vi.png", "ri.png", "summary.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("missing output %s", f)
		}
	}
	s := readJSON(t, filepath.Join(out, "summary.json"))
	auc := s["vi_auc"].(map[string]any)
	for _, k := range []string{"proposed", "likelihood", "random", "proposed-segment", "oracle"} {
		if _, ok := auc[k].(float64); !ok {
			t.Errorf("vi_auc has no %s: %v", k, auc)
		}
	}
	if seg := s["segments"].(float64); seg < 2 {
		t.Errorf("%v segments: the two halves were not separated", seg)
	}
	if opt := s["options"].(map[string]any); opt["klj_full_sweep"] != 1000.0 || opt["klj_group_moves"] != -1.0 {
		t.Errorf("summary options: KLj full sweep %v, group moves %v; want the defaults 1000 and -1", opt["klj_full_sweep"], opt["klj_group_moves"])
	}
	if o, err := densify(t, "decompose", "--image", img, "--out", filepath.Join(dir, "zero"), "--group-moves", "0"); err == nil || !strings.Contains(o, "--group-moves 0: want -1 (none) or a count ≥ 1") {
		t.Errorf("--group-moves 0: err %v, output %s", err, o)
	}
	// dataset form, with KLj's options of the command multicut
	dout := filepath.Join(dir, "dout")
	o, err := densify(t, "decompose", "--images", filepath.Join(dir, "images"), "--gt-dir", filepath.Join(dir, "gt"), "--out", dout, "--min-size", "5",
		"--full-sweep", "-1", "--group-moves", "16")
	if err != nil {
		t.Fatalf("%v\n%s", err, o)
	}
	if !strings.Contains(o, "decompose: 2/2 b") || !strings.Contains(o, "| proposed |") {
		t.Errorf("dataset output lacks progress or table:\n%s", o)
	}
	for _, f := range []string{"images.csv", "curves.csv", "vi.png", "ri.png", "summary.json", "summary.md", "a/labels.png", "b/summary.json"} {
		if _, err := os.Stat(filepath.Join(dout, f)); err != nil {
			t.Errorf("missing dataset output %s", f)
		}
	}
	if opt := readJSON(t, filepath.Join(dout, "b", "summary.json"))["options"].(map[string]any); opt["klj_full_sweep"] != -1.0 || opt["klj_group_moves"] != 16.0 {
		t.Errorf("dataset options: KLj full sweep %v, group moves %v; want -1 and 16", opt["klj_full_sweep"], opt["klj_group_moves"])
	}
}

func TestDecomposeBadGroundTruth(t *testing.T) {
	dir := t.TempDir()
	writeTinyBSDS(t, dir, "a", 41) // label map one column wider than the image
	img, gt := filepath.Join(dir, "images", "a.png"), filepath.Join(dir, "gt", "a.mat")
	out := filepath.Join(dir, "out")
	o, err := densify(t, "decompose", "--image", img, "--gt", gt, "--out", out)
	if err == nil || !strings.Contains(o, gt+": groundTruth{1}: label map is [30 41]") {
		t.Fatalf("wrong-size label map: err %v, output %s", err, o)
	}
	data, _ := os.ReadFile(gt)
	os.WriteFile(gt, data[:len(data)/2], 0o644)
	o, err = densify(t, "decompose", "--image", img, "--gt", gt, "--out", out)
	if err == nil || !strings.Contains(o, gt+": byte 128") || !strings.Contains(o, "truncated") {
		t.Fatalf("truncated .mat: err %v, output %s", err, o)
	}
	os.WriteFile(gt, []byte("not a mat file"), 0o644)
	if o, err = densify(t, "decompose", "--image", img, "--gt", gt, "--out", out); err == nil || !strings.Contains(o, "too short") {
		t.Fatalf("non-MAT file: err %v, output %s", err, o)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("a failed command left output %s", out)
	}
}

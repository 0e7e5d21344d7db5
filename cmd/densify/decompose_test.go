package main

import (
	"fmt"
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
	writeTinyBSDSAt(t, dir, id, gtW, 20)
}

// writeTinyBSDSAt is writeTinyBSDS with the right region starting at
// column edge.
func writeTinyBSDSAt(t *testing.T, dir, id string, gtW, edge int) {
	t.Helper()
	w, h := 40, 30
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := uint8(50 + (x*7+y*3)%9)
			if x >= edge {
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
				if x >= edge {
					l = 2
					if split && y >= h/2 {
						l = 3
					}
				}
				seg[x*h+y] = l // column-major
				if x == edge {
					bnd[x*h+y] = 1
				}
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
	if opt := s["options"].(map[string]any); opt["klj_full_sweep"] != 1000.0 || opt["klj_group_moves"] != -1.0 || opt["klj_multilevel"] != false {
		t.Errorf("summary options: KLj full sweep %v, group moves %v, multilevel %v; want the defaults 1000, -1, false", opt["klj_full_sweep"], opt["klj_group_moves"], opt["klj_multilevel"])
	}
	if o, err := densify(t, "decompose", "--image", img, "--out", filepath.Join(dir, "zero"), "--group-moves", "0"); err == nil || !strings.Contains(o, "decompose: --group-moves 0: want -1 (unlimited / none) or a count ≥ 1") {
		t.Errorf("--group-moves 0: err %v, output %s", err, o)
	}
	// dataset form, with KLj's options of the command multicut
	dout := filepath.Join(dir, "dout")
	o, err := densify(t, "decompose", "--images", filepath.Join(dir, "images"), "--gt-dir", filepath.Join(dir, "gt"), "--out", dout, "--min-size", "5",
		"--full-sweep", "-1", "--group-moves", "16", "--multilevel")
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
	if opt := readJSON(t, filepath.Join(dout, "b", "summary.json"))["options"].(map[string]any); opt["klj_full_sweep"] != -1.0 || opt["klj_group_moves"] != 16.0 || opt["klj_multilevel"] != true {
		t.Errorf("dataset options: KLj full sweep %v, group moves %v, multilevel %v; want -1, 16, true", opt["klj_full_sweep"], opt["klj_group_moves"], opt["klj_multilevel"])
	}
}

// decompose fit: the quadratic model by default (1 + 24 + 300 weights), the
// linear one with --linear (1 + 24); both load back into decompose, and the
// val line reports the split.
func TestDecomposeFit(t *testing.T) {
	dir := t.TempDir()
	for i, edge := range []int{12, 17, 22, 27} {
		writeTinyBSDSAt(t, dir, string(rune('a'+i)), 40, edge)
	}
	imgs, gt := filepath.Join(dir, "images"), filepath.Join(dir, "gt")
	for _, c := range []struct {
		flags     []string
		quadratic bool
		weights   int
	}{{nil, true, 325}, {[]string{"--linear"}, false, 25}} {
		m := filepath.Join(dir, fmt.Sprintf("m%v.json", c.quadratic))
		args := append([]string{"decompose", "fit", "--train-images", imgs, "--train-gt", gt, "--val-images", imgs, "--val-gt", gt,
			"--out", m, "--per-image", "400"}, c.flags...)
		o, err := densify(t, args...)
		if err != nil {
			t.Fatalf("%v\n%s", err, o)
		}
		if !strings.Contains(o, "fitted on 4 images (1600 pixels)") || !strings.Contains(o, "val (4 images, tolerance 4 px): best F") {
			t.Errorf("fit output:\n%s", o)
		}
		j := readJSON(t, m)
		if j["quadratic"] != c.quadratic || len(j["theta"].([]any)) != c.weights || j["version"] != 3.0 {
			t.Errorf("%v: quadratic %v, %d weights, version %v; want %v, %d, 3", c.flags, j["quadratic"], len(j["theta"].([]any)), j["version"], c.quadratic, c.weights)
		}
		if o, err := densify(t, "decompose", "--image", filepath.Join(imgs, "a.png"), "--model", m, "--out", filepath.Join(dir, fmt.Sprintf("d%v", c.quadratic)), "--min-size", "5"); err != nil {
			t.Fatalf("decompose with the fitted model: %v\n%s", err, o)
		}
	}
}

// A split decomposed by three workers gives the same tables and curves as
// one worker (images that differ, so that a mix-up of their order shows),
// and a bad image stops the run with its error.
func TestDecomposeDatasetWorkers(t *testing.T) {
	dir := t.TempDir()
	for k, id := range []string{"a", "b", "c", "d", "e"} {
		writeTinyBSDSAt(t, dir, id, 40, 12+4*k)
	}
	run := func(workers string) (map[string]string, string) {
		out := filepath.Join(dir, "out"+workers)
		o, err := densify(t, "decompose", "--images", filepath.Join(dir, "images"), "--gt-dir", filepath.Join(dir, "gt"), "--out", out,
			"--min-size", "5", "--workers", workers)
		if err != nil {
			t.Fatalf("--workers %s: %v\n%s", workers, err, o)
		}
		files := map[string]string{}
		for _, f := range []string{"images.csv", "curves.csv", "summary.md"} {
			data, err := os.ReadFile(filepath.Join(out, f))
			if err != nil {
				t.Fatal(err)
			}
			var keep []string
			for _, line := range strings.Split(string(data), "\n") {
				if f == "images.csv" { // without the seconds column
					c := strings.Split(line, ",")
					if len(c) > 14 {
						c = append(c[:14], c[15:]...)
					}
					line = strings.Join(c, ",")
				}
				if !strings.Contains(line, " s per image") {
					keep = append(keep, line)
				}
			}
			files[f] = strings.Join(keep, "\n")
		}
		return files, o
	}
	one, _ := run("1")
	three, log := run("3")
	for f, want := range one {
		if three[f] != want {
			t.Errorf("%s with 3 workers differs from 1 worker:\n%s\n---\n%s", f, three[f], want)
		}
	}
	var ids []string
	for _, line := range strings.Split(three["images.csv"], "\n")[1:] {
		if line != "" {
			ids = append(ids, strings.Split(line, ",")[0])
		}
	}
	if strings.Join(ids, " ") != "a b c d e" || strings.Count(log, "decompose: ") != 5 || !strings.Contains(log, "decompose: 5/5 ") {
		t.Errorf("rows %v (want a b c d e, in the split's order) or progress lines missing:\n%s", ids, log)
	}
	os.WriteFile(filepath.Join(dir, "images", "c.png"), []byte("not a png"), 0o644)
	out := filepath.Join(dir, "outbad")
	if o, err := densify(t, "decompose", "--images", filepath.Join(dir, "images"), "--gt-dir", filepath.Join(dir, "gt"), "--out", out, "--workers", "2"); err == nil || !strings.Contains(o, "c.png") {
		t.Errorf("a bad image: err %v, output %s", err, o)
	}
	if _, err := os.Stat(filepath.Join(out, "summary.json")); !os.IsNotExist(err) {
		t.Errorf("a failed run wrote the split's summary.json")
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

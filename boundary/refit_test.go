package boundary

import (
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/densify/densify/bsds"
	"github.com/densify/densify/matfile"
)

// writeStep writes a 32×24 image with a vertical step at column c and its
// ground truth (one annotator: regions left/right, boundary at column c).
func writeStep(t *testing.T, dir, id string, c int) {
	w, h := 32, 24
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	seg, bnd := make([]float64, w*h), make([]float64, w*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := uint8(40 + (x*5+y*3)%11)
			l := 1.0
			if x >= c {
				v, l = uint8(190+(x*3+y*7)%11), 2
			}
			img.Set(x, y, color.RGBA{v, v / 2, 255 - v, 255})
			seg[x*h+y] = l
			if x == c {
				bnd[x*h+y] = 1
			}
		}
	}
	os.MkdirAll(filepath.Join(dir, "img"), 0o755)
	os.MkdirAll(filepath.Join(dir, "gt"), 0o755)
	f, _ := os.Create(filepath.Join(dir, "img", id+".png"))
	png.Encode(f, img)
	f.Close()
	data, err := matfile.Encode([]*matfile.Array{{Name: "groundTruth", Class: matfile.ClassCell, Dims: []int{1, 1}, Cells: []*matfile.Array{{
		Class: matfile.ClassStruct, Dims: []int{1, 1}, Fields: []string{"Segmentation", "Boundaries"},
		Elems: [][]*matfile.Array{{
			{Class: matfile.ClassUint16, Dims: []int{h, w}, Data: seg},
			{Class: matfile.ClassUint8, Logical: true, Dims: []int{h, w}, Data: bnd},
		}}}}}}, true)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "gt", id+".mat"), data, 0o644)
}

// TestRefit fits on three synthetic step images and evaluates on a fourth:
// the written model loads, and its boundaries are found (F ≥ 0.9 at 2 px).
func TestRefit(t *testing.T) {
	tr, va := t.TempDir(), t.TempDir()
	for i, c := range []int{10, 16, 21} {
		writeStep(t, tr, string(rune('a'+i)), c)
	}
	writeStep(t, va, "v", 13)
	out := filepath.Join(t.TempDir(), "m.json")
	rep, err := Refit(RefitOptions{TrainImages: filepath.Join(tr, "img"), TrainGT: filepath.Join(tr, "gt"),
		ValImages: filepath.Join(va, "img"), ValGT: filepath.Join(va, "gt"), Out: out, Tolerance: 2,
		Fit: FitOptions{PerImage: 500}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Load(out); err != nil {
		t.Fatal(err)
	}
	if rep.Train != 3 || rep.Val != 1 || rep.Best.F < 0.9 {
		t.Fatalf("report %+v", rep.Best)
	}
}

// eachLoaded hands the images over in the split's order whatever the number
// of workers (1, 2, 3 and 8 on five images), with the features of the
// right image (its step column is the strongest brightness gradient), and
// stops at the first unreadable image in order, naming it, even when a
// later one is unreadable too.
func TestEachLoadedOrder(t *testing.T) {
	dir := t.TempDir()
	cols := []int{10, 16, 21, 7, 25}
	for i, c := range cols {
		writeStep(t, dir, string(rune('a'+i)), c)
	}
	items, err := bsds.List(filepath.Join(dir, "img"), filepath.Join(dir, "gt"))
	if err != nil {
		t.Fatal(err)
	}
	strongest := func(f *Features, _ []bsds.Annotation) int {
		best, arg := float32(-1), -1
		for x := 0; x < f.W; x++ {
			if v := f.F[0][12*f.W+x]; v > best {
				best, arg = v, x
			}
		}
		return arg
	}
	for _, w := range []int{1, 2, 3, 8} {
		var got []int
		if err := eachLoaded(items, w, strongest, func(k int, x int) {
			if k != len(got) {
				t.Fatalf("%d workers: image %d handed over at position %d", w, k, len(got))
			}
			got = append(got, x)
		}); err != nil {
			t.Fatal(err)
		}
		for i, c := range cols {
			if got[i] != c && got[i] != c-1 {
				t.Fatalf("%d workers: strongest gradient columns %v, want the steps %v", w, got, cols)
			}
		}
	}
	for _, id := range []string{"c", "e"} {
		os.WriteFile(filepath.Join(dir, "img", id+".png"), []byte("not a png"), 0o644)
	}
	n := 0
	err = eachLoaded(items, 8, strongest, func(int, int) { n++ })
	if err == nil || !strings.Contains(err.Error(), "c.png") || n != 2 {
		t.Fatalf("after a bad image: err %v, %d images used (want c.png named, 2 used)", err, n)
	}
}

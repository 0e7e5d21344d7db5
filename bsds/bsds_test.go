package bsds

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/densify/densify/internal/testutil"
	"github.com/densify/densify/matfile"
)

func gtFile(seg []float64, h, w int) []*matfile.Array {
	bnd := make([]float64, len(seg))
	return []*matfile.Array{{Name: "groundTruth", Class: matfile.ClassCell, Dims: []int{1, 1}, Cells: []*matfile.Array{{
		Class: matfile.ClassStruct, Dims: []int{1, 1}, Fields: []string{"Segmentation", "Boundaries"},
		Elems: [][]*matfile.Array{{
			{Class: matfile.ClassUint16, Dims: []int{h, w}, Data: seg},
			{Class: matfile.ClassUint8, Logical: true, Dims: []int{h, w}, Data: bnd},
		}}}}}}
}

func TestGroundTruthColumnMajor(t *testing.T) {
	// 2 rows × 3 columns, column-major: column 0 = (1,2), column 1 = (3,4), column 2 = (5,6)
	a, err := GroundTruth(gtFile([]float64{1, 2, 3, 4, 5, 6}, 2, 3), "t.mat", 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := []int{0, 2, 4, 1, 3, 5} // row-major, 0-based
	for i, v := range want {
		if a[0].Segment[i] != v {
			t.Fatalf("Segment = %v, want %v", a[0].Segment, want)
		}
	}
}

func TestGroundTruthErrors(t *testing.T) {
	if _, err := GroundTruth(gtFile([]float64{1, 2, 3, 4, 5, 6}, 2, 3), "t.mat", 2, 3); err == nil || !strings.Contains(err.Error(), "t.mat: groundTruth{1}: label map is [2 3]") {
		t.Errorf("label map of another size: %v", err)
	}
	if _, err := GroundTruth(gtFile([]float64{1, 0, 3, 4, 5, 6}, 2, 3), "t.mat", 3, 2); err == nil || !strings.Contains(err.Error(), "not a label") {
		t.Errorf("label 0: %v", err)
	}
	wrong := []*matfile.Array{{Name: "groundTruth", Class: matfile.ClassDouble, Dims: []int{1, 1}, Data: []float64{1}}}
	if _, err := GroundTruth(wrong, "t.mat", 3, 2); err == nil || !strings.Contains(err.Error(), "want a cell array") {
		t.Errorf("wrong type: %v", err)
	}
	dir := t.TempDir()
	data, _ := matfile.Encode(gtFile([]float64{1, 2, 3, 4, 5, 6}, 2, 3), true)
	p := filepath.Join(dir, "trunc.mat")
	os.WriteFile(p, data[:len(data)-5], 0o644)
	if _, err := ReadGroundTruth(p, 3, 2); err == nil || !strings.Contains(err.Error(), p+": byte 128") {
		t.Errorf("truncated: %v", err)
	}
}

func TestRealGroundTruth(t *testing.T) {
	root := testutil.BSDSDev()
	items, err := List(filepath.Join(root, "images", "val"), filepath.Join(root, "groundTruth", "val"))
	if err != nil {
		t.Skipf("BSDS-500 not found: %v", err)
	}
	if len(items) != 100 {
		t.Fatalf("%d val images, want 100", len(items))
	}
	img, err := ReadImage(items[0].Image)
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	anns, err := ReadGroundTruth(items[0].GT, b.Dx(), b.Dy())
	if err != nil {
		t.Fatal(err)
	}
	if len(anns) < 4 {
		t.Fatalf("%d annotators", len(anns))
	}
	// boundaries lie where the segment label changes: every boundary pixel
	// has an 8-neighbour with another label
	a := anns[0]
	bad := 0
	for y := 0; y < a.H; y++ {
		for x := 0; x < a.W; x++ {
			if !a.Boundary[y*a.W+x] {
				continue
			}
			s, diff := a.Segment[y*a.W+x], false
			for _, d := range [][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}, {-1, -1}, {1, -1}, {-1, 1}} {
				xx, yy := x+d[0], y+d[1]
				if xx >= 0 && yy >= 0 && xx < a.W && yy < a.H && a.Segment[yy*a.W+xx] != s {
					diff = true
				}
			}
			if !diff {
				bad++
			}
		}
	}
	if bad > 0 {
		t.Fatalf("%d boundary pixels without a label change beside them", bad)
	}
}

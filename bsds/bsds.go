// Package bsds reads the Berkeley Segmentation Data Set 500 (Arbelaez,
// Maire, Fowlkes, Malik, "Contour detection and hierarchical image
// segmentation", TPAMI 2011) as the official archive lays it out:
// images/<split>/<id>.jpg and groundTruth/<split>/<id>.mat, the latter a
// MAT-file with a 1×K cell array "groundTruth" of structs with fields
// Segmentation (uint16 label map, labels 1..N) and Boundaries (logical), one
// per human annotator.
package bsds

import (
	"fmt"
	"image"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/matfile"
)

// Annotation is one annotator's segmentation of a W×H image, row-major:
// Segment[y*W+x] is the region label (0-based: the file's label − 1) and
// Boundary[y*W+x] whether the annotator drew a boundary there.
type Annotation struct {
	W, H     int
	Segment  []int
	Boundary []bool
}

// ReadGroundTruth reads a BSDS ground-truth .mat file and checks that every
// annotation is w×h (the image's size).
func ReadGroundTruth(path string, w, h int) ([]Annotation, error) {
	arrays, err := matfile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return GroundTruth(arrays, path, w, h)
}

// GroundTruth extracts the annotations from parsed MAT-file variables; name
// is used in errors.
func GroundTruth(arrays []*matfile.Array, name string, w, h int) ([]Annotation, error) {
	var gt *matfile.Array
	for _, a := range arrays {
		if a.Name == "groundTruth" {
			gt = a
		}
	}
	if gt == nil {
		return nil, fmt.Errorf("%s: no variable \"groundTruth\"", name)
	}
	if gt.Class != matfile.ClassCell {
		return nil, fmt.Errorf("%s: groundTruth is a %v array, want a cell array", name, gt.Class)
	}
	if len(gt.Cells) == 0 {
		return nil, fmt.Errorf("%s: groundTruth has no annotations", name)
	}
	out := make([]Annotation, len(gt.Cells))
	for k, c := range gt.Cells {
		if c.Class != matfile.ClassStruct || len(c.Elems) != 1 {
			return nil, fmt.Errorf("%s: groundTruth{%d} is a %v array with %d elements, want one struct", name, k+1, c.Class, len(c.Elems))
		}
		seg, bnd := c.Field(0, "Segmentation"), c.Field(0, "Boundaries")
		if seg == nil || bnd == nil {
			return nil, fmt.Errorf("%s: groundTruth{%d} lacks field Segmentation or Boundaries (has %v)", name, k+1, c.Fields)
		}
		for _, f := range []*matfile.Array{seg, bnd} {
			if !f.Class.Numeric() {
				return nil, fmt.Errorf("%s: groundTruth{%d}: a field is a %v array, want numeric", name, k+1, f.Class)
			}
			if len(f.Dims) != 2 || f.Dims[0] != h || f.Dims[1] != w {
				return nil, fmt.Errorf("%s: groundTruth{%d}: label map is %v (rows×columns), the image is %d×%d", name, k+1, f.Dims, h, w)
			}
		}
		a := Annotation{W: w, H: h, Segment: make([]int, w*h), Boundary: make([]bool, w*h)}
		for x := 0; x < w; x++ {
			for y := 0; y < h; y++ {
				v := seg.Data[x*h+y] // column-major
				if v < 1 || v != float64(int(v)) || v > 1<<20 {
					return nil, fmt.Errorf("%s: groundTruth{%d}: Segmentation(%d,%d) = %v is not a label ≥ 1", name, k+1, y+1, x+1, v)
				}
				a.Segment[y*w+x] = int(v) - 1
				a.Boundary[y*w+x] = bnd.Data[x*h+y] != 0
			}
		}
		out[k] = a
	}
	return out, nil
}

// Item is one image of a split with its ground truth file ("" when absent).
type Item struct {
	ID, Image, GT string
}

// List returns the images of a folder (sorted by id) with their ground truth
// in gtDir (may be empty: no ground truth).
func List(imageDir, gtDir string) ([]Item, error) {
	ents, err := os.ReadDir(imageDir)
	if err != nil {
		return nil, err
	}
	var items []Item
	for _, e := range ents {
		n := e.Name()
		ext := strings.ToLower(filepath.Ext(n))
		if e.IsDir() || (ext != ".jpg" && ext != ".jpeg" && ext != ".png") {
			continue
		}
		it := Item{ID: strings.TrimSuffix(n, filepath.Ext(n)), Image: filepath.Join(imageDir, n)}
		if gtDir != "" {
			it.GT = filepath.Join(gtDir, it.ID+".mat")
			if _, err := os.Stat(it.GT); err != nil {
				return nil, fmt.Errorf("image %s has no ground truth: %w", it.Image, err)
			}
		}
		items = append(items, it)
	}
	if len(items) == 0 {
		return nil, fmt.Errorf("%s: no .jpg or .png images", imageDir)
	}
	slices.SortFunc(items, func(a, b Item) int { return strings.Compare(a.ID, b.ID) })
	return items, nil
}

// ReadImage decodes a JPEG or PNG image (dataset.ReadImage, the one
// decoding path with its bounds).
func ReadImage(path string) (image.Image, error) { return dataset.ReadImage(path) }

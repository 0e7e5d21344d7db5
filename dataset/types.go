// Package dataset reads and writes the on-disk layouts of the motion
// segmentation benchmarks: FBMS59 ground truth (*Def.dat with .ppm/.pgm
// label images), FBMS frame sequences and the DAVIS 2016 layout. Pure Go.
package dataset

import "github.com/densify/densify/internal/morph"

// GroundTruth is the content of an FBMS *Def.dat file together with its
// decoded label images. DAVIS 2016 annotations are converted into the same
// form (regions: background = 0, object = 1; every frame labelled).
type GroundTruth struct {
	Path        string      // the Def.dat (or DAVIS annotation folder) it was read from
	Colors      []int       // one colour per region: R*65536+G*256+B (.ppm) or grey value (.pgm)
	Penalty     [][]float64 // confusion penalty matrix, len(Colors) x len(Colors)
	TotalFrames int         // total number of frames of the sequence
	Frames      []LabelledFrame
	// Warnings are non-fatal findings made while reading, one sentence each
	// (e.g. label-image colours that the Def.dat does not list). Commands
	// print them; eval copies them into its Result.
	Warnings []string
}

// LabelledFrame is one ground-truth image.
type LabelledFrame struct {
	Frame  int    // 0-based frame index in the sequence
	File   string // label image path as written in Def.dat (relative to the Def.dat folder)
	Input  string // "Input file name" of the Def.dat (the frame image; informative only, may be empty)
	Width  int
	Height int
	// Region[y*Width+x] is the region index (into GroundTruth.Colors) of the
	// pixel, or -1 when its colour is not one of the regions.
	Region []int
	// Prob[y*Width+x] is the probability in [0,1] that the pixel belongs to
	// its region (from the .pgm of the same name for .ppm label images, /255);
	// 1 everywhere when no probability image exists.
	Prob []float64
}

// ThinPartsBand marks the band around the thin parts of the frame's object,
// the union of its regions other than region 0 (the background) and
// unknown colours: morph.ThinPartsBand. Label and mask scores are given
// away from it as well (lines, cords, spokes of the annotation).
func (f *LabelledFrame) ThinPartsBand() []bool {
	_, band := f.ThinParts()
	return band
}

// ThinParts marks the thin parts of the frame's object (as ThinPartsBand)
// and their band: morph.ThinParts.
func (f *LabelledFrame) ThinParts() (thin, band []bool) {
	return morph.ThinParts(f.object(), f.Width, f.Height)
}

// Holes marks the holes of the frame's object (the union of its regions
// other than region 0 and unknown colours): the scene seen inside a
// wheel's rim or through rigging, which the annotation leaves out of the
// object although the object surrounds it (morph.Holes).
func (f *LabelledFrame) Holes() []bool {
	return morph.Holes(f.object(), f.Width, f.Height)
}

// object marks the pixels of the frame's regions other than region 0 (the
// background) and unknown colours.
func (f *LabelledFrame) object() []bool {
	fg := make([]bool, len(f.Region))
	for i, r := range f.Region {
		fg[i] = r > 0
	}
	return fg
}

package video

import (
	"fmt"
	"image"
	"runtime"

	"github.com/densify/densify/refine"
	"gocv.io/x/gocv"
)

// GrabCut is refine.Cutter on OpenCV's cv::grabCut (Rother, Kolmogorov &
// Blake, SIGGRAPH 2004: Gaussian mixtures of 5 components per side, a
// contrast-sensitive Potts term, minimum s–t cuts), initialised from the
// trimap (cv::GC_INIT_WITH_MASK).
//
// Seed fixes OpenCV's random generator before every cut (k-means++ seeding
// of the mixtures draws from it), on the OS thread that runs the cut, so the
// same frame and trimap give the same cut whatever ran before.
type GrabCut struct{ Seed int }

var _ refine.Cutter = GrabCut{}

// minSamples is the fewest pixels of a side GrabCut is given: its k-means
// needs at least as many samples as mixture components (5), and fewer than a
// handful make a colour model of nothing.
const minSamples = 16

// Cut implements refine.Cutter.
func (g GrabCut) Cut(img image.Image, roi image.Rectangle, tri []uint8, scale float64, iterations int) ([]bool, bool, error) {
	w, h := roi.Dx(), roi.Dy()
	if w <= 0 || h <= 0 || len(tri) != w*h {
		return nil, false, fmt.Errorf("grabcut: %d trimap values for a %v box", len(tri), roi)
	}
	if !(scale > 0 && scale <= 1) || iterations < 1 {
		return nil, false, fmt.Errorf("grabcut: scale %v, iterations %d", scale, iterations)
	}
	for _, v := range tri {
		if v > refine.ProbablyForeground {
			return nil, false, fmt.Errorf("grabcut: trimap value %d (0–3)", v)
		}
	}
	b := img.Bounds()
	bgr := make([]byte, 3*w*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			r, gg, bl, _ := img.At(b.Min.X+roi.Min.X+x, b.Min.Y+roi.Min.Y+y).RGBA()
			i := 3 * (y*w + x)
			bgr[i], bgr[i+1], bgr[i+2] = byte(bl>>8), byte(gg>>8), byte(r>>8)
		}
	}
	src, err := gocv.NewMatFromBytes(h, w, gocv.MatTypeCV8UC3, bgr)
	if err != nil {
		return nil, false, err
	}
	defer src.Close()
	mask, err := gocv.NewMatFromBytes(h, w, gocv.MatTypeCV8U, append([]byte(nil), tri...))
	if err != nil {
		return nil, false, err
	}
	defer mask.Close()
	sw, sh := max(1, int(float64(w)*scale+0.5)), max(1, int(float64(h)*scale+0.5))
	if sw != w || sh != h {
		gocv.Resize(src, &src, image.Pt(sw, sh), 0, 0, gocv.InterpolationArea)
		gocv.Resize(mask, &mask, image.Pt(sw, sh), 0, 0, gocv.InterpolationNearestNeighbor)
	}
	small, err := mask.DataPtrUint8()
	if err != nil {
		return nil, false, err
	}
	var nb, nf int
	for _, v := range small {
		if v == refine.Background || v == refine.ProbablyBackground {
			nb++
		} else {
			nf++
		}
	}
	if nb < minSamples || nf < minSamples {
		return nil, false, nil
	}
	bgd, fgd := gocv.NewMat(), gocv.NewMat()
	defer bgd.Close()
	defer fgd.Close()
	runtime.LockOSThread() // theRNG is per thread
	gocv.SetRNGSeed(g.Seed)
	gocv.GrabCut(src, &mask, image.Rectangle{}, &bgd, &fgd, iterations, gocv.GCInitWithMask)
	runtime.UnlockOSThread()
	if sw != w || sh != h {
		gocv.Resize(mask, &mask, image.Pt(w, h), 0, 0, gocv.InterpolationNearestNeighbor)
	}
	lab, err := mask.DataPtrUint8()
	if err != nil {
		return nil, false, err
	}
	if len(lab) != w*h {
		return nil, false, fmt.Errorf("grabcut: %d labels back for a %dx%d box", len(lab), w, h)
	}
	fg := make([]bool, w*h)
	for i, v := range lab {
		fg[i] = v == refine.Foreground || v == refine.ProbablyForeground
	}
	return fg, true, nil
}

// Package refine snaps the U-Net's dense masks to colour edges with a graph
// cut, after dense prediction and before evaluation. Two refinements sit
// behind the Refiner interface: ProbCut ("graphcut", the default), a
// minimum cut of an energy made of the network's probabilities, colour
// mixtures and a contrast-sensitive Potts term (GraphCut, solved exactly by
// internal/colourcut on the Boykov–Kolmogorov max-flow of
// internal/maxflow); and TrimapCut ("grabcut"), GrabCut (Rother, Kolmogorov & Blake, SIGGRAPH 2004) on a
// trimap built from the network's mask, behind the Cutter interface.
// Before either, Temporal can fuse each frame's probability map with its
// neighbours' along optical flow (temporal.go; the flow behind the Flow
// interface).
//
// Why: trained on sparse trajectory labels, the network has no label in the
// band around a moving object where the tracker loses points (motion
// boundaries, textureless road, water), and it paints that band foreground: a
// halo tens of pixels wide that costs most of the J of DAVIS sequences whose
// objects it otherwise covers (car-shadow: a mask 2.3 × the object's area).
// The halo has the colours of the background around it, so a colour model of
// the frame's background takes it back.
//
// The probability cut (GraphCut has the energy). GrabCut sees only a trimap:
// it cannot use how sure the network is, and the part of a halo inside its
// fixed core (car-shadow's shadow) is out of its reach. GraphCut puts
// −log P_net next to the colour likelihoods in the data term of every pixel
// within a band around the mask, so nothing of the mask is fixed, and the
// band lets the colour models also grow a mask the network drew too small.
// The default (DefaultCutOptions) was chosen among 30 settings on the ten
// DAVIS 2016 dev sequences by the mean J and the number of sequences it
// improves, and checked one setting at a time on the twenty development
// sequences, where a narrower band won (the background mixture is fitted
// on the band's confident background, so the band sets how local the
// colour model of the background is), and so did the full resolution, which
// follows thin parts (spokes, rails, lines) that half resolution blurs.
// BenchmarkGraphCut measures the cut on an 854×480 frame (car-shadow with a
// 30 px halo); the exponentials of the Potts weights and the mixtures'
// densities take half of it, the max-flow a quarter. CutOptions.DenseCRF (densify refine
// --dense-crf, off by default) first runs mean-field inference in a fully
// connected CRF with an appearance kernel (Krähenbühl & Koltun, NIPS 2011;
// densecrf.go) on the probabilities, which joins every pixel to the pixels
// of like colour within 80 px (at 854×480), not only to its neighbours.
//
// The trimap cut (Mask). Let M be the network's mask, d_F(x) the Euclidean distance from
// pixel x to the nearest pixel of M, d_B(x) the distance to the nearest pixel
// outside M (both 0 on their own set), R = max_x d_B(x) the radius of the
// frame's thickest part of M, and D the frame's diagonal. The trimap
// (GrabCut's mask values) is
//
//	T(x) = Foreground          if d_B(x) > Core·R       (the core of M: kept)
//	       ProbablyForeground  if x ∈ M otherwise
//	       ProbablyBackground  if x ∉ M and d_F(x) ≤ Band·D
//	       Background          otherwise                (far from M: fixed)
//
// GrabCut fits a Gaussian mixture of 5 components to the colours of each side,
// assigns each free pixel by a minimum s–t cut of the colour likelihoods plus
// a contrast-sensitive Potts term, and iterates. The refined mask is the cut's
// foreground inside the network's mask grown by Grow·D:
//
//	M' = {x : T'(x) ∈ {Foreground, ProbablyForeground}} ∩ {x : d_F(x) ≤ Grow·D}
//
// The core keeps an object whose colours resemble its surroundings from
// vanishing; it is relative to R because the halo is. The growth limit keeps
// the cut from annexing background of the object's colours elsewhere in the
// frame, which the global colour model cannot tell apart (building windows
// as dark as a car's). The cut runs on the band's bounding box, resized by
// Scale. Core 0.3 is the default: of 0.3, 0.5 and 0.7 on the ten DAVIS 2016
// dev sequences, it is the only one that lowers J on no sequence (a larger
// core keeps more of the halo of a thick object but guards thin parts less).
// The cut costs 0.16 s per 854×480 frame on 2 cores at Scale 0.5
// (BenchmarkRefine in package video) and up to 0.5 s on frames with large
// masks.
//
// The distances are exact Euclidean distance transforms (Felzenszwalb &
// Huttenlocher, Theory of Computing 8, 2012), so the trimap costs O(W·H)
// whatever the radii. The cut itself is behind the Cutter interface: cmd/densify
// hands in OpenCV's cv::grabCut (video.GrabCut), and this package links no C.
package refine

import (
	"errors"
	"fmt"
	"image"
	"math"

	"github.com/densify/densify/internal/morph"
)

// Trimap values: GrabCut's GC_BGD, GC_FGD, GC_PR_BGD and GC_PR_FGD.
const (
	Background         uint8 = 0
	Foreground         uint8 = 1
	ProbablyBackground uint8 = 2
	ProbablyForeground uint8 = 3
)

// Options are the radii of the trimap and the cut's settings. Band and Grow
// are fractions of the frame's diagonal (scale-free: 0.01 is 9.8 px at
// 854×480), Core a fraction of R, the largest distance of a mask pixel to the
// background.
type Options struct {
	Core       float64 // pixels of the mask deeper than Core·R are fixed foreground (0: none)
	Band       float64 // pixels outside the mask within this distance are free; beyond, fixed background
	Grow       float64 // the refined mask leaves the network's by at most this distance
	Scale      float64 // the cut runs on the band's bounding box resized by this factor, in (0, 1]
	Iterations int     // GrabCut iterations (colour models refitted between cuts)
}

// DefaultOptions are the default settings (see the package comment): pixels
// deeper than 0.3 R fixed, band 0.05 (≈ 50 px at 854×480), growth 0.003
// (≈ 3 px), the cut at half resolution, 3 iterations. The core was chosen
// among three values by the mean over all ten sequences and the number of
// sequences made worse; nothing was chosen per sequence.
func DefaultOptions() Options {
	return Options{Core: 0.3, Band: 0.05, Grow: 0.003, Scale: 0.5, Iterations: 3}
}

// Validate checks the settings: Core in [0, 1), Band in (0, 1], Grow in
// [0, Band], Scale in (0, 1], Iterations in [1, 20].
func (o Options) Validate() error {
	switch {
	case !(o.Core >= 0 && o.Core < 1):
		return fmt.Errorf("refine: core is a fraction of the mask's largest inner distance in [0, 1), got %v", o.Core)
	case !(o.Band > 0 && o.Band <= 1):
		return fmt.Errorf("refine: band is a fraction of the frame diagonal in (0, 1], got %v", o.Band)
	case !(o.Grow >= 0):
		return fmt.Errorf("refine: grow is a fraction of the frame diagonal, ≥ 0, got %v", o.Grow)
	case o.Grow > o.Band:
		return fmt.Errorf("refine: grow (%v) must not exceed band (%v): the cut frees no pixel beyond the band", o.Grow, o.Band)
	case !(o.Scale > 0 && o.Scale <= 1):
		return fmt.Errorf("refine: scale must be in (0, 1], got %v", o.Scale)
	case o.Iterations < 1 || o.Iterations > 20:
		return fmt.Errorf("refine: iterations must be in [1, 20], got %d", o.Iterations)
	}
	return nil
}

// Cutter runs GrabCut on img's pixels in roi (image coordinates relative to
// img.Bounds().Min), starting from trimap (roi.Dx()·roi.Dy() values, row-
// major, the constants above), with the box resized by scale first. It
// returns the cut's labels for the box at full size: true where the cut
// assigns foreground. When the box holds too few pixels of either side for a
// colour model (GrabCut's mixtures need five samples each) it returns ok =
// false and the mask is kept unrefined.
type Cutter interface {
	Cut(img image.Image, roi image.Rectangle, trimap []uint8, scale float64, iterations int) (fg []bool, ok bool, err error)
}

// Stats describes one refinement.
type Stats struct {
	Refined bool // false: the mask was kept (empty, full, or too few pixels of a side)
	Before  int  // foreground pixels of the network's mask
	After   int  // foreground pixels of the refined mask
}

// Mask refines a binary mask (W·H values, row-major, non-zero = object) of
// img with c and returns the new mask (0/1) and what changed. The input is
// not modified.
func Mask(img image.Image, mask []uint8, o Options, c Cutter) ([]uint8, Stats, error) {
	b := img.Bounds()
	W, H := b.Dx(), b.Dy()
	if len(mask) != W*H {
		return nil, Stats{}, fmt.Errorf("refine: mask has %d values for a %dx%d frame", len(mask), W, H)
	}
	if err := o.Validate(); err != nil {
		return nil, Stats{}, err
	}
	if c == nil {
		return nil, Stats{}, errors.New("refine: no graph cut (Cutter) given")
	}
	out := make([]uint8, W*H)
	in := make([]bool, W*H)
	st := Stats{}
	for i, v := range mask {
		if v != 0 {
			out[i], in[i] = 1, true
			st.Before++
		}
	}
	st.After = st.Before
	if st.Before == 0 || st.Before == W*H {
		return out, st, nil // nothing to take colour models from
	}
	tri, roi, dF := Trimap(in, W, H, o) // roi is not empty: it holds the mask
	box := make([]uint8, roi.Dx()*roi.Dy())
	for y := roi.Min.Y; y < roi.Max.Y; y++ {
		copy(box[(y-roi.Min.Y)*roi.Dx():], tri[y*W+roi.Min.X:y*W+roi.Max.X])
	}
	fg, ok, err := c.Cut(img, roi, box, o.Scale, o.Iterations)
	if err != nil {
		return nil, Stats{}, err
	}
	if !ok {
		return out, st, nil
	}
	if len(fg) != len(box) {
		return nil, Stats{}, fmt.Errorf("refine: the cut returned %d labels for a %dx%d box", len(fg), roi.Dx(), roi.Dy())
	}
	grow := sq(o.Grow * diagonal(W, H))
	st.Refined, st.After = true, 0
	for i := range out {
		out[i] = 0
	}
	for y := roi.Min.Y; y < roi.Max.Y; y++ {
		for x := roi.Min.X; x < roi.Max.X; x++ {
			i := y*W + x
			if fg[(y-roi.Min.Y)*roi.Dx()+x-roi.Min.X] && dF[i] <= grow {
				out[i] = 1
				st.After++
			}
		}
	}
	return out, st, nil
}

// Trimap builds the trimap of the package comment for a W×H mask and returns
// it with the bounding box of its free and foreground pixels (the cut's box;
// empty when the mask is) and the squared distances d_F² to the mask.
func Trimap(mask []bool, W, H int, o Options) (tri []uint8, roi image.Rectangle, dF2 []float64) {
	band := sq(o.Band * diagonal(W, H))
	dF2 = morph.SquaredDistance(mask, W, H, true)
	var dB2 []float64
	core := math.Inf(1)
	if o.Core > 0 {
		dB2 = morph.SquaredDistance(mask, W, H, false)
		R2 := 0.0
		for i, v := range mask {
			if v {
				R2 = max(R2, dB2[i])
			}
		}
		core = o.Core * o.Core * R2 // d_B > Core·R ⇔ d_B² > Core²·R²
	}
	tri = make([]uint8, W*H)
	x0, y0, x1, y1 := W, H, -1, -1
	for y := 0; y < H; y++ {
		for x := 0; x < W; x++ {
			i := y*W + x
			switch {
			case mask[i] && o.Core > 0 && dB2[i] > core:
				tri[i] = Foreground
			case mask[i]:
				tri[i] = ProbablyForeground
			case dF2[i] <= band:
				tri[i] = ProbablyBackground
			default:
				tri[i] = Background
				continue
			}
			x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
		}
	}
	if x1 < 0 {
		return tri, image.Rectangle{}, dF2
	}
	return tri, image.Rect(x0, y0, x1+1, y1+1), dF2
}

func diagonal(W, H int) float64 { return math.Hypot(float64(W), float64(H)) }

func sq(v float64) float64 { return v * v }

package decompose

import (
	"fmt"
	"math"
	"path/filepath"
	"time"

	"github.com/densify/densify/internal/npy"
	"github.com/densify/densify/multicut"
)

// maxExactLabel bounds the labels stored in labels.npy: float32 holds every
// integer up to 2^24 exactly.
const maxExactLabel = 1 << 24

// Load rebuilds the Result of a decomposition that RunImage wrote into dir
// from its boundary.npy (the boundary map) and labels.npy (the segment of
// every pixel, after absorbing small segments), without solving the
// multicut again: the pixel graph is rebuilt with opt.Graph (BuildGraph is
// a function of the boundary map and the graph parameters, so with the
// options of the run it is the same graph) and the uncertainties are
// computed as in Decompose. It lets other orderings and measures be tried on
// stored decompositions. EnergyGAEC and EnergyKLj are not stored and stay 0;
// Energy is the multicut energy of the stored labels.
func Load(dir string, opt Options) (*Result, error) {
	t0 := time.Now()
	bp, lp := filepath.Join(dir, "boundary.npy"), filepath.Join(dir, "labels.npy")
	b, err := npy.Read(bp)
	if err != nil {
		return nil, err
	}
	l, err := npy.Read(lp)
	if err != nil {
		return nil, err
	}
	if len(b.Shape) != 2 || b.F32 == nil || len(l.Shape) != 2 || l.F32 == nil || b.Shape[0] != l.Shape[0] || b.Shape[1] != l.Shape[1] {
		return nil, fmt.Errorf("decompose: %s (%v) and %s (%v) must be float32 arrays of one H×W shape", bp, b.Shape, lp, l.Shape)
	}
	r := &Result{H: b.Shape[0], W: b.Shape[1], Boundary: b.F32, Labels: make([]int, len(l.F32))}
	for i, v := range l.F32 {
		if !(v >= 0 && v < maxExactLabel) || v != float32(math.Trunc(float64(v))) {
			return nil, fmt.Errorf("decompose: %s: pixel %d has label %v, not an integer in [0, 2^24)", lp, i, v)
		}
		r.Labels[i] = int(v)
	}
	for i, v := range b.F32 {
		if !(v >= 0 && v <= 1) {
			return nil, fmt.Errorf("decompose: %s: pixel %d has boundary probability %v, not in [0, 1]", bp, i, v)
		}
	}
	if r.Graph, err = BuildGraph(r.Boundary, r.W, r.H, opt.Graph); err != nil {
		return nil, err
	}
	r.Energy = multicut.Energy(r.Graph, r.Labels)
	if err := r.measure(opt); err != nil {
		return nil, err
	}
	r.Timing.Uncertainty = time.Since(t0).Seconds()
	r.Timing.Total = r.Timing.Uncertainty
	return r, nil
}

// labelsF32 stores labels as float32 (exact below maxExactLabel).
func labelsF32(labels []int) ([]float32, error) {
	out := make([]float32, len(labels))
	for i, l := range labels {
		if l < 0 || l >= maxExactLabel {
			return nil, fmt.Errorf("decompose: label %d of pixel %d cannot be stored exactly as float32", l, i)
		}
		out[i] = float32(l)
	}
	return out, nil
}

package trainset

import (
	"fmt"
	"image"

	"github.com/densify/densify/internal/gmm"
)

// DefaultColourWindow is the default of Options.ColourWindow: the colour
// models of a frame pool the 5 frames before and after it (the only value
// tried); with the check on, the mean foreground label IoU and the mean
// dense J over the ten DAVIS 2016 development sequences rose.
const DefaultColourWindow = 5

// colourComponents is the number of mixture components per colour model,
// GrabCut's K = 5 (Rother, Kolmogorov & Blake, SIGGRAPH 2004, Sec. 3.1).
const colourComponents = 5

// colourSamples caps the samples of one colour model (taken at an even
// stride, so the fit is deterministic): a background model of 11 frames
// would otherwise fit to several hundred thousand points.
const colourSamples = 20000

// colourModel is the pair of colour models of one frame: per foreground
// class the GrabCut mixture of the colours under that class's long
// trajectories, and the mixture of the colours under the background's
// trajectories, both over the frames within the window.
type colourModel struct {
	fg map[int16]*gmm.Mixture
	bg *gmm.Mixture
}

// logRatio is log p(c | background) − log p(c | class cl) for the colour c
// of a point of class cl; ok is false without either model (too few
// samples).
func (m colourModel) logRatio(cl int16, c [3]uint8) (r float64, ok bool) {
	f := m.fg[cl]
	if f == nil || m.bg == nil {
		return 0, false
	}
	x := []float64{float64(c[0]), float64(c[1]), float64(c[2])}
	return m.bg.LogDensity(x) - f.LogDensity(x), true
}

// colourRejected decides, for each trajectory, whether its foreground
// points are dropped for their colour: trajectory i of class c with colours
// x_f in the n_i frames f of its points that have both models
// (colourEvidence) is rejected when
//
//	Λ_i = (1/n_i) Σ_f [log p_f(x_f | background) − log p_f(x_f | c)] > 0,
//
// the Bayes decision with equal priors between "the trajectory is
// background" and "it is of class c" for the whole trajectory, whose points
// are one physical point seen in several frames. (Treating the points as
// independent overcounts the evidence, but only by a positive factor, which
// leaves the sign, hence the decision, unchanged.) Deciding per trajectory
// rather than per point keeps a point of the object that looks like the
// background in one frame (a highlight, a shadow) and drops the water that
// a trajectory follows for its whole life, however long.
func colourRejected(lambda []float64) []bool {
	out := make([]bool, len(lambda))
	for t, l := range lambda {
		out[t] = l > 0 // false for NaN
	}
	return out
}

// colourEvidence is Λ_i of colourRejected for each of the n trajectories:
// the mean log-likelihood ratio, background against its class, over its
// foreground points in frames with both models; NaN for a trajectory with
// no such point. samples[f] are the labelled points of frame f, the ones
// the models were fitted from (colourModels); points of class 0
// (background) are ignored.
func colourEvidence(n int, samples [][]colourSample, models []colourModel) []float64 {
	sum, cnt := make([]float64, n), make([]int, n)
	for f, pts := range samples {
		for _, s := range pts {
			if s.class <= 0 {
				continue
			}
			if r, ok := models[f].logRatio(s.class, s.col); ok {
				sum[s.track] += r
				cnt[s.track]++
			}
		}
	}
	for t := range sum {
		sum[t] /= float64(cnt[t]) // NaN for 0/0
	}
	return sum
}

// colourSample is what the colour models need of one labelled point.
type colourSample struct {
	track int   // index in the track set
	class int16 // colourClass; −1: in no model (a point beyond the primary object)
	long  bool
	col   [3]uint8
}

// colourModels fits, for every frame f, the colour models of the points of
// frames f−w … f+w: per foreground class (class ≥ 1) over the points of its
// long trajectories, and the background (class 0) over all its points. A
// side with fewer than minSamples points gets no model.
func colourModels(samples [][]colourSample, w int) ([]colourModel, error) {
	out := make([]colourModel, len(samples))
	for f := range samples {
		fg := map[int16][]float64{}
		var bg []float64
		for g := max(0, f-w); g <= min(len(samples)-1, f+w); g++ {
			for _, s := range samples[g] {
				r, gr, b := float64(s.col[0]), float64(s.col[1]), float64(s.col[2])
				switch {
				case s.class == 0:
					bg = append(bg, r, gr, b)
				case s.long:
					fg[s.class] = append(fg[s.class], r, gr, b)
				}
			}
		}
		m := colourModel{fg: map[int16]*gmm.Mixture{}}
		var err error
		if m.bg, err = fitColours(bg); err != nil {
			return nil, fmt.Errorf("frame %d: background colour model: %w", f, err)
		}
		for cl, cols := range fg {
			if m.fg[cl], err = fitColours(cols); err != nil {
				return nil, fmt.Errorf("frame %d: colour model of class %d: %w", f, cl, err)
			}
		}
		out[f] = m
	}
	return out, nil
}

// minColourSamples is the fewest points a colour model is fitted to.
const minColourSamples = 50

// fitColours fits a GrabCut mixture to at most colourSamples of the colours
// (3 values each); nil when there are fewer than minColourSamples.
func fitColours(cols []float64) (*gmm.Mixture, error) {
	n := len(cols) / 3
	if n < minColourSamples {
		return nil, nil
	}
	if step := (n + colourSamples - 1) / colourSamples; step > 1 {
		sub := make([]float64, 0, 3*(n/step+1))
		for i := 0; i < n; i += step {
			sub = append(sub, cols[3*i:3*i+3]...)
		}
		cols = sub
	}
	return gmm.Fit(cols, colourComponents, 2)
}

// rgbAt is the 8-bit colour of img at (x, y). Decoded JPEG (YCbCr) and
// RGBA frames are read without img.At, whose interface result allocates
// once per pixel (the background cut reads every pixel of every frame); the
// values are the same.
func rgbAt(img image.Image, x, y int) [3]uint8 {
	b := img.Bounds()
	x, y = b.Min.X+x, b.Min.Y+y
	var r, g, bl uint32
	switch m := img.(type) {
	case *image.YCbCr:
		r, g, bl, _ = m.YCbCrAt(x, y).RGBA()
	case *image.RGBA:
		r, g, bl, _ = m.RGBAAt(x, y).RGBA()
	default:
		r, g, bl, _ = img.At(x, y).RGBA()
	}
	return [3]uint8{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8)}
}

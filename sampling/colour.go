package sampling

import (
	"fmt"
	"image"

	"github.com/densify/densify/internal/gmm"
)

// DefaultColourWindow is the default of Options.ColourWindow: the colour
// models of a frame pool the 5 frames before and after it (the only value
// tried). On the ten DAVIS 2016 development sequences (leave-one-sequence-out
// segmentations, β = 0.5) the foreground label IoU goes: kite-surf 0.624 →
// 0.720, blackswan 0.928 → 0.977, bmx-trees 0.770 → 0.792, motocross-jump
// 0.922 → 0.939, paragliding-launch 0.681 → 0.693, car-shadow 0.973 →
// 0.982, dance-twirl 0.925 → 0.934, libby 0.873 → 0.876, cows 0.869 →
// 0.860, dog 0.873 → 0.865; mean 0.844 → 0.864. Dense J (uniform, seed 1):
// kite-surf 27.0 → 34.2, blackswan 63.8 → 64.3, dog 88.5 → 88.4, cows 84.1 →
// 83.9, motocross-jump 81.4 → 81.0 (the other five not measured).
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

// rejects reports whether the colour c of a point of class cl is more
// probable under the background model than under its class's model:
// log p(c | background) > log p(c | class), the Bayes decision between the
// two with equal priors. Without either model (too few samples) it rejects
// nothing.
func (m colourModel) rejects(cl int16, c [3]uint8) bool {
	f := m.fg[cl]
	if f == nil || m.bg == nil {
		return false
	}
	x := []float64{float64(c[0]), float64(c[1]), float64(c[2])}
	return m.bg.LogDensity(x) > f.LogDensity(x)
}

// colourSample is what the colour models need of one labelled point.
type colourSample struct {
	class int16
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

// rgbAt is the 8-bit colour of img at (x, y).
func rgbAt(img image.Image, x, y int) [3]uint8 {
	b := img.Bounds()
	r, g, bl, _ := img.At(b.Min.X+x, b.Min.Y+y).RGBA()
	return [3]uint8{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8)}
}

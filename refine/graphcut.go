package refine

import (
	"fmt"
	"image"
	"math"

	"github.com/densify/densify/internal/colourcut"
	"github.com/densify/densify/internal/morph"
)

// CutOptions are the settings of GraphCut, the refinement that combines the
// network's probabilities with colour models in one energy.
type CutOptions struct {
	Net        float64 `json:"net"`                 // λ_n, weight of −log P_net
	Colour     float64 `json:"colour"`              // λ_c, weight of −log p(colour | side)
	Smooth     float64 `json:"smooth"`              // γ, weight of the contrast-sensitive Potts term
	Components int     `json:"components"`          // Gaussians per colour mixture
	Iterations int     `json:"cuts"`                // cuts; the mixtures are refitted on each cut's labels before the next
	Confident  float64 `json:"confident"`           // colour samples: P > Confident for the object, P < 1 − Confident for the background
	Band       float64 `json:"band"`                // pixels farther than Band·diagonal from the mask are fixed background; the background mixture is fitted within the band
	Scale      float64 `json:"scale"`               // the energy is built on the frame resized by this factor, in (0, 1]
	DenseCRF   float64 `json:"dense_crf,omitempty"` // w, weight of the dense CRF's appearance term (densecrf.go) run on the probabilities before the cut; 0: none
	// LogitShift b shifts the network's log-odds before everything else:
	// P' = σ(logit P + b), the Bayes decision under a prior whose object
	// odds are e^b times the training's (b > 0 grows the masks). 0: none,
	// the default; P = 0 and P = 1 stay as they are.
	LogitShift float64 `json:"logit_shift,omitempty"`
}

// DefaultCutOptions are the default settings (see the package comment):
// λ_n = 0.5, λ_c = 1, γ = 20, 5 Gaussians per side, 2 cuts, colour samples
// where P > 0.9 or P < 0.1, band 0.1 (≈ 98 px at 854×480), full
// resolution, no dense CRF. They were chosen on the ten DAVIS dev sequences by the mean J
// and the number of sequences improved, among 30 settings (then at half
// resolution with γ = 10), and checked on the twenty development sequences
// one setting at a time, where the band went from 0.2 to 0.1 and the cut
// went to full resolution with γ doubled. The data terms grow with the
// area (pixels, ∝ Scale²), the Potts term with the boundary's length (pixel
// pairs cut, ∝ Scale), so the same γ/Scale keeps their balance: γ = 20 at
// Scale 1 weighs a unit of boundary against a unit of area as γ = 10 at
// Scale ½ did. Nothing was chosen per sequence.
func DefaultCutOptions() CutOptions {
	return CutOptions{Net: 0.5, Colour: 1, Smooth: 20, Components: 5, Iterations: 2, Confident: 0.9, Band: 0.1, Scale: 1}
}

// Validate checks the settings: weights ≥ 0 and finite, Components in
// [1, 10], Iterations in [1, 10], Confident in [0.5, 1), Band in (0, 1],
// Scale in (0, 1].
func (o CutOptions) Validate() error {
	for _, w := range []struct {
		name string
		v    float64
	}{{"net", o.Net}, {"colour", o.Colour}, {"smooth", o.Smooth}, {"dense CRF", o.DenseCRF}} {
		if !(w.v >= 0) || math.IsInf(w.v, 1) {
			return fmt.Errorf("refine: the %s weight must be finite and ≥ 0, got %v", w.name, w.v)
		}
	}
	switch {
	case !(math.Abs(o.LogitShift) <= 20):
		return fmt.Errorf("refine: the logit shift must be in [−20, 20], got %v", o.LogitShift)
	case o.Components < 1 || o.Components > 10:
		return fmt.Errorf("refine: components must be in [1, 10], got %d", o.Components)
	case o.Iterations < 1 || o.Iterations > 10:
		return fmt.Errorf("refine: iterations must be in [1, 10], got %d", o.Iterations)
	case !(o.Confident >= 0.5 && o.Confident < 1):
		return fmt.Errorf("refine: confident must be in [0.5, 1), got %v", o.Confident)
	case !(o.Band > 0 && o.Band <= 1):
		return fmt.Errorf("refine: band is a fraction of the frame diagonal in (0, 1], got %v", o.Band)
	case !(o.Scale > 0 && o.Scale <= 1):
		return fmt.Errorf("refine: scale must be in (0, 1], got %v", o.Scale)
	}
	return nil
}

// probEps bounds the network's probabilities away from 0 and 1 in the
// unary term: −log P_net costs at most −log 10⁻³ ≈ 6.9 nats per pixel, so a
// confident but wrong network can still be overruled by colour and contrast.
const probEps = 1e-3

// GraphCut refines the network's foreground probabilities prob (W·H values
// in [0, 1], row-major) of img and returns the mask (0/1) and what changed.
//
// The frame and the probabilities are resized by Scale (area averages); with
// DenseCRF > 0, P there is replaced by the foreground marginals of the dense
// CRF of densecrf.go (weight DenseCRF) before anything else. Let
// M = {p : P(p) > ½} be the network's mask there and F the pixels within
// Band·diagonal of M; pixels outside F are fixed background. Over the labels
// x_p ∈ {0, 1} of F the cut minimises
//
//	E(x) = Σ_p [ −λ_n log P_net(x_p) − λ_c log p(I_p | θ_{x_p}) ]
//	     + Σ_{p~q} γ / ‖p − q‖ · exp(−β ‖I_p − I_q‖²) · [x_p ≠ x_q],
//	β = 1 / (2 ⟨‖I_p − I_q‖²⟩),
//
// where P_net(1) = P(p) clamped to [10⁻³, 1 − 10⁻³], P_net(0) = 1 − P_net(1),
// θ_1 and θ_0 are Gaussian colour mixtures of the object and the background
// (gmm.Fit), p ~ q ranges over the 8-neighbourhood (pairs with a fixed pixel
// are paid when x_p = 1), and ⟨·⟩ is the mean over the neighbouring pairs of
// F. The pairwise term is the contrast-sensitive Potts model of Boykov &
// Jolly ("Interactive graph cuts for optimal boundary & region segmentation
// of objects in N-D images", ICCV 2001, Sec. 2–3) with GrabCut's β (Rother,
// Kolmogorov & Blake, SIGGRAPH 2004, Eq. 5); the network's posterior takes
// the place of the user's hard constraints as a data term next to the colour
// likelihoods. E is submodular, so one minimum s–t cut (colourcut.Cut on
// maxflow.Graph, Kolmogorov & Zabih 2004) gives its exact minimum.
//
// The mixtures are first fitted on the confident pixels of F (P > Confident:
// object; P < 1 − Confident: background), then, as in GrabCut, refitted on
// the labels of each cut before the next (Iterations cuts in all). The
// labels are taken back to the frame's size by nearest neighbour. A frame
// whose map has no pixel above ½, or no pixel below, or too few confident
// pixels of a side for a colour model (colourcut.MinSamples), is returned
// as the threshold of its map, unrefined.
func GraphCut(img image.Image, prob []float32, o CutOptions) ([]uint8, Stats, error) {
	b := img.Bounds()
	W, H := b.Dx(), b.Dy()
	if len(prob) != W*H {
		return nil, Stats{}, fmt.Errorf("refine: %d probabilities for a %dx%d frame", len(prob), W, H)
	}
	if err := o.Validate(); err != nil {
		return nil, Stats{}, err
	}
	out := make([]uint8, W*H)
	st := Stats{}
	var shifted []float32 // σ(logit P + b), when LogitShift b ≠ 0
	expB := math.Exp(o.LogitShift)
	if o.LogitShift != 0 {
		shifted = make([]float32, len(prob))
	}
	for i, p := range prob {
		if !(p >= 0 && p <= 1) {
			return nil, Stats{}, fmt.Errorf("refine: probability %v at pixel (%d,%d), outside [0, 1]", p, i%W, i/W)
		}
		if shifted != nil {
			p = shiftLogit(p, expB)
			shifted[i] = p
		}
		if p > 0.5 {
			out[i] = 1
			st.Before++
		}
	}
	if shifted != nil {
		prob = shifted
	}
	st.After = st.Before
	if st.Before == 0 || st.Before == W*H {
		return out, st, nil
	}
	// The frame and the probabilities at the working scale (area averages).
	w, h := max(1, int(float64(W)*o.Scale+0.5)), max(1, int(float64(H)*o.Scale+0.5))
	rgb, p := shrink(img, prob, w, h)
	if o.DenseCRF > 0 {
		p = denseCRF(rgb, p, w, h, o.DenseCRF)
	}
	mask := make([]bool, w*h)
	for i, v := range p {
		mask[i] = v > 0.5
	}
	dF2 := morph.SquaredDistance(mask, w, h, true)
	node, n := colourcut.Nodes(dF2, sq(o.Band*diagonal(w, h))) // −1: fixed background
	lab, ok, err := cutEnergy(rgb, p, node, n, w, h, o)
	if err != nil || !ok {
		return out, st, err
	}
	st.Refined, st.After = true, 0
	for y := 0; y < H; y++ {
		sy := min(h-1, y*h/H)
		for x := 0; x < W; x++ {
			sx := min(w-1, x*w/W)
			v := uint8(0)
			if k := node[sy*w+sx]; k >= 0 && lab[k] {
				v = 1
				st.After++
			}
			out[y*W+x] = v
		}
	}
	return out, st, nil
}

// shrink resizes img (to RGB, 0–255) and prob to w×h by area averages:
// every source pixel counts for the target pixel its position falls in.
func shrink(img image.Image, prob []float32, w, h int) (rgb, p []float64) {
	b := img.Bounds()
	W, H := b.Dx(), b.Dy()
	rgb = make([]float64, 3*w*h)
	p = make([]float64, w*h)
	cnt := make([]float64, w*h)
	for y := 0; y < H; y++ {
		sy := min(h-1, y*h/H)
		for x := 0; x < W; x++ {
			s := sy*w + min(w-1, x*w/W)
			r, g, bl, _ := img.At(b.Min.X+x, b.Min.Y+y).RGBA()
			rgb[3*s] += float64(r >> 8)
			rgb[3*s+1] += float64(g >> 8)
			rgb[3*s+2] += float64(bl >> 8)
			p[s] += float64(prob[y*W+x])
			cnt[s]++
		}
	}
	for s, c := range cnt {
		rgb[3*s] /= c
		rgb[3*s+1] /= c
		rgb[3*s+2] /= c
		p[s] /= c
	}
	return rgb, p
}

// cutEnergy minimises the energy of GraphCut's comment over the n free
// pixels (node ≥ 0) of a w×h frame and returns their labels: colourcut.Cut
// with U_p(1) = −λ_n log P_net(1), U_p(0) = −λ_n log P_net(0), and the
// confident pixels as the first colour samples. ok is false when a side has
// too few confident pixels for a colour model.
func cutEnergy(rgb, p []float64, node []int32, n, w, h int, o CutOptions) (lab []bool, ok bool, err error) {
	u0, u1 := make([]float64, n), make([]float64, n)
	sample := make([]int8, n)
	for i, k := range node {
		if k < 0 {
			continue
		}
		q := min(1-probEps, max(probEps, p[i]))
		u1[k], u0[k] = o.Net*-math.Log(q), o.Net*-math.Log(1-q)
		sample[k] = -1
		switch {
		case p[i] > o.Confident:
			sample[k] = 1
		case p[i] < 1-o.Confident:
			sample[k] = 0
		}
	}
	return colourcut.Cut(rgb, node, n, w, h, u0, u1, sample, colourcut.Options{Colour: o.Colour, Smooth: o.Smooth, Components: o.Components, Iterations: o.Iterations})
}

// shiftLogit returns σ(logit p + b) for p in [0, 1], given e^b
// (CutOptions.LogitShift); 0 and 1 stay 0 and 1.
func shiftLogit(p float32, expB float64) float32 {
	if p <= 0 || p >= 1 {
		return p
	}
	odds := float64(p) / (1 - float64(p)) * expB
	return float32(odds / (1 + odds))
}

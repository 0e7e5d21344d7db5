package refine

import (
	"fmt"
	"image"
	"math"

	"github.com/densify/densify/internal/gmm"
	"github.com/densify/densify/internal/maxflow"
	"github.com/densify/densify/internal/morph"
)

// CutOptions are the settings of GraphCut, the refinement that combines the
// network's probabilities with colour models in one energy.
type CutOptions struct {
	Net        float64 // λ_n, weight of −log P_net
	Colour     float64 // λ_c, weight of −log p(colour | side)
	Smooth     float64 // γ, weight of the contrast-sensitive Potts term
	Components int     // Gaussians per colour mixture
	Iterations int     // cuts; the mixtures are refitted on each cut's labels before the next
	Confident  float64 // colour samples: P > Confident for the object, P < 1 − Confident for the background
	Band       float64 // pixels farther than Band·diagonal from the mask are fixed background
	Scale      float64 // the energy is built on the frame resized by this factor, in (0, 1]
}

// DefaultCutOptions are the settings measured in the package comment:
// λ_n = 0.5, λ_c = 1, γ = 10, 5 Gaussians per side, 2 cuts, colour samples
// where P > 0.9 or P < 0.1, band 0.2 (≈ 195 px at 854×480), half
// resolution. They were chosen on the ten DAVIS dev sequences by the mean J
// and the number of sequences improved, among 30 settings; nothing was
// chosen per sequence.
func DefaultCutOptions() CutOptions {
	return CutOptions{Net: 0.5, Colour: 1, Smooth: 10, Components: 5, Iterations: 2, Confident: 0.9, Band: 0.2, Scale: 0.5}
}

// Validate checks the settings: weights ≥ 0 and finite, Components in
// [1, 10], Iterations in [1, 10], Confident in [0.5, 1), Band in (0, 1],
// Scale in (0, 1].
func (o CutOptions) Validate() error {
	for _, w := range []struct {
		name string
		v    float64
	}{{"net", o.Net}, {"colour", o.Colour}, {"smooth", o.Smooth}} {
		if !(w.v >= 0) || math.IsInf(w.v, 1) {
			return fmt.Errorf("refine: the %s weight must be finite and ≥ 0, got %v", w.name, w.v)
		}
	}
	switch {
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

// minColourSamples is the fewest confident pixels of a side that a colour
// mixture is fitted on; with fewer the frame is kept as the network's mask.
const minColourSamples = 16

// GraphCut refines the network's foreground probabilities prob (W·H values
// in [0, 1], row-major) of img and returns the mask (0/1) and what changed.
//
// The frame and the probabilities are resized by Scale (area averages). Let
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
// likelihoods. E is submodular, so one minimum s–t cut (maxflow.Graph, Kolmogorov &
// Zabih 2004) gives its exact minimum.
//
// The mixtures are first fitted on the confident pixels of F (P > Confident:
// object; P < 1 − Confident: background), then, as in GrabCut, refitted on
// the labels of each cut before the next (Iterations cuts in all). The
// labels are taken back to the frame's size by nearest neighbour. A frame
// whose map has no pixel above ½, or no pixel below, or too few confident
// pixels of a side for a colour model (minColourSamples), is returned as the
// threshold of its map, unrefined.
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
	for i, p := range prob {
		if !(p >= 0 && p <= 1) {
			return nil, Stats{}, fmt.Errorf("refine: probability %v at pixel (%d,%d), outside [0, 1]", p, i%W, i/W)
		}
		if p > 0.5 {
			out[i] = 1
			st.Before++
		}
	}
	st.After = st.Before
	if st.Before == 0 || st.Before == W*H {
		return out, st, nil
	}
	// The frame and the probabilities at the working scale (area averages).
	w, h := max(1, int(float64(W)*o.Scale+0.5)), max(1, int(float64(H)*o.Scale+0.5))
	rgb, p := shrink(img, prob, w, h)
	mask := make([]bool, w*h)
	for i, v := range p {
		mask[i] = v > 0.5
	}
	dF2 := morph.SquaredDistance(mask, w, h, true)
	band := sq(o.Band * diagonal(w, h))
	node := make([]int32, w*h) // graph node of each free pixel, −1: fixed background
	n := 0
	for i := range node {
		node[i] = -1
		if dF2[i] <= band {
			node[i] = int32(n)
			n++
		}
	}
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

// neighbours are the forward half of the 8-neighbourhood.
var neighbours = [4][2]int{{1, 0}, {-1, 1}, {0, 1}, {1, 1}}

// cutEnergy minimises the energy of the package comment over the n free
// pixels (node ≥ 0) of a w×h frame and returns their labels. ok is false
// when a side has too few confident pixels for a colour model.
func cutEnergy(rgb, p []float64, node []int32, n, w, h int, o CutOptions) (lab []bool, ok bool, err error) {
	// β = 1 / (2⟨‖I_p − I_q‖²⟩) over the pairs of free pixels.
	sum, pairs := 0.0, 0
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := y*w + x
			if node[i] < 0 {
				continue
			}
			for _, d := range neighbours {
				u, v := x+d[0], y+d[1]
				if u < 0 || u >= w || v >= h || node[v*w+u] < 0 {
					continue
				}
				sum += colourDist2(rgb, i, v*w+u)
				pairs++
			}
		}
	}
	beta := 0.0
	if sum > 0 {
		beta = float64(pairs) / (2 * sum)
	}
	// Colour samples: confident pixels of each side.
	lab = make([]bool, n)
	var fg, bg []float64
	for i, k := range node {
		if k < 0 {
			continue
		}
		switch {
		case p[i] > o.Confident:
			fg = append(fg, rgb[3*i:3*i+3]...)
		case p[i] < 1-o.Confident:
			bg = append(bg, rgb[3*i:3*i+3]...)
		}
	}
	lnP1, lnP0 := make([]float64, n), make([]float64, n)
	for i, k := range node {
		if k >= 0 {
			q := min(1-probEps, max(probEps, p[i]))
			lnP1[k], lnP0[k] = -math.Log(q), -math.Log(1-q)
		}
	}
	pt := newPairTerms(rgb, node, n, w, h, beta, o.Smooth)
	for it := 0; it < o.Iterations; it++ {
		if it > 0 { // refit on the last cut
			fg, bg = fg[:0], bg[:0]
			for i, k := range node {
				if k < 0 {
					continue
				}
				if lab[k] {
					fg = append(fg, rgb[3*i:3*i+3]...)
				} else {
					bg = append(bg, rgb[3*i:3*i+3]...)
				}
			}
		}
		if len(fg) < 3*minColourSamples || len(bg) < 3*minColourSamples {
			if it == 0 {
				return nil, false, nil
			}
			break // the last cut emptied a side: keep it
		}
		gf, err := gmm.Fit(fg, o.Components, 2)
		if err != nil {
			return nil, false, err
		}
		gb, err := gmm.Fit(bg, o.Components, 2)
		if err != nil {
			return nil, false, err
		}
		if lab, err = solve(rgb, lnP1, lnP0, n, gf, gb, pt, o); err != nil {
			return nil, false, err
		}
	}
	return lab, true, nil
}

// pairTerms are the free pixels' graph structure and contrast-sensitive
// Potts weights, which do not change between cuts (only the colour models
// do): pix[k] is node k's pixel; nb[4k+j] is the node of its forward
// neighbour j (neighbours), −1 when that neighbour is outside the frame or
// fixed, and edge[4k+j] the weight to it; fixed[fixedOff[k]:fixedOff[k+1]]
// are node k's weights to its fixed-background 8-neighbours, in scan order.
type pairTerms struct {
	pix      []int32
	nb       []int32
	edge     []float64
	fixedOff []int32
	fixed    []float64
}

// newPairTerms computes the structure and pair weights of the free pixels
// (node ≥ 0, numbered 0…n−1 in scan order, as GraphCut numbers them) of a
// w×h frame once, for every cut of cutEnergy.
func newPairTerms(rgb []float64, node []int32, n, w, h int, beta, gamma float64) *pairTerms {
	pt := &pairTerms{pix: make([]int32, n), nb: make([]int32, 4*n), edge: make([]float64, 4*n), fixedOff: make([]int32, n+1)}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := y*w + x
			k := int(node[i])
			if k < 0 {
				continue
			}
			pt.pix[k] = int32(i)
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					u, v := x+dx, y+dy
					if (dx != 0 || dy != 0) && u >= 0 && u < w && v >= 0 && v < h && node[v*w+u] < 0 {
						pt.fixed = append(pt.fixed, pairWeight(rgb, i, v*w+u, dx != 0 && dy != 0, beta, gamma))
					}
				}
			}
			pt.fixedOff[k+1] = int32(len(pt.fixed))
			for j, d := range neighbours {
				pt.nb[4*k+j] = -1
				u, v := x+d[0], y+d[1]
				if u < 0 || u >= w || v >= h || node[v*w+u] < 0 {
					continue
				}
				pt.nb[4*k+j] = node[v*w+u]
				pt.edge[4*k+j] = pairWeight(rgb, i, v*w+u, d[0] != 0 && d[1] != 0, beta, gamma)
			}
		}
	}
	return pt
}

// solve builds the graph of the energy for the n free pixels (pt's nodes;
// the others are fixed background) with colour models gf and gb and the
// pair weights pt, and returns the labels of its minimum cut. lnP1 and lnP0
// are −log P_net and −log(1 − P_net) per node.
func solve(rgb, lnP1, lnP0 []float64, n int, gf, gb *gmm.Mixture, pt *pairTerms, o CutOptions) ([]bool, error) {
	g := maxflow.NewGraph(n, 4*n)
	for k := range n {
		i := int(pt.pix[k])
		c := rgb[3*i : 3*i+3]
		d1 := o.Net*lnP1[k] - o.Colour*gf.LogDensity(c) // cost of label 1
		d0 := o.Net*lnP0[k] - o.Colour*gb.LogDensity(c)
		// pairs with fixed-background neighbours (all 8) are paid by label 1
		for _, wt := range pt.fixed[pt.fixedOff[k]:pt.fixedOff[k+1]] {
			d1 += wt
		}
		m := min(d0, d1)
		g.AddTerminal(k, d0-m, d1-m)
		for j, q := range pt.nb[4*k : 4*k+4] {
			if q >= 0 {
				g.AddEdge(k, int(q), pt.edge[4*k+j], pt.edge[4*k+j])
			}
		}
	}
	if _, err := g.MaxFlow(); err != nil {
		return nil, err
	}
	lab := make([]bool, n)
	for k := range lab {
		lab[k] = g.Source(k)
	}
	return lab, nil
}

func colourDist2(rgb []float64, i, j int) float64 {
	a, b, c := rgb[3*i]-rgb[3*j], rgb[3*i+1]-rgb[3*j+1], rgb[3*i+2]-rgb[3*j+2]
	return a*a + b*b + c*c
}

// pairWeight is w_pq = γ / dist(p, q) · exp(−β ‖I_p − I_q‖²).
func pairWeight(rgb []float64, i, j int, diag bool, beta, gamma float64) float64 {
	wt := gamma * math.Exp(-beta*colourDist2(rgb, i, j))
	if diag {
		wt /= math.Sqrt2
	}
	return wt
}

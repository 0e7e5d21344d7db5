// Package colourcut minimises the binary energy of GrabCut (Rother,
// Kolmogorov & Blake, SIGGRAPH 2004) over the free pixels of a frame: a
// per-pixel cost of each label, colour mixtures of the object and the
// background refitted on each cut, and a contrast-sensitive Potts term
// (Boykov & Jolly, ICCV 2001). The mask refinement (refine, with the
// network's probabilities as the per-pixel costs) and the background
// cut's labels (trainset, with the labels as hard constraints) are
// both this energy; each cut is one minimum s–t cut (internal/maxflow).
package colourcut

import (
	"math"

	"github.com/densify/densify/internal/gmm"
	"github.com/densify/densify/internal/maxflow"
)

// Options weigh the energy of Cut.
type Options struct {
	Colour     float64 // λ_c, weight of −log p(colour | side)
	Smooth     float64 // γ, weight of the contrast-sensitive Potts term
	Components int     // Gaussians per colour mixture
	Iterations int     // cuts; the mixtures are refitted on each cut's labels before the next
}

// MinSamples is the fewest colour samples of a side that a mixture is
// fitted on.
const MinSamples = 16

// fitRounds are the hard-assignment rounds of every mixture (gmm.Fit).
const fitRounds = 2

// Cut minimises, over the labels x_p ∈ {0, 1} of the n free pixels (node[i]
// = k ≥ 0, numbered 0…n−1 in scan order) of the w×h frame rgb (3 values
// per pixel, 0–255),
//
//	E(x) = Σ_p [ U_p(x_p) − λ_c log p(I_p | θ_{x_p}) ]
//	     + Σ_{p~q} γ / ‖p − q‖ · exp(−β ‖I_p − I_q‖²) · [x_p ≠ x_q],
//	β = 1 / (2 ⟨‖I_p − I_q‖²⟩),
//
// where U_k(0) = u0[k], U_k(1) = u1[k], θ_1 and θ_0 are Gaussian colour
// mixtures (gmm.Fit), p ~ q ranges over the 8-neighbourhood, pixels with
// node < 0 are fixed background (pairs with them are paid when x_p = 1),
// and ⟨·⟩ is the mean over the forward neighbour pairs of free pixels. E is
// submodular, so one minimum s–t cut gives its exact minimum.
//
// The mixtures are first fitted on the nodes with sample[k] = 1 (object)
// and 0 (background; −1: neither), then refitted on the labels of each cut
// before the next (o.Iterations cuts in all). ok is false when a side has
// fewer than MinSamples first samples; a later cut that leaves a side with
// fewer ends the iterations with the cut before it.
func Cut(rgb []float64, node []int32, n, w, h int, u0, u1 []float64, sample []int8, o Options) (lab []bool, ok bool, err error) {
	var fg, bg []float64
	for i, k := range node {
		if k < 0 {
			continue
		}
		switch sample[k] {
		case 1:
			fg = append(fg, rgb[3*i:3*i+3]...)
		case 0:
			bg = append(bg, rgb[3*i:3*i+3]...)
		}
	}
	pt := newPairTerms(rgb, node, n, w, h, beta(rgb, node, w, h), o.Smooth)
	lab = make([]bool, n)
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
		if len(fg) < 3*MinSamples || len(bg) < 3*MinSamples {
			if it == 0 {
				return nil, false, nil
			}
			break // the last cut emptied a side: keep it
		}
		gf, err := gmm.Fit(fg, o.Components, fitRounds)
		if err != nil {
			return nil, false, err
		}
		gb, err := gmm.Fit(bg, o.Components, fitRounds)
		if err != nil {
			return nil, false, err
		}
		if lab, err = solve(rgb, u0, u1, n, gf, gb, pt, o.Colour); err != nil {
			return nil, false, err
		}
	}
	return lab, true, nil
}

// beta is β = 1 / (2⟨‖I_p − I_q‖²⟩) over the forward neighbour pairs of free
// pixels (0 when they are all equal or there are none).
func beta(rgb []float64, node []int32, w, h int) float64 {
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
	if sum > 0 {
		return float64(pairs) / (2 * sum)
	}
	return 0
}

// neighbours are the forward half of the 8-neighbourhood.
var neighbours = [4][2]int{{1, 0}, {-1, 1}, {0, 1}, {1, 1}}

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
// the others are fixed background) with the per-node costs u0, u1, colour
// models gf and gb weighted by colour, and the pair weights pt, and returns
// the labels of its minimum cut.
func solve(rgb, u0, u1 []float64, n int, gf, gb *gmm.Mixture, pt *pairTerms, colour float64) ([]bool, error) {
	g := maxflow.NewGraph(n, 4*n)
	for k := range n {
		i := int(pt.pix[k])
		c := rgb[3*i : 3*i+3]
		d1 := u1[k] - colour*gf.LogDensity(c) // cost of label 1
		d0 := u0[k] - colour*gb.LogDensity(c)
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

// Nodes numbers the free pixels of Cut, in scan order: those whose squared
// distance d2[i] to the mask around which the cut runs is at most band
// (squared); the others get −1 (fixed background). It returns the node of
// every pixel and their count.
func Nodes(d2 []float64, band float64) (node []int32, n int) {
	node = make([]int32, len(d2))
	for i, d := range d2 {
		node[i] = -1
		if d <= band {
			node[i] = int32(n)
			n++
		}
	}
	return node, n
}

// Package decompose is image decomposition by the minimum cost lifted
// multicut on the pixel grid (Keuper, Levinkov, Bonneel, Lavoué, Brox,
// Andres, "Efficient decomposition of image and mesh graphs by lifted
// multicuts", ICCV 2015) with the per-pixel uncertainty of Kardoost &
// Keuper, "Uncertainty in minimum cost multicuts for image and motion
// segmentation", UAI 2021 (Sec. 4.4, Figs. 7–9), evaluated on BSDS-500 by
// sparsification (VI, RI against every annotator) and region scores (VI,
// probabilistic Rand index, segmentation covering).
//
// Pipeline: image → boundary probability map (package boundary) → pixel
// graph with regular edges E (4- or 8-neighbours) and lifted edges F (a fixed
// set of offsets up to radius τ = 20) → cut probability of each pair = the
// maximum boundary probability on the straight line between the two pixels
// → costs by UAI'21 Eq. 9 → GAEC, then KLj (package multicut) → uncertainty
// u = σ(−γ) per pixel (package uncertainty).
package decompose

import (
	"fmt"
	"math"

	"github.com/densify/densify/internal/logit"
	"github.com/densify/densify/multicut"
)

// GraphParams define the pixel graph.
type GraphParams struct {
	// Neighbours is 4 or 8: the regular edges E.
	Neighbours int `json:"neighbours"`
	// Radius τ is the largest length (pixels) of a lifted edge (UAI'21: 20).
	Radius float64 `json:"radius"`
	// Lifted is the number of lifted offsets per pixel (each pixel starts
	// that many lifted edges, so |F| ≈ Lifted·|V|).
	Lifted int `json:"lifted"`
	// Beta is the cut prior β of UAI'21 Eq. 9.
	Beta float64 `json:"beta"`
	// MinSize: after solving, segments of fewer pixels are absorbed by
	// their neighbours (see AbsorbSmall); 0 or 1 keeps the solver's result.
	// The default is 200 (chosen on train, see DefaultGraphParams): the
	// solver's own labelling has tens of thousands of one-pixel segments on
	// the boundary bands. Absorption raises the multicut energy (train
	// 100075: −290,347 → −117,131 with MinSize 200) — an absorption that
	// never raised it would be a no-op after KLj, whose moves include every
	// energy-lowering join — so the labelling graded by the uncertainty is
	// the absorbed one, not a local optimum of the solver.
	MinSize int `json:"min_size"`
}

// DefaultGraphParams are the settings chosen on the BSDS-500 TRAIN split by
// segmentation covering against the annotators (Arbelaez et al. TPAMI 2011,
// Eq. 13; VI alone would favour under-segmentation: one segment scores VI
// 1.5–1.8 on train images): 8-neighbour E, lifted radius τ = 20 with 8
// offsets per pixel, β = 0.9 and segments below 200 px absorbed. β 0.9 with
// 200 px had the highest covering on the train images of the choice (300 px
// tied with the current boundary model); more lifted offsets gained little
// covering on val for half as much time again, smaller β under-segments
// (the boundary model's p is calibrated to annotator agreement and rarely
// exceeds 0.5), and without absorption the pixel multicut leaves tens of
// thousands of single-pixel segments on the thick boundary bands.
func DefaultGraphParams() GraphParams {
	return GraphParams{Neighbours: 8, Radius: 20, Lifted: 8, Beta: 0.9, MinSize: 200}
}

// Validate checks the parameters.
func (p GraphParams) Validate() error {
	if p.Neighbours != 4 && p.Neighbours != 8 {
		return fmt.Errorf("neighbours must be 4 or 8, got %d", p.Neighbours)
	}
	if !(p.Radius >= 2 && p.Radius <= 100) {
		return fmt.Errorf("lifted radius must be in [2, 100], got %v", p.Radius)
	}
	if p.Lifted < 0 || p.Lifted > 64 {
		return fmt.Errorf("lifted offsets per pixel must be in [0, 64], got %d", p.Lifted)
	}
	if p.MinSize < 0 || p.MinSize > 1<<20 {
		return fmt.Errorf("minimum segment size must be in [0, 2^20], got %d", p.MinSize)
	}
	return logit.CheckBeta(p.Beta)
}

// Offset is a pixel displacement (DX, DY) in the half plane DY > 0 or
// (DY = 0, DX > 0), so that every unordered pair occurs once.
type Offset struct {
	DX int `json:"dx"`
	DY int `json:"dy"`
}

// regularOffsets are the E offsets of the 4- and 8-neighbourhood.
func regularOffsets(n int) []Offset {
	if n == 8 {
		return []Offset{{1, 0}, {0, 1}, {1, 1}, {-1, 1}}
	}
	return []Offset{{1, 0}, {0, 1}}
}

// LiftedOffsets returns the k lifted offsets: offset i has length
// r_i = 2·(τ/2)^(i/(k−1)) (geometric from 2 to τ: as many short edges, which
// resolve nearby boundaries, as long ones, which carry the long-range
// information that makes the lifted multicut differ from the plain one)
// and angle θ_i = i·φ mod π with the golden angle φ = π(3 − √5) (so any
// prefix of the sequence covers the directions evenly), rounded to the pixel
// grid. Offsets that round to a regular neighbour or to an earlier offset are
// replaced by the next angle. Because every pixel gets the same offsets, the
// lifted edges around a pixel reach every direction at every scale through
// its neighbours' edges; the default k = 8 gives |F| ≈ 8|V| ≈ 1.2 M lifted
// edges on a 481×321 image instead of the ~630|V| of the complete
// radius-20 disc (π·20²/2 undirected edges per pixel), which keeps GAEC + KLj within seconds (see
// BenchmarkDecompose; k = 16 and 24 are measured in DefaultGraphParams).
func LiftedOffsets(k int, tau float64, neighbours int) []Offset {
	seen := map[Offset]bool{}
	for _, o := range regularOffsets(neighbours) {
		seen[o] = true
	}
	phi := math.Pi * (3 - math.Sqrt(5))
	var out []Offset
	step := 0
	for i := 0; len(out) < k && step < 100*k+100; i++ {
		r := tau
		if k > 1 {
			r = 2 * math.Pow(tau/2, float64(len(out))/float64(k-1))
		}
		th := math.Mod(float64(step)*phi, math.Pi)
		step++
		o := Offset{int(math.Round(r * math.Cos(th))), int(math.Round(r * math.Sin(th)))}
		if o.DY < 0 || (o.DY == 0 && o.DX < 0) {
			o = Offset{-o.DX, -o.DY}
		}
		if o == (Offset{}) || seen[o] {
			continue
		}
		seen[o] = true
		out = append(out, o)
	}
	return out
}

// LineMax returns the maximum of p (a W-wide row-major map) over the pixels
// of the 4-connected digital straight line from (x0, y0) to (x1, y1), both
// ends included: the DDA line that steps one pixel along the major axis and
// rounds the minor coordinate, plus, wherever both coordinates change in one
// step, the pixel (x_new, y_old), so that the line cannot pass diagonally
// through a thin (8-connected) boundary without touching it.
func LineMax(p []float32, w, x0, y0, x1, y1 int) float32 {
	dx, dy := x1-x0, y1-y0
	n := max(abs(dx), abs(dy))
	m := p[y0*w+x0]
	px, py := x0, y0
	for s := 1; s <= n; s++ {
		x := x0 + int(math.Round(float64(s*dx)/float64(n)))
		y := y0 + int(math.Round(float64(s*dy)/float64(n)))
		if x != px && y != py {
			if v := p[py*w+x]; v > m {
				m = v
			}
		}
		if v := p[y*w+x]; v > m {
			m = v
		}
		px, py = x, y
	}
	return m
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// BuildGraph builds the pixel graph of a W×H boundary probability map p:
// node y·W+x per pixel; for every regular offset and every lifted offset a
// pair (v, v+offset) inside the image; its cut probability the LineMax of p
// between the two pixels and its cost by UAI'21 Eq. 9,
// c = log((1−p)/p) + log((1−β)/β) with p clamped as logit.CostFromProb.
func BuildGraph(p []float32, w, h int, par GraphParams) (*multicut.Graph, error) {
	if err := par.Validate(); err != nil {
		return nil, err
	}
	if w < 1 || h < 1 || len(p) != w*h {
		return nil, fmt.Errorf("decompose: boundary map of %d values for a %d×%d image", len(p), w, h)
	}
	reg := regularOffsets(par.Neighbours)
	lif := LiftedOffsets(par.Lifted, par.Radius, par.Neighbours)
	g := &multicut.Graph{N: w * h, Edges: make([]multicut.Edge, 0, w*h*(len(reg)+len(lif)))}
	// cost lookup: the probability map is float32, so cache by value bits is
	// not worth it; the logit is cheap.
	add := func(offs []Offset, lifted bool) {
		for _, o := range offs {
			for y := 0; y+o.DY < h; y++ {
				for x := max(0, -o.DX); x < w && x+o.DX < w; x++ {
					q := LineMax(p, w, x, y, x+o.DX, y+o.DY)
					g.Edges = append(g.Edges, multicut.Edge{U: y*w + x, V: (y+o.DY)*w + x + o.DX,
						Cost: logit.CostFromProb(float64(q), par.Beta), Lifted: lifted})
				}
			}
		}
	}
	add(reg, false)
	add(lif, true)
	return g, nil
}

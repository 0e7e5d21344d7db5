package multicut

import (
	"math"
	"math/rand/v2"
	"slices"
)

// GenerateOptions describes a synthetic instance for tests and benchmarks.
type GenerateOptions struct {
	Seed     uint64
	Nodes    int     // points uniform in the unit square
	Edges    int     // regular edges: the Edges closest pairs (a random geometric graph)
	Lifted   int     // lifted edges between random pairs 1–4 radii apart
	Clusters int     // planted clusters: a background and Clusters-1 discs
	Noise    float64 // standard deviation of the Gaussian cost noise
}

// GeneratePlanted draws a random geometric graph with a planted partition,
// shaped like a trajectory graph: nodes are points in the unit square,
// regular edges join the closest pairs, clusters are discs on a background.
// An edge inside a planted cluster costs +2 + Noise·ξ, across clusters
// −2 + Noise·ξ (ξ standard normal); lifted edges have half the mean, like
// the weaker evidence of long-range pairs. It returns the graph and the
// planted labels.
func GeneratePlanted(o GenerateOptions) (*Graph, []int) {
	r := rand.New(rand.NewPCG(o.Seed, 0x6d756c7469637574))
	n := o.Nodes
	xs, ys := make([]float64, n), make([]float64, n)
	for i := range xs {
		xs[i], ys[i] = r.Float64(), r.Float64()
	}
	type disc struct{ x, y, rad float64 }
	discs := make([]disc, max(o.Clusters-1, 0))
	for i := range discs {
		discs[i] = disc{0.15 + 0.7*r.Float64(), 0.15 + 0.7*r.Float64(), 0.06 + 0.1*r.Float64()}
	}
	planted := make([]int, n)
	for i := range planted {
		for k, d := range discs {
			if math.Hypot(xs[i]-d.x, ys[i]-d.y) < d.rad {
				planted[i] = k + 1
				break
			}
		}
	}
	cost := func(u, v int, mean float64) float64 {
		c := o.Noise * r.NormFloat64()
		if planted[u] == planted[v] {
			return c + mean
		}
		return c - mean
	}
	g := &Graph{N: n}
	if n < 2 {
		return g, planted
	}
	// Radius such that the expected number of pairs within it is ~1.3·Edges.
	rad := math.Sqrt(1.3 * 2 * float64(o.Edges) / (math.Pi * float64(n) * float64(n)))
	rad = max(rad, 1e-6)
	cells := max(1, min(int(1/rad), 2048))
	cell := func(x float64) int { return min(int(x*float64(cells)), cells-1) }
	grid := make([][]int32, cells*cells)
	for i := range xs {
		c := cell(ys[i])*cells + cell(xs[i])
		grid[c] = append(grid[c], int32(i))
	}
	type pair struct {
		d    float64
		u, v int32
	}
	var pairs []pair
	near := func(u int, radius float64, visit func(v int, d float64)) {
		span := int(math.Ceil(radius * float64(cells)))
		cx, cy := cell(xs[u]), cell(ys[u])
		for gy := max(0, cy-span); gy <= min(cells-1, cy+span); gy++ {
			for gx := max(0, cx-span); gx <= min(cells-1, cx+span); gx++ {
				for _, v := range grid[gy*cells+gx] {
					if d := math.Hypot(xs[u]-xs[v], ys[u]-ys[v]); int(v) != u && d < radius {
						visit(int(v), d)
					}
				}
			}
		}
	}
	for u := 0; u < n; u++ {
		near(u, rad, func(v int, d float64) {
			if v > u {
				pairs = append(pairs, pair{d, int32(u), int32(v)})
			}
		})
	}
	slices.SortFunc(pairs, func(a, b pair) int {
		if a.d < b.d {
			return -1
		}
		if a.d > b.d {
			return 1
		}
		return 0
	})
	pairs = pairs[:min(len(pairs), o.Edges)]
	have := make(map[uint64]bool, len(pairs)+o.Lifted)
	key := func(u, v int) uint64 {
		if u > v {
			u, v = v, u
		}
		return uint64(u)<<32 | uint64(v)
	}
	for _, p := range pairs {
		g.Edges = append(g.Edges, Edge{U: int(p.u), V: int(p.v), Cost: cost(int(p.u), int(p.v), 2)})
		have[key(int(p.u), int(p.v))] = true
	}
	var cand []int
	for tries := 0; len(g.Edges) < len(pairs)+o.Lifted && tries < 20*o.Lifted; tries++ {
		u := r.IntN(n)
		cand = cand[:0]
		near(u, 4*rad, func(v int, d float64) {
			if d >= rad {
				cand = append(cand, v)
			}
		})
		if len(cand) == 0 {
			continue
		}
		v := cand[r.IntN(len(cand))]
		if have[key(u, v)] {
			continue
		}
		have[key(u, v)] = true
		g.Edges = append(g.Edges, Edge{U: u, V: v, Cost: cost(u, v, 1), Lifted: true})
	}
	return g, planted
}

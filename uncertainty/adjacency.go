package uncertainty

import (
	"fmt"
	"math"
	"slices"

	"github.com/densify/densify/multicut"
)

// half is one direction of an edge in the CSR adjacency: 16 bytes, so a
// node's neighbourhood is one contiguous read.
type half struct {
	To     int32
	Lifted bool
	Cost   float64
}

// Adjacency is the compressed-sparse-row adjacency of a multicut graph:
// the neighbours of node v (through E and F) are Half[Off[v]:Off[v+1]].
// Build it once with NewAdjacency and reuse it for several labelings.
type Adjacency struct {
	N    int
	Off  []int
	Half []half
}

// NewAdjacency validates g (node ids in range, no self-loops, finite costs,
// at most 2^31−1 nodes) and builds its CSR adjacency in O(N + |E| + |F|).
func NewAdjacency(g *multicut.Graph) (*Adjacency, error) {
	if g == nil {
		return nil, fmt.Errorf("uncertainty: nil graph")
	}
	if g.N < 0 || g.N > math.MaxInt32 {
		return nil, fmt.Errorf("uncertainty: invalid node count %d", g.N)
	}
	off := make([]int, g.N+1)
	for i, e := range g.Edges {
		if e.U < 0 || e.U >= g.N || e.V < 0 || e.V >= g.N {
			return nil, fmt.Errorf("uncertainty: edge %d (%d,%d): node id out of range [0,%d)", i, e.U, e.V, g.N)
		}
		if e.U == e.V {
			return nil, fmt.Errorf("uncertainty: edge %d: self-loop at node %d", i, e.U)
		}
		if math.IsNaN(e.Cost) || math.IsInf(e.Cost, 0) {
			return nil, fmt.Errorf("uncertainty: edge %d (%d,%d): cost %v is not finite", i, e.U, e.V, e.Cost)
		}
		off[e.U+1]++
		off[e.V+1]++
	}
	for v := 0; v < g.N; v++ {
		off[v+1] += off[v]
	}
	hs := make([]half, 2*len(g.Edges))
	pos := make([]int, g.N)
	copy(pos, off[:g.N])
	for _, e := range g.Edges {
		hs[pos[e.U]] = half{To: int32(e.V), Lifted: e.Lifted, Cost: e.Cost}
		pos[e.U]++
		hs[pos[e.V]] = half{To: int32(e.U), Lifted: e.Lifted, Cost: e.Cost}
		pos[e.V]++
	}
	return &Adjacency{N: g.N, Off: off, Half: hs}, nil
}

// denseLabels maps arbitrary non-negative cluster labels to 0..K−1 (in
// increasing label order) and returns the dense ids and the label of each id.
func denseLabels(labels []int) (cl []int32, ids []int, err error) {
	maxL := -1
	for v, l := range labels {
		if l < 0 {
			return nil, nil, fmt.Errorf("uncertainty: node %d has negative label %d", v, l)
		}
		if l > maxL {
			maxL = l
		}
	}
	cl = make([]int32, len(labels))
	if maxL < 4*len(labels)+64 { // compact ids: a slice lookup
		idx := make([]int32, maxL+1)
		for i := range idx {
			idx[i] = -1
		}
		for _, l := range labels {
			idx[l] = 0
		}
		for l := range idx {
			if idx[l] == 0 {
				idx[l] = int32(len(ids))
				ids = append(ids, l)
			}
		}
		for v, l := range labels {
			cl[v] = idx[l]
		}
		return cl, ids, nil
	}
	seen := make(map[int]struct{})
	for _, l := range labels {
		seen[l] = struct{}{}
	}
	for l := range seen {
		ids = append(ids, l)
	}
	slices.Sort(ids)
	m := make(map[int]int32, len(ids))
	for i, l := range ids {
		m[l] = int32(i)
	}
	for v, l := range labels {
		cl[v] = m[l]
	}
	return cl, ids, nil
}

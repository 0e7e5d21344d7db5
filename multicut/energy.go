package multicut

import (
	"fmt"
	"math"
)

// Energy returns the multicut objective Σ_{e ∈ E∪F} c_e·y_e with
// y_e = [labels[U] ≠ labels[V]] (Keuper et al. ICCV'15, Eq. 1). It returns NaN
// when labels does not have one entry per node or an edge id is out of range.
func Energy(g *Graph, labels []int) float64 {
	if len(labels) != g.N {
		return math.NaN()
	}
	s := 0.0
	for _, e := range g.Edges {
		if e.U < 0 || e.U >= g.N || e.V < 0 || e.V >= g.N {
			return math.NaN()
		}
		if labels[e.U] != labels[e.V] {
			s += e.Cost
		}
	}
	return s
}

// Feasible reports whether labels is a decomposition of G = (V, E): one label
// per node and every cluster connected through the regular (non-lifted)
// edges. The graph must be valid.
func Feasible(g *Graph, labels []int) error {
	if len(labels) != g.N {
		return fmt.Errorf("multicut: %d labels for %d nodes", len(labels), g.N)
	}
	uf := newUnionFind(g.N)
	for _, e := range g.Edges {
		if !e.Lifted && labels[e.U] == labels[e.V] {
			uf.union(int32(e.U), int32(e.V))
		}
	}
	root := make(map[int]int32) // label → root of its first node
	first := make(map[int]int)
	for v, l := range labels {
		r := uf.find(int32(v))
		if r0, ok := root[l]; !ok {
			root[l] = r
			first[l] = v
		} else if r0 != r {
			return fmt.Errorf("multicut: cluster %d is not connected through E (nodes %d and %d)", l, first[l], v)
		}
	}
	return nil
}

// Canonical relabels to 0..k-1 in order of first appearance, so that equal
// partitions have equal label slices.
func Canonical(labels []int) []int {
	out := make([]int, len(labels))
	ids := make(map[int]int)
	for i, l := range labels {
		id, ok := ids[l]
		if !ok {
			id = len(ids)
			ids[l] = id
		}
		out[i] = id
	}
	return out
}

// NumClusters returns the number of distinct labels.
func NumClusters(labels []int) int {
	seen := make(map[int]struct{})
	for _, l := range labels {
		seen[l] = struct{}{}
	}
	return len(seen)
}

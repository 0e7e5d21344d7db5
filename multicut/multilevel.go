package multicut

import "slices"

// DefaultLevels are the coarsening factors of KLj's multilevel refinement,
// finest first: fragments of at most 16 nodes, then of at most 4 of those
// (64 nodes), and so on up to 16,384 nodes; coarsening stops early when a
// level contracts nothing. Read only (copy it to change it).
var DefaultLevels = []int{16, 4, 4, 4, 4}

// multilevel improves the KLj local optimum labels (canonical) by the
// multilevel scheme of graph partitioning (Hendrickson & Leland 1995;
// Karypis & Kumar, SIAM J. Sci. Comput. 20(1), 1998), applied to the
// multicut objective, in one V-cycle:
//
//  1. Coarsen: split every cluster into fragments by GAEC restricted to the
//     edges inside the cluster, never forming a fragment of more than
//     levels[0] nodes. A fragment is connected through E and lies inside
//     one cluster. Contract each fragment to a node: one edge per pair of
//     fragments joined by edges, with their summed cost, regular when one
//     of them is. Repeat on the contracted graph with levels[1], ….
//     A labelling of a coarse graph is a feasible decomposition iff its
//     expansion is (fragments are connected), and both have the same
//     energy (edges inside a fragment are never cut).
//  2. Solve coarsest, then refine down the levels: run KLj on each level's
//     graph from the labelling of the level above, with sequences to their
//     end. One coarse move carries a whole fragment, so a sequence that
//     needs hundreds of node moves through a valley of the energy
//     (splitting a wrongly merged cluster, moving a large part of one into
//     a neighbour) needs only a few, and costs a fraction. The fragments of
//     a finer level stay inside one cluster, since coarse moves carry whole
//     fragments of the level above.
//  3. When the coarse levels lowered the energy, run KLj on the nodes again.
//
// The result is returned only when it lowers the energy. solve is KLj's
// search on a fragment graph with every sequence run to its end; refine is
// KLj's search on the nodes (phases 1 and 2), both from a labelling.
func multilevel(g *Graph, labels []int, levels []int, solve func(*Graph, []int) []int, refine func([]int) []int) []int {
	graphs := []*Graph{g}
	var frags [][]int
	lab := labels
	for _, maxSize := range levels {
		cur := graphs[len(graphs)-1]
		frag := gaecWithin(cur, lab, maxSize)
		k := 0
		for _, f := range frag {
			k = max(k, f+1)
		}
		if k == cur.N || k == NumClusters(lab) {
			break // nothing contracted, or fragments are the clusters
		}
		cl := make([]int, k)
		for v, f := range frag {
			cl[f] = lab[v]
		}
		graphs = append(graphs, fragmentGraph(cur, frag, k))
		frags = append(frags, frag)
		lab = cl
	}
	if len(frags) == 0 {
		return labels
	}
	e0 := Energy(g, labels)
	for i := len(frags) - 1; i >= 0; i-- {
		lab = solve(graphs[i+1], lab)
		fine := make([]int, graphs[i].N)
		for v, f := range frags[i] {
			fine[v] = lab[f]
		}
		lab = fine
	}
	if Energy(g, lab) >= e0-klEps {
		return labels
	}
	lab = refine(lab)
	if Energy(g, lab) >= e0-klEps {
		return labels
	}
	return lab
}

// fragmentGraph contracts each fragment (labels 0..k-1 of frag) to a node:
// parallel edges are summed, and the result is regular when one of them is.
func fragmentGraph(g *Graph, frag []int, k int) *Graph {
	type keyed struct {
		key  uint64
		cost float64
		reg  bool
	}
	es := make([]keyed, 0, len(g.Edges))
	for _, e := range g.Edges {
		a, b := frag[e.U], frag[e.V]
		if a == b {
			continue
		}
		if a > b {
			a, b = b, a
		}
		es = append(es, keyed{uint64(a)<<32 | uint64(b), e.Cost, !e.Lifted})
	}
	slices.SortFunc(es, func(x, y keyed) int {
		switch {
		case x.key < y.key:
			return -1
		case x.key > y.key:
			return 1
		}
		return 0
	})
	cg := &Graph{N: k}
	for i := 0; i < len(es); {
		j, c, reg := i, 0.0, false
		for ; j < len(es) && es[j].key == es[i].key; j++ {
			c += es[j].cost
			reg = reg || es[j].reg
		}
		cg.Edges = append(cg.Edges, Edge{U: int(es[i].key >> 32), V: int(uint32(es[i].key)), Cost: c, Lifted: !reg})
		i = j
	}
	return cg
}

package multicut

import (
	"math/bits"
	"slices"
)

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
//  1. Coarsen: split every cluster into fragments of at most levels[0]
//     nodes by sorted heavy-edge matching on the edges inside the cluster
//     (matchFragments). A fragment is connected through E and lies inside
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
// KLj's search on the nodes (phases 1 and 2), both from a labelling; adj is
// g's adjacency, the one KLj's search already holds.
func multilevel(g *Graph, adj adjacency, labels []int, levels []int, solve func(*Graph, []int) []int, refine func([]int) []int) []int {
	graphs := []*Graph{g}
	var frags [][]int
	lab := labels
	for l, maxSize := range levels {
		cur := graphs[len(graphs)-1]
		if l > 0 {
			adj = buildAdjacency(cur)
		}
		frag := matchFragments(adj, lab, maxSize)
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
// The edges are bucketed by their smaller fragment (a counting sort) and
// summed per bucket in a scratch array indexed by the other fragment, so
// it runs in O(|E| + |F| + k); they come out ordered by (smaller, larger)
// fragment.
func fragmentGraph(g *Graph, frag []int, k int) *Graph {
	type half struct {
		b    int32
		reg  bool
		cost float64
	}
	start := make([]int32, k+1)
	for _, e := range g.Edges {
		if a, b := frag[e.U], frag[e.V]; a != b {
			start[min(a, b)+1]++
		}
	}
	for a := 0; a < k; a++ {
		start[a+1] += start[a]
	}
	hs := make([]half, start[k])
	fill := slices.Clone(start[:k])
	for _, e := range g.Edges {
		a, b := frag[e.U], frag[e.V]
		if a == b {
			continue
		}
		if a > b {
			a, b = b, a
		}
		hs[fill[a]] = half{int32(b), !e.Lifted, e.Cost}
		fill[a]++
	}
	sum := make([]float64, k)
	reg := make([]bool, k)
	seen := make([]int32, k)
	for i := range seen {
		seen[i] = -1
	}
	var touched []int32
	cg := &Graph{N: k}
	for a := 0; a < k; a++ {
		touched = touched[:0]
		for _, h := range hs[start[a]:start[a+1]] {
			if seen[h.b] != int32(a) {
				seen[h.b], sum[h.b], reg[h.b] = int32(a), 0, false
				touched = append(touched, h.b)
			}
			sum[h.b] += h.cost
			reg[h.b] = reg[h.b] || h.reg
		}
		slices.Sort(touched)
		for _, b := range touched {
			cg.Edges = append(cg.Edges, Edge{U: a, V: int(b), Cost: sum[b], Lifted: !reg[b]})
		}
	}
	return cg
}

// matchFragments splits every cluster of within into fragments of at most
// maxSize nodes, each connected through E, by sorted heavy-edge matching:
// the coarsening of multilevel graph partitioning (Karypis & Kumar, SIAM
// J. Sci. Comput. 20(1), 1998, Sec. 3: heavy-edge matching), greedy in the
// order of GAEC. Starting from single nodes, each of ⌈log₂ maxSize⌉ rounds
// pairs fragments of the same cluster: with
//
//	c_ST = Σ_{u∈S, v∈T} c_uv   (over E ∪ F; S and T contractible iff some uv ∈ E)
//
// every fragment S gets its best partner, the contractible fragment T of
// largest c_ST > 0 (ties to the smaller id) with |S| + |T| ≤ maxSize; the
// fragments are visited by decreasing c_ST, and each one still unmatched
// in the round merges with its best partner among those still unmatched.
// Fragments unmatched so far are unchanged in the round, and so are S's
// sums to them, so the best partner found at the start stands unless it
// was matched meanwhile; only then is it looked for again.
//
// a is the graph's adjacency (buildAdjacency); its arcs between clusters
// are skipped. A round reads every edge at most twice (sums to the
// neighbouring fragments in a scratch array indexed by fragment), so the
// coarsening costs O(|E| + |F|) per round and needs neither GAEC's
// priority queue nor its table of cluster pairs. On the 20 DAVIS
// development graphs (scripts/klj-eval.sh) it takes a third of the time
// of GAEC restricted to the clusters with the same size bound, and KLj
// still ends at or below andres/graph's energy on all 20.
// Fragment labels are canonical.
func matchFragments(a adjacency, within []int, maxSize int) []int {
	fr := newFragmenter(a, within, maxSize)
	for r := int32(1); int(r) <= bits.Len(uint(maxSize-1)); r++ {
		if !fr.round(r) {
			break
		}
	}
	return fr.labels()
}

// fragmenter is the state of matchFragments. A fragment is named by its
// first node (root) and lists its members through next (−1 ends the list);
// last is a root's last member.
type fragmenter struct {
	a       adjacency
	within  []int
	maxSize int
	frag    []int32
	next    []int32
	last    []int32
	// Per root: its size and the last round (1-based) it was matched in,
	// side by side since the search for a partner reads both.
	root []rootState
	// Scratch sums to the neighbouring fragments, valid where seen is the
	// current stamp.
	sums    []fragSum
	touched []int32
	stamp   int32
	order   []fragCandidate
}

type rootState struct{ size, round int32 }

type fragSum struct {
	sum  float64
	seen int32
	reg  bool
}

// fragCandidate is fragment f's best partner h in a round, with c_fh.
type fragCandidate struct {
	f, h int32
	c    float64
}

// newFragmenter starts from single nodes.
func newFragmenter(a adjacency, within []int, maxSize int) *fragmenter {
	n := len(a.off) - 1
	fr := &fragmenter{a: a, within: within, maxSize: maxSize,
		frag: make([]int32, n), next: make([]int32, n), last: make([]int32, n), root: make([]rootState, n), sums: make([]fragSum, n)}
	for v := range fr.frag {
		fr.frag[v], fr.next[v], fr.last[v], fr.root[v] = int32(v), -1, int32(v), rootState{1, 0}
	}
	for i := range fr.sums {
		fr.sums[i].seen = -1
	}
	return fr
}

// round runs round r: every fragment's best partner, then the merges by
// decreasing c_fh. It returns false when no fragment has a partner.
func (fr *fragmenter) round(r int32) bool {
	fr.order = fr.order[:0]
	for f := int32(0); f < int32(len(fr.frag)); f++ {
		if fr.frag[f] == f {
			if h, c := fr.partner(f, r); h >= 0 {
				fr.order = append(fr.order, fragCandidate{f, h, c})
			}
		}
	}
	if len(fr.order) == 0 {
		return false
	}
	slices.SortFunc(fr.order, func(x, y fragCandidate) int {
		switch {
		case x.c > y.c:
			return -1
		case x.c < y.c:
			return 1
		}
		return int(x.f - y.f)
	})
	for _, o := range fr.order {
		f, h := o.f, o.h
		if fr.root[f].round == r {
			continue
		}
		if fr.root[h].round == r {
			if h, _ = fr.partner(f, r); h < 0 {
				continue
			}
		}
		fr.merge(f, h, r)
	}
	return true
}

// merge appends fragment h to fragment f, both matched in round r.
func (fr *fragmenter) merge(f, h, r int32) {
	for u := h; u >= 0; u = fr.next[u] {
		fr.frag[u] = f
	}
	fr.next[fr.last[f]] = h
	fr.last[f] = fr.last[h]
	fr.root[f].size += fr.root[h].size
	fr.root[f].round, fr.root[h].round = r, r
}

// partner returns f's best partner among the fragments not matched in
// round r, and c_fh; −1 when there is none.
func (fr *fragmenter) partner(f, r int32) (int32, float64) {
	best, bestSum := int32(-1), 0.0
	eligible := func(h int32, c float64, reg bool) {
		if !reg || c <= 0 || fr.root[h].round == r || int(fr.root[f].size+fr.root[h].size) > fr.maxSize {
			return
		}
		if best < 0 || c > bestSum || c == bestSum && h < best {
			best, bestSum = h, c
		}
	}
	a := fr.a
	if r == 1 {
		// Single nodes: no parallel arcs, so every arc is a pair.
		cl := fr.within[f]
		for k := a.off[f]; k < a.off[f+1]; k++ {
			if v := a.nbr[k]; fr.within[v] == cl {
				eligible(v, a.cost[k], a.reg[k])
			}
		}
		return best, bestSum
	}
	fr.sumNeighbours(f)
	for _, h := range fr.touched {
		eligible(h, fr.sums[h].sum, fr.sums[h].reg)
	}
	return best, bestSum
}

// sumNeighbours sums the arcs of fragment f to every other fragment of its
// cluster into sums (listed in touched), and whether one of them is in E.
func (fr *fragmenter) sumNeighbours(f int32) {
	a, cl := fr.a, fr.within[f]
	fr.touched = fr.touched[:0]
	for u := f; u >= 0; u = fr.next[u] {
		for k := a.off[u]; k < a.off[u+1]; k++ {
			v := a.nbr[k]
			h := fr.frag[v]
			if h == f || fr.within[v] != cl {
				continue
			}
			x := &fr.sums[h]
			if x.seen != fr.stamp {
				*x = fragSum{0, fr.stamp, false}
				fr.touched = append(fr.touched, h)
			}
			x.sum += a.cost[k]
			x.reg = x.reg || a.reg[k]
		}
	}
	fr.stamp++
}

// labels numbers the fragments 0, 1, … in order of their first node.
func (fr *fragmenter) labels() []int {
	n := len(fr.frag)
	id := make([]int32, n)
	for i := range id {
		id[i] = -1
	}
	out := make([]int, n)
	k := int32(0)
	for v := range out {
		if f := fr.frag[v]; id[f] < 0 {
			id[f] = k
			k++
		}
		out[v] = int(id[fr.frag[v]])
	}
	return out
}

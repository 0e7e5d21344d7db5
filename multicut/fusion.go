package multicut

import "slices"

// The last stage of KLj: two large-neighbourhood moves that reach
// rearrangements of several clusters at once (a handful of neighbouring
// clusters regrouped into a different number of clusters), which neither a
// Kernighan–Lin sequence between two clusters nor the multilevel refinement
// finds. Both only ever lower the energy.

// ThoroughNeighbourhood and ThoroughFusions are the settings of KLj's
// thorough mode (`densify multicut --thorough`), with VCycles = 2: on the 20
// DAVIS development graphs it ends below andres/graph's KLj on every one, at
// about 2–4 times the time of the default.
const (
	ThoroughNeighbourhood = 2000
	ThoroughFusions       = 2
)

// fusionNoise is the relative perturbation of the edge costs from which a
// fusion proposal is built: each cost is multiplied by 1 + u, u uniform in
// [−fusionNoise, fusionNoise].
const fusionNoise = 0.2

// neighbourhoods re-solves, for clusters C of labels (feasible), the
// subproblem on C and the clusters joined to it by a regular edge, when they
// hold at most maxSize nodes together (large neighbourhood search; Shaw,
// CP 1998; Ahuja et al., Discrete Appl. Math. 123, 2002): GAEC and KLj's
// node-level search on the subgraph they induce, from singletons, so the
// proposal does not depend on the current grouping. The proposal replaces
// the neighbourhood's labelling when it has lower energy on the subgraph.
//
// That is the energy change on the whole graph: an edge from the
// neighbourhood U to a node w outside joins two different clusters before
// and after (w's cluster is not in U), so it is cut either way. The
// proposal's clusters are connected through regular edges inside U, so
// the result is feasible, lifted edges included.
//
// Centres are taken largest cluster first, and a cluster that already was
// part of a re-solved neighbourhood is not a centre again: every cluster is
// re-solved with its neighbours at least once, and a graph of thousands of
// small clusters does not re-solve each one's neighbourhood. Returns a
// labelling that is canonical, and better than labels or equal to it.
func neighbourhoods(g *Graph, labels []int, maxSize, maxStall, fullSweep, maxIter int) []int {
	lab := slices.Clone(labels)
	adj := buildAdjacency(g)
	k := NumClusters(lab)
	members := make([][]int32, k, 2*k)
	for v, l := range lab {
		members[l] = append(members[l], int32(v))
	}
	seen := make([]int, k, 2*k) // cluster → 1 + index of the last neighbourhood it joined
	loc := make([]int32, g.N)   // node → index in U, −1 outside
	for i := range loc {
		loc[i] = -1
	}
	covered := make([]bool, k, 2*k)
	order := make([]int, k)
	for c := range order {
		order[c] = c
	}
	slices.SortStableFunc(order, func(x, y int) int { return len(members[y]) - len(members[x]) })
	var U []int32
	var nb []int
	for _, c := range order {
		if len(members[c]) == 0 || covered[c] {
			continue
		}
		nb = append(nb[:0], c)
		seen[c] = c + 1
		size := len(members[c])
		for _, v := range members[c] {
			for j := adj.off[v]; j < adj.off[v+1]; j++ {
				if l := lab[adj.nbr[j]]; adj.reg[j] && seen[l] != c+1 {
					seen[l] = c + 1
					nb = append(nb, l)
					size += len(members[l])
				}
			}
		}
		if len(nb) < 2 || size > maxSize {
			continue
		}
		for _, l := range nb {
			covered[l] = true
		}
		U = U[:0]
		for _, l := range nb {
			U = append(U, members[l]...)
		}
		for i, v := range U {
			loc[v] = int32(i)
		}
		sub := &Graph{N: len(U)}
		cur := make([]int, len(U))
		curE := 0.0
		for i, v := range U {
			cur[i] = lab[v]
			for j := adj.off[v]; j < adj.off[v+1]; j++ {
				w := adj.nbr[j]
				if w <= v || loc[w] < 0 {
					continue
				}
				sub.Edges = append(sub.Edges, Edge{U: i, V: int(loc[w]), Cost: adj.cost[j], Lifted: !adj.reg[j]})
				if lab[w] != lab[v] {
					curE += adj.cost[j]
				}
			}
		}
		for _, v := range U {
			loc[v] = -1
		}
		st := gaec(sub)
		p := newKL(sub, st, maxStall, fullSweep).search(st, maxIter, nil)
		if Energy(sub, p) >= curE-klEps {
			continue
		}
		base := len(members)
		for _, l := range nb {
			members[l] = nil
		}
		for range NumClusters(p) {
			members = append(members, nil)
			seen = append(seen, 0)
			covered = append(covered, true)
		}
		for i, v := range U {
			lab[v] = base + p[i]
			members[lab[v]] = append(members[lab[v]], v)
		}
	}
	return Canonical(lab)
}

// fuse returns the fusion of the feasible labellings a and b (Beier,
// Hamprecht, Kappes, "Fusion moves for correlation clustering", CVPR 2015;
// Beier, Andres, Köthe, Hamprecht, ECCV 2016, for the lifted multicut): the
// multicut problem restricted to unions of the fragments that both
// labellings agree on. A fragment is a connected component, through regular
// edges, of the nodes that a and b both put in one cluster; contracting the
// fragments (fragmentGraph) leaves a graph on which a and b are both
// feasible labellings with their own energies, and KLj's search on it (every
// sequence to its end) from the better of the two returns a labelling no
// worse than either. It can combine the better parts of both.
func fuse(g *Graph, a, b []int, fullSweep, maxIter int) []int {
	if Energy(g, b) < Energy(g, a) {
		a, b = b, a
	}
	ka := NumClusters(a)
	// fragments: the clusters of the meet of a and b (canonical labels, so
	// a[v]·kb + b[v] names the pair), split through E
	kb := NumClusters(b)
	meet := make([]int, g.N)
	for v := range meet {
		meet[v] = a[v]*kb + b[v]
	}
	frag := ConnectedParts(g, meet)
	k := NumClusters(frag)
	if k == ka {
		return a // a's clusters are the fragments: nothing to fuse
	}
	cl := make([]int, k)
	for v, f := range frag {
		cl[f] = a[v]
	}
	cl = Canonical(cl)
	cg := fragmentGraph(g, frag, k)
	lab := newKL(cg, cl, -1, fullSweep).search(cl, maxIter, nil)
	out := make([]int, g.N)
	for v, f := range frag {
		out[v] = lab[f]
	}
	return Canonical(out)
}

// proposal is a fusion proposal: GAEC on the costs perturbed by rng, then
// KLj's node-level search on the true costs. It is a different local
// optimum of similar quality, which fuse combines with the incumbent.
func proposal(g *Graph, rng *splitMix, maxStall, fullSweep, maxIter int) []int {
	h := &Graph{N: g.N, Edges: slices.Clone(g.Edges)}
	for i := range h.Edges {
		h.Edges[i].Cost *= 1 + fusionNoise*(2*rng.float()-1)
	}
	st := gaec(h)
	return newKL(g, st, maxStall, fullSweep).search(st, maxIter, nil)
}

// splitMix is the SplitMix64 generator (Steele, Lea, Flood, OOPSLA 2014):
// small, fast and fully determined by its seed, so KLj's results are
// reproducible.
type splitMix struct{ x uint64 }

func (r *splitMix) next() uint64 {
	r.x += 0x9e3779b97f4a7c15
	z := r.x
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// float returns a uniform number in [0, 1).
func (r *splitMix) float() float64 { return float64(r.next()>>11) / (1 << 53) }

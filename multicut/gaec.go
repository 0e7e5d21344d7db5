package multicut

import "slices"

// GAEC computes a feasible lifted multicut by greedy additive edge contraction
// (Keuper, Andres, Brox ICCV'15; Keuper et al. "Efficient decomposition of
// image and mesh graphs by lifted multicuts", ICCV'15, Sec. 4.1).
//
// Start with singletons. The cluster graph holds, for each pair of clusters
// (A, B) joined by any edge of E ∪ F, the summed cost c_AB = Σ_{u∈A, v∈B} c_uv
// and whether at least one original regular edge (E) joins them. Repeatedly
// contract the contractible pair (one with a regular edge) of largest positive
// c_AB: the two clusters merge, and the edges to common neighbours are summed
// (a lifted pair that becomes adjacent through E on contraction thus becomes
// contractible). Stop when no contractible pair has positive cost. Every
// cluster stays connected in G because only regular-adjacent clusters merge.
//
// The priority queue is indexed by edge (gainHeap): a summed edge's key
// changes in place, and a merged-away edge leaves it. The cluster graph is
// an adjacency list per cluster (neighbour, edge); a contraction walks the
// smaller list and looks each neighbour up: in the survivor's original
// list, sorted by neighbour (an original edge stays the edge of the pair of
// its ends' clusters while both ends represent them), and else in one hash
// table of the pairs that contractions created (pairTable), so the run
// time is O((|E|+|F|) log(|E|+|F|)). Lists and table keep the entries of
// clusters that were merged away: a cluster id that was merged away never
// comes back, so they are skipped when met. (Go maps per cluster, the
// first version, spent most of GAEC's time inserting; the table is one
// flat array, and leaving the original pairs out of it takes 3–15 % off
// GAEC's time on the DAVIS development graphs.)
// The result has canonical labels.
func GAEC(g *Graph) ([]int, error) {
	if err := g.Validate(); err != nil {
		return nil, err
	}
	return gaec(g), nil
}

func gaec(g *Graph) []int {
	n := g.N
	m := len(g.Edges)
	cost := make([]float64, m)
	reg := make([]bool, m)
	end := make([][2]int32, m)
	// Initial lists in one flat array; each list's capacity ends at its
	// own part, so an append moves it out instead of overwriting the next.
	deg := make([]int32, n+1)
	for _, e := range g.Edges {
		deg[e.U+1]++
		deg[e.V+1]++
	}
	for v := 0; v < n; v++ {
		deg[v+1] += deg[v]
	}
	flat := make([]nbrEdge, deg[n])
	adj := make([][]nbrEdge, n)
	for v := range adj {
		adj[v] = flat[deg[v]:deg[v]:deg[v+1]]
	}
	pairs := newPairTable(n)
	h := newGainHeap(m)
	for i, e := range g.Edges {
		u, v := int32(e.U), int32(e.V)
		cost[i] = e.Cost
		reg[i] = !e.Lifted
		end[i] = [2]int32{u, v}
		adj[u] = append(adj[u], nbrEdge{v, int32(i)})
		adj[v] = append(adj[v], nbrEdge{u, int32(i)})
		if reg[i] && cost[i] > 0 {
			h.e = append(h.e, gainEntry{cost[i], int32(i)})
		}
	}
	h.heapify()
	// Each node's original list, sorted by neighbour, answers for the
	// pairs of clusters that an original edge joins (their representatives
	// are the edge's ends, and the edge stays theirs); the pair table
	// holds only the pairs that contractions create. Edges sorted by
	// (U, V), as densify writes them, leave every list sorted already.
	for v := 0; v < n; v++ {
		l := flat[deg[v]:deg[v+1]]
		if !slices.IsSortedFunc(l, byNbr) {
			slices.SortFunc(l, byNbr)
		}
	}
	pair := func(a, b int32) (int32, bool) {
		l := flat[deg[a]:deg[a+1]]
		if i, ok := slices.BinarySearchFunc(l, b, func(x nbrEdge, t int32) int { return int(x.nbr - t) }); ok {
			return l[i].edge, true
		}
		return pairs.get(a, b)
	}
	parent := make([]int32, n)
	for i := range parent {
		parent[i] = int32(i)
	}
	for h.len() > 0 {
		e := h.pop().id
		a, b := end[e][0], end[e][1]
		// Survivor s keeps the longer list.
		s, o := a, b
		if len(adj[s]) < len(adj[o]) {
			s, o = o, s
		}
		parent[o] = s
		for _, x := range adj[o] {
			nb, eo := x.nbr, x.edge
			if nb == s || parent[nb] != nb {
				continue
			}
			if es, ok := pair(s, nb); ok {
				h.remove(eo)
				cost[es] += cost[eo]
				reg[es] = reg[es] || reg[eo]
				if reg[es] && cost[es] > 0 {
					h.set(es, cost[es])
				} else {
					h.remove(es)
				}
			} else {
				adj[s] = append(adj[s], nbrEdge{nb, eo})
				adj[nb] = append(adj[nb], nbrEdge{s, eo})
				pairs.put(s, nb, eo)
				end[eo] = [2]int32{s, nb}
			}
		}
		adj[o] = nil
	}
	labels := make([]int, n)
	for v := range labels {
		r := int32(v)
		for parent[r] != r {
			r = parent[r]
		}
		// Path compression keeps later lookups short.
		x := int32(v)
		for parent[x] != r {
			x, parent[x] = parent[x], r
		}
		labels[v] = int(r)
	}
	return Canonical(labels)
}

// nbrEdge is an entry of GAEC's adjacency lists: a neighbouring cluster and
// the edge of the cluster graph that joins them.
type nbrEdge struct{ nbr, edge int32 }

func byNbr(x, y nbrEdge) int { return int(x.nbr - y.nbr) }

// pairTable maps an unordered pair of node ids to an edge id: open
// addressing with linear probing in one flat array, sized to at most half
// full. Entries are never deleted (GAEC skips pairs of merged-away
// clusters, which are never looked up again).
type pairTable struct {
	slots []pairSlot
	count int
	shift uint
}

// pairSlot is one entry of pairTable; key and value side by side, so that
// a probe touches one cache line.
type pairSlot struct {
	key uint64 // packed pair, emptyPair when free
	val int32
}

const emptyPair = ^uint64(0)

func newPairTable(n int) *pairTable {
	t := &pairTable{}
	t.alloc(max(16, 2*n))
	return t
}

// alloc makes the table empty with a power-of-two capacity ≥ want.
func (t *pairTable) alloc(want int) {
	bits := uint(4)
	for 1<<bits < want {
		bits++
	}
	t.slots = make([]pairSlot, 1<<bits)
	for i := range t.slots {
		t.slots[i].key = emptyPair
	}
	t.count = 0
	t.shift = 64 - bits
}

func pairKey(u, v int32) uint64 {
	if u > v {
		u, v = v, u
	}
	return uint64(uint32(u))<<32 | uint64(uint32(v))
}

// slot is the first probe position of key (Fibonacci hashing).
func (t *pairTable) slot(key uint64) int {
	return int((key * 0x9E3779B97F4A7C15) >> t.shift)
}

// get returns the edge of pair {u, v}, if present.
func (t *pairTable) get(u, v int32) (int32, bool) {
	key := pairKey(u, v)
	mask := len(t.slots) - 1
	for i := t.slot(key); ; i = (i + 1) & mask {
		switch t.slots[i].key {
		case key:
			return t.slots[i].val, true
		case emptyPair:
			return 0, false
		}
	}
}

// put sets the edge of pair {u, v}, which is not in the table.
func (t *pairTable) put(u, v int32, e int32) {
	if 2*(t.count+1) > len(t.slots) {
		old := t.slots
		t.alloc(2 * len(old))
		for _, x := range old {
			if x.key != emptyPair {
				t.insert(x.key, x.val)
			}
		}
	}
	t.insert(pairKey(u, v), e)
}

func (t *pairTable) insert(key uint64, e int32) {
	mask := len(t.slots) - 1
	i := t.slot(key)
	for t.slots[i].key != emptyPair {
		i = (i + 1) & mask
	}
	t.slots[i] = pairSlot{key, e}
	t.count++
}

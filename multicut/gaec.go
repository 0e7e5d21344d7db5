package multicut

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
// changes in place, and a merged-away edge leaves it. Adjacency of the
// cluster graph is a map per cluster, merging the smaller map into the
// larger, so the run time is O((|E|+|F|) log(|E|+|F|)).
// The result has canonical labels.
func GAEC(g *Graph) ([]int, error) {
	if err := g.Validate(); err != nil {
		return nil, err
	}
	return gaec(g), nil
}

func gaec(g *Graph) []int { return gaecWithin(g, nil, 0) }

// gaecWithin is GAEC restricted to the edges inside the clusters of within
// (nil: all edges) that never forms a cluster of more than maxSize nodes
// (0: no bound). With both it returns fragments of the clusters of within,
// each connected through E, for KLj's multilevel refinement.
func gaecWithin(g *Graph, within []int, maxSize int) []int {
	n := g.N
	m := len(g.Edges)
	cost := make([]float64, m)
	reg := make([]bool, m)
	end := make([][2]int32, m)
	// Degree-sized maps avoid rehashing while building.
	deg := make([]int32, n)
	for _, e := range g.Edges {
		deg[e.U]++
		deg[e.V]++
	}
	adj := make([]map[int32]int32, n)
	for v := range adj {
		if deg[v] > 0 {
			adj[v] = make(map[int32]int32, deg[v])
		}
	}
	h := newGainHeap(m)
	for i, e := range g.Edges {
		if within != nil && within[e.U] != within[e.V] {
			continue
		}
		cost[i] = e.Cost
		reg[i] = !e.Lifted
		end[i] = [2]int32{int32(e.U), int32(e.V)}
		adj[e.U][int32(e.V)] = int32(i)
		adj[e.V][int32(e.U)] = int32(i)
		if reg[i] && cost[i] > 0 {
			h.e = append(h.e, gainEntry{cost[i], int32(i)})
		}
	}
	h.heapify()
	parent := make([]int32, n)
	size := make([]int32, n)
	for i := range parent {
		parent[i] = int32(i)
		size[i] = 1
	}
	for h.len() > 0 {
		e := h.pop().id
		a, b := end[e][0], end[e][1]
		if maxSize > 0 && int(size[a]+size[b]) > maxSize {
			continue // stays in the cluster graph, never contracted
		}
		// Survivor s keeps the larger adjacency map.
		s, o := a, b
		if len(adj[s]) < len(adj[o]) {
			s, o = o, s
		}
		// Entries for merged-away clusters are left in the maps (deleting
		// from Go maps dominated GAEC's time) and skipped here: a cluster
		// id that was merged away never comes back.
		for nb, eo := range adj[o] {
			if nb == s || parent[nb] != nb {
				continue
			}
			if es, ok := adj[s][nb]; ok {
				h.remove(eo)
				cost[es] += cost[eo]
				reg[es] = reg[es] || reg[eo]
				if reg[es] && cost[es] > 0 && (maxSize == 0 || int(size[s]+size[o]+size[nb]) <= maxSize) {
					h.set(es, cost[es])
				} else {
					h.remove(es)
				}
			} else {
				adj[s][nb] = eo
				adj[nb][s] = eo
				end[eo] = [2]int32{s, nb}
			}
		}
		adj[o] = nil
		parent[o] = s
		size[s] += size[o]
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

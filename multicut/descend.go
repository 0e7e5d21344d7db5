package multicut

// DescendTolerance is the least energy decrease for which Descend moves a
// node: moves that change the energy by less (ties, rounding) are not made,
// so the descent cannot cycle.
const DescendTolerance = 1e-9

// Descend returns labels moved, one node at a time, to a local optimum of the
// multicut energy under single-node moves: no node v in cluster A has a
// cluster B ≠ A, reached from v through a regular edge, with
//
//	γ_B(v) = Σ_{u ∈ N(v) ∩ A} c_vu − Σ_{u ∈ N(v) ∩ B} c_vu < −DescendTolerance,
//
// γ_B(v) being the energy change of that move (lifted edges count in both
// sums). These are the moves whose cheapest γ_B is the node uncertainty of
// Kardoost & Keuper (UAI 2021, Eq. 10), so on the returned labelling every
// such margin is ≥ −DescendTolerance: the labelling is one whose
// uncertainty speaks of its own energy. Each move takes the most negative
// γ_B; the nodes next to a moved node are examined again.
//
// Without lifted edges a move that disconnects its former cluster changes
// nothing in the energy of that cluster's parts; the parts become clusters
// of their own (ConnectedParts) after the moves, and the moves are tried
// again, since a node next to two parts of one label may gain by joining one
// of them. With lifted edges, splitting a cluster cuts the lifted edges
// between its parts, so a move that would disconnect its former cluster
// through E is not made: the result is then a local optimum under the moves
// that keep the decomposition feasible, and a node whose only lowering move
// is such a move keeps γ < 0.
//
// KLj's own local search ((*kl).localMoves) is a different neighbourhood:
// it also moves nodes to new singletons and never disconnects a cluster,
// so a labelling it returns can keep γ < 0 at a node whose only lowering
// move would split its cluster; Descend makes that move when the split
// costs nothing.
//
// It returns canonical, feasible labels and the number of moves made; the
// energy never rises (every move lowers it by more than DescendTolerance, so
// the descent ends). The graph must be valid and labels a feasible
// decomposition with one label per node.
func Descend(g *Graph, labels []int) ([]int, int) {
	a := buildAdjacency(g)
	cur := Canonical(labels)
	_, lifted := g.Counts()
	total := 0
	for {
		moves := descendRound(a, cur, lifted > 0)
		total += moves
		next := ConnectedParts(g, cur)
		if moves == 0 && NumClusters(next) == NumClusters(cur) {
			return next, total
		}
		cur = next
	}
}

// descendRound makes single-node moves on labels in place until none lowers
// the energy by more than DescendTolerance and returns how many it made.
// With keepConnected, a move that would leave v's cluster disconnected
// through regular edges is not made.
func descendRound(a adjacency, labels []int, keepConnected bool) int {
	n := len(labels)
	size := map[int]int{}
	for _, l := range labels {
		size[l]++
	}
	var seen []int32 // connectivity check: the visit mark of each node
	if keepConnected {
		seen = make([]int32, n)
	}
	visit := int32(0)
	queued := make([]bool, n)
	queue := make([]int32, n)
	for v := range queue {
		queue[v] = int32(v)
		queued[v] = true
	}
	sums := map[int]float64{} // cluster → Σ c_vu over v's edges into it
	regular := map[int]bool{} // clusters v reaches through a regular edge
	moves := 0
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		queued[v] = false
		clear(sums)
		clear(regular)
		own := labels[v]
		for k := a.off[v]; k < a.off[v+1]; k++ {
			l := labels[a.nbr[k]]
			sums[l] += a.cost[k]
			if a.reg[k] {
				regular[l] = true
			}
		}
		best, to := -DescendTolerance, -1
		for l := range regular {
			if l == own {
				continue
			}
			// γ_B = s_A − s_B; ties go to the smaller label, so the result
			// does not depend on the map's order
			if d := sums[own] - sums[l]; d < best || (d == best && to >= 0 && l < to) {
				best, to = d, l
			}
		}
		if to < 0 {
			continue
		}
		if keepConnected && size[own] > 1 {
			visit++
			if !connectedWithout(a, labels, v, size[own]-1, seen, visit) {
				continue
			}
		}
		labels[v] = to
		size[own]--
		size[to]++
		moves++
		for k := a.off[v]; k < a.off[v+1]; k++ {
			if u := a.nbr[k]; !queued[u] {
				queued[u] = true
				queue = append(queue, u)
			}
		}
	}
	return moves
}

// connectedWithout reports whether the other want nodes of v's cluster stay
// connected through regular edges without v: a search from one of v's
// regular neighbours in the cluster, marking nodes with mark.
func connectedWithout(a adjacency, labels []int, v int32, want int, seen []int32, mark int32) bool {
	own := labels[v]
	var stack []int32
	for k := a.off[v]; k < a.off[v+1]; k++ {
		if u := a.nbr[k]; a.reg[k] && labels[u] == own {
			stack = append(stack, u)
			seen[u] = mark
			break
		}
	}
	seen[v] = mark
	reached := len(stack)
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for k := a.off[x]; k < a.off[x+1]; k++ {
			if u := a.nbr[k]; a.reg[k] && seen[u] != mark && labels[u] == own {
				seen[u] = mark
				reached++
				stack = append(stack, u)
			}
		}
	}
	return reached == want
}

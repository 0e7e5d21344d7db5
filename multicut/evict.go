package multicut

import (
	"math"
	"slices"
)

// DefaultJoinEvict is the default size bound of the small clusters that
// KLj's join-and-evict moves join into a neighbour (KLjOptions.JoinEvict).
const DefaultJoinEvict = 16

// joinEvictLen bounds the evictions that follow one join.
const joinEvictLen = 4

// newSingleton is the target of an eviction to a new cluster of its own.
const newSingleton = math.MinInt32

// joinEvictMoves tries, for every cluster C of at most maxSize nodes and
// every cluster D it has a regular edge to, the compound move "join C into
// D, then evict up to joinEvictLen nodes of the union M = C ∪ D to other
// clusters": a one-sided Kernighan–Lin sequence after the join. Its first
// step is the join, with gain g_J = Σ_{u∈C, w∈D} c_uw (over E ∪ F); each
// further step moves the node v of M, with the target T, of largest gain
// d_v = Σ_{w∈T} c_vw − Σ_{w∈M, w≠v} c_vw under the moves made so far, where
// T is a cluster that v has a regular edge to (possibly through nodes
// evicted before it) or a new singleton. Candidates are the nodes of M with
// an edge to C (the join changed their gains) and, after each eviction,
// the nodes of M with an edge to the evicted node. The best prefix with at
// least one eviction is applied when it lowers the energy, checked exactly
// with M split into its connected components (net of the lifted edges this
// cuts). It returns the decrease of the objective.
//
// Why: a join that costs energy can pay once a node of the larger cluster
// that repels the small one has left; neither step alone lowers the
// energy, so the node moves, the pair sequences (which compare a join with
// moves between the same two clusters, never both) and the group moves
// miss it. In five nodes (TestJoinEvictHandComputed): A = {a1, a2, p},
// C = {c} and Q = {q}; c is held by a1 and a2 (cost 1.25 each) and repels
// p (−3.5), p is held by a1 and a2 (2 each) and by q (3), and q repels a1
// (−4). Joining C into A uncuts c's three edges and raises the energy by
// 3.5 − 2.5 = 1; moving p alone to Q raises it by 2 + 2 − 3 = 1; after the
// join p's pull to A is 2 + 2 − 3.5 = 0.5, and its move to Q lowers the
// energy by 3 − 0.5 = 2.5, so the compound move lowers it by 1.5, from −2
// to the optimum −3.5.
func (s *kl) joinEvictMoves(maxSize int) float64 {
	ad := &s.adj
	total := 0.0
	var small []int32
	for c, m := range s.members {
		if len(m) > 0 && len(m) <= maxSize {
			small = append(small, int32(c))
		}
	}
	var targets []int32
	for _, c := range small {
		if len(s.members[c]) == 0 || len(s.members[c]) > maxSize {
			continue // changed by an earlier move of this pass
		}
		ver := s.ver[c]
		targets = targets[:0]
		for _, u := range s.members[c] {
			for k := ad.off[u]; k < ad.off[u+1]; k++ {
				if l := s.label[ad.nbr[k]]; ad.reg[k] && l != c && !slices.Contains(targets, l) {
					targets = append(targets, l)
				}
			}
		}
		for _, d := range targets {
			if s.ver[c] != ver {
				break
			}
			if len(s.members[d]) == 0 {
				continue
			}
			total += s.joinEvict(c, d)
		}
	}
	return total
}

// evictMove is one eviction of a join-and-evict sequence: node v to cluster
// to (to < 0: the new singleton −1 − u of an evicted node u).
type evictMove struct {
	v, to int32
	gain  float64
}

// joinEvict runs the join-and-evict sequence of clusters c and d (see
// joinEvictMoves) and applies its best prefix when that lowers the energy.
func (s *kl) joinEvict(c, d int32) float64 {
	ad := &s.adj
	// Virtual labels: nodes of c count as d; evicted nodes count as their
	// target (a new singleton: −1 − its node id).
	evicted := map[int32]int32{}
	vlabel := func(w int32) int32 {
		if t, ok := evicted[w]; ok {
			return t
		}
		if l := s.label[w]; l != c {
			return l
		}
		return d
	}
	gJ, absSum := 0.0, 0.0
	var cand []int32 // in order of first reach, for determinism
	inCand := map[int32]bool{}
	addCand := func(v int32) {
		if !inCand[v] {
			inCand[v] = true
			cand = append(cand, v)
		}
	}
	for _, u := range s.members[c] {
		addCand(u)
		for k := ad.off[u]; k < ad.off[u+1]; k++ {
			w := ad.nbr[k]
			if s.label[w] == d {
				gJ += ad.cost[k]
				absSum += math.Abs(ad.cost[k])
				addCand(w)
			}
		}
	}
	size := len(s.members[c]) + len(s.members[d])
	cum, best := gJ, math.Inf(-1)
	bestK := 0
	var moves []evictMove
	sums := map[int32]float64{}
	for len(moves) < joinEvictLen && len(moves) < size-1 {
		var pick evictMove
		found := false
		for _, v := range cand {
			if _, gone := evicted[v]; gone {
				continue
			}
			// Targets are the clusters v has a regular edge to; all of
			// v's edges to them, lifted ones too, count in their sums.
			clear(sums)
			inM := 0.0
			for k := ad.off[v]; k < ad.off[v+1]; k++ {
				if l := vlabel(ad.nbr[k]); l == d {
					inM += ad.cost[k]
				} else if ad.reg[k] {
					sums[l] += 0
				}
			}
			for k := ad.off[v]; k < ad.off[v+1]; k++ {
				if l := vlabel(ad.nbr[k]); l != d {
					if _, ok := sums[l]; ok {
						sums[l] += ad.cost[k]
					}
				}
			}
			try := func(to int32, g float64) {
				if !found || g > pick.gain || (g == pick.gain && (v < pick.v || (v == pick.v && to < pick.to))) {
					pick, found = evictMove{v, to, g}, true
				}
			}
			try(newSingleton, -inM)
			for l, sum := range sums {
				try(l, sum-inM)
			}
		}
		if !found {
			break
		}
		if pick.to == newSingleton {
			pick.to = -1 - pick.v
		}
		evicted[pick.v] = pick.to
		moves = append(moves, pick)
		cum += pick.gain
		absSum += math.Abs(pick.gain)
		if cum > best {
			best, bestK = cum, len(moves)
		}
		for k := ad.off[pick.v]; k < ad.off[pick.v+1]; k++ {
			if w := ad.nbr[k]; vlabel(w) == d {
				addCand(w)
			}
		}
	}
	if bestK == 0 || best <= klEps*max(1, absSum) {
		return 0
	}
	return s.applyJoinEvict(c, d, moves[:bestK])
}

// applyJoinEvict applies a join-and-evict prefix after checking it
// exactly: the union M of c and d, less the evicted nodes, is split into
// its connected components through E, and the change of the energy is
// computed over the edges of every node whose label changes. It returns
// the decrease of the objective (0 when none: nothing is applied).
func (s *kl) applyJoinEvict(c, d int32, moves []evictMove) float64 {
	ad := &s.adj
	newLabel := map[int32]int32{} // node → new label; fresh clusters: −1 − k
	for _, u := range s.members[c] {
		newLabel[u] = d
	}
	for _, m := range moves {
		newLabel[m.v] = m.to
	}
	lab := func(w int32) int32 {
		if l, ok := newLabel[w]; ok {
			return l
		}
		return s.label[w]
	}
	// Components of M without the evicted nodes: the first keeps d, the
	// others get fresh labels −1 − n − k.
	gen := s.nextGen()
	comps := 0
	var rest []int32
	for _, cl := range []int32{d, c} {
		rest = append(rest, s.members[cl]...)
	}
	for _, r := range rest {
		if lab(r) != d || s.mark[r] == gen {
			continue
		}
		id := d
		if comps > 0 {
			id = int32(-1 - s.n - comps)
		}
		comps++
		s.mark[r] = gen
		s.queue = append(s.queue[:0], r)
		for len(s.queue) > 0 {
			x := s.queue[len(s.queue)-1]
			s.queue = s.queue[:len(s.queue)-1]
			if id != d {
				newLabel[x] = id
			}
			for k := ad.off[x]; k < ad.off[x+1]; k++ {
				if y := ad.nbr[k]; ad.reg[k] && s.mark[y] != gen && lab(y) == d {
					s.mark[y] = gen
					s.queue = append(s.queue, y)
				}
			}
		}
	}
	// Exact change: every edge with an endpoint whose label changed,
	// counted once.
	delta, absSum := 0.0, 0.0
	changed := make([]int32, 0, len(newLabel))
	for v := range newLabel {
		changed = append(changed, v)
	}
	slices.Sort(changed)
	for _, v := range changed {
		nl, ol := newLabel[v], s.label[v]
		if nl == ol {
			continue
		}
		for k := ad.off[v]; k < ad.off[v+1]; k++ {
			w := ad.nbr[k]
			wn := lab(w)
			if on, ok := newLabel[w]; ok && on != s.label[w] && w < v {
				continue // counted from w
			}
			before := ol != s.label[w]
			after := nl != wn
			if before != after {
				if after {
					delta += ad.cost[k]
				} else {
					delta -= ad.cost[k]
				}
				absSum += math.Abs(ad.cost[k])
			}
		}
	}
	if -delta <= klEps*max(1, absSum) {
		return 0
	}
	// Nodes that join d move first: d must not run empty on the way (an
	// empty cluster's id is freed for reuse).
	order := make([]int32, 0, len(changed))
	for _, toD := range []bool{true, false} {
		for _, v := range changed {
			if (newLabel[v] == d) == toD {
				order = append(order, v)
			}
		}
	}
	fresh := map[int32]int32{}
	for _, v := range order {
		nl := newLabel[v]
		if nl == s.label[v] {
			continue
		}
		if nl < 0 {
			id, ok := fresh[nl]
			if !ok {
				id = s.allocID()
				fresh[nl] = id
			}
			nl = id
		}
		s.removeMember(v, s.label[v])
		s.addMember(v, nl)
	}
	return -delta
}

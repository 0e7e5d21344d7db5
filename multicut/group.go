package multicut

import (
	"math"
	"slices"
)

// DefaultGroupMoves is the default length bound of KLj's connected group
// moves (KLjOptions.GroupMoves). 32, not 16, because groups of at most 16
// miss the move of a few tens of trajectories from the background into the
// person's cluster that andres/graph's KLj makes on DAVIS paragliding-launch
// (β 0.1).
const DefaultGroupMoves = 32

// groupCover is the number of leading moves of a sequence that found nothing
// whose nodes do not start a sequence towards the same cluster again in the
// same pass: the sequence started there would begin with nearly the same
// moves.
const groupCover = 4

// groupMoves tries a connected group move from every node x that has a
// regular edge to another cluster d: a one-sided Kernighan–Lin sequence that
// moves x from its cluster a into d, then repeatedly the node of a with a
// regular edge to an already moved node whose move to d has the largest gain
// d_v = Σ_{w∈d} c_vw − Σ_{w∈a, w≠v} c_vw (over E ∪ F, under the moves made
// so far), for at most maxLen moves; the best prefix is applied when its gain
// is positive (net of the lifted edges cut if a falls apart, as in
// bipartition). It returns the decrease of the objective.
//
// Why: a KL sequence between two clusters starts with the node of largest
// gain anywhere on their common boundary, and a greedy sweep of a pair of
// large clusters reaches a tightly knit group deep inside one of them only
// after hundreds of unrelated moves, when its best prefix no longer isolates
// the group. A sequence started at each boundary node and grown through its
// E-neighbours reaches such groups directly. In nine nodes (groupInstance in
// the tests): cluster A holds the triangles S = {s0, s1, s2} (edge costs 5)
// and {a0, a1, a2} (costs 10), tied by the edges s_i–a_i (3), and each s_i
// is drawn to the triangle B (costs 10) by two edges of 2.5. Moving one s_i
// alone into B raises the energy by 5 + 5 + 3 − 2.5 − 2.5 = 8, moving two
// by 6; the sequence started at s0 moves s0 (+8), s1 (−2) and s2 (−12), and
// its best prefix, all of S, lowers the energy by 6 to the optimum.
//
// Every sequence depends only on the node sets of a and d, so one that found
// nothing is not run again until one of them changes (groupTried).
func (s *kl) groupMoves(maxLen int) float64 {
	ad := &s.adj
	total := 0.0
	if s.groupTried == nil {
		s.groupTried = make(map[uint64]tried)
	}
	if s.coverGen == nil {
		s.coverGen = make([]uint32, s.n)
		s.coverTo = make([]int32, s.n)
	}
	s.groupGen++
	s.groupTables()
	var targets []int32
	for x := int32(0); int(x) < s.n; x++ {
		a := s.label[x]
		targets = targets[:0]
		for k := ad.off[x]; k < ad.off[x+1]; k++ {
			if l := s.label[ad.nbr[k]]; ad.reg[k] && l != a {
				targets = append(targets, l)
			}
		}
		slices.Sort(targets)
		targets = slices.Compact(targets)
		for _, d := range targets {
			if s.label[x] != a {
				break // x moved by an earlier sequence of this loop
			}
			if len(s.members[d]) == 0 {
				continue
			}
			key := uint64(x)<<32 | uint64(d)
			now := tried{s.ver[a] + 1, s.ver[d] + 1, true}
			if s.groupTried[key] == now {
				continue
			}
			if s.coverGen[x] == s.groupGen && s.coverTo[x] == d {
				s.groupTried[key] = now // as good as run: see groupCover
				continue
			}
			if imp := s.groupMove(x, a, d, maxLen); imp > 0 {
				total += imp
				delete(s.groupTried, key)
			} else {
				s.groupTried[key] = now
			}
		}
	}
	return total
}

// groupMove runs the sequence of groupMoves started at x (in cluster a) into
// cluster d and applies its best prefix when that lowers the energy.
func (s *kl) groupMove(x, a, d int32, maxLen int) float64 {
	ad := &s.adj
	if len(s.members[a]) == 1 {
		return 0 // moving the whole of a is a join, which bipartition tries
	}
	// d ∪ S stays connected through E because x has a regular edge into d
	// (an earlier sequence of the pass may have moved x's neighbours) and
	// every later move has one to a node moved before it.
	touchesD := false
	for k := ad.off[x]; k < ad.off[x+1] && !touchesD; k++ {
		touchesD = ad.reg[k] && s.label[ad.nbr[k]] == d
	}
	if !touchesD {
		return 0
	}
	s.groupRuns++
	s.groupGain(x, a, d)
	cum, best, bestK, absCum := 0.0, 0.0, 0, 0.0
	v := x
	for {
		s.label[v] = d
		s.moved[v] = true
		s.moves = append(s.moves, v)
		cum += s.gain[v]
		absCum += math.Abs(s.gain[v])
		if cum > best {
			best, bestK = cum, len(s.moves)
		}
		if len(s.moves) >= maxLen || len(s.moves) == len(s.members[a])-1 {
			break
		}
		for k := ad.off[v]; k < ad.off[v+1]; k++ {
			y := ad.nbr[k]
			if s.label[y] != a || s.moved[y] {
				continue
			}
			if !s.inited[y] {
				s.groupGain(y, a, d)
			}
			s.gain[y] += 2 * ad.cost[k]
			if ad.reg[k] || s.heap.pos[y] >= 0 {
				s.heap.set(y, s.gain[y])
			}
		}
		if s.heap.len() == 0 {
			break
		}
		v = s.heap.pop().id
	}
	result := 0.0
	if tol := klEps * max(1, absCum); best > tol {
		s.revert(s.moves[bestK:], a, d)
		if result = s.commitPrefix(a, d, s.moves[:bestK], best, tol); result > 0 {
			s.markDirty(s.moves[:bestK]) // splitOff marks the nodes it moves
		}
	} else {
		s.revert(s.moves, a, d)
		for _, v := range s.moves[:min(len(s.moves), groupCover)] {
			s.coverGen[v], s.coverTo[v] = s.groupGen, d
		}
	}
	s.cleanup()
	return result
}

// groupGain sets the gain of moving v from cluster a to cluster d before
// the sequence's moves (its callers add 2·c_vw for every moved neighbour w),
// from the pass's tables, and marks v as initialised.
func (s *kl) groupGain(v, a, d int32) {
	g := 0.0
	if s.dirty[v] == s.groupGen {
		ad := &s.adj
		for k := ad.off[v]; k < ad.off[v+1]; k++ {
			w := ad.nbr[k]
			switch l := s.label[w]; {
			case l == a || s.moved[w]:
				g -= ad.cost[k]
			case l == d:
				g += ad.cost[k]
			}
		}
	} else {
		g = -s.internal[v]
		for i := s.extOff[v]; i < s.extOff[v+1]; i++ {
			if s.extCl[i] == d {
				g += s.extSum[i]
				break
			}
		}
	}
	s.gain[v] = g
	if !s.inited[v] && !s.moved[v] {
		s.touched = append(s.touched, v)
	}
	s.inited[v] = true
}

// groupTables computes, for a pass of groupMoves, every node's summed cost
// to its own cluster (internal) and to each other cluster it has an edge to
// (extOff/extCl/extSum, in CSR form), so that a sequence's gains cost
// O(degree) per move instead of O(degree) per node it reaches. Nodes whose
// cluster changes during the pass, and their neighbours, are marked dirty
// and get their gains from their edges.
func (s *kl) groupTables() {
	ad := &s.adj
	if s.internal == nil {
		s.internal = make([]float64, s.n)
		s.extOff = make([]int32, s.n+1)
		s.dirty = make([]uint32, s.n)
	}
	s.extCl, s.extSum = s.extCl[:0], s.extSum[:0]
	for v := 0; v < s.n; v++ {
		lv := s.label[v]
		in := 0.0
		start := len(s.extCl)
		for k := ad.off[v]; k < ad.off[v+1]; k++ {
			l := s.label[ad.nbr[k]]
			if l == lv {
				in += ad.cost[k]
				continue
			}
			i := slices.Index(s.extCl[start:], l)
			if i < 0 {
				s.extCl = append(s.extCl, l)
				s.extSum = append(s.extSum, ad.cost[k])
			} else {
				s.extSum[start+i] += ad.cost[k]
			}
		}
		s.internal[v] = in
		s.extOff[v+1] = int32(len(s.extCl))
	}
}

// markDirty marks the moved nodes and their neighbours: their table entries
// are out of date for the rest of the pass.
func (s *kl) markDirty(moved []int32) {
	if s.dirty == nil {
		return // no pass of groupMoves yet
	}
	ad := &s.adj
	for _, v := range moved {
		s.dirty[v] = s.groupGen
		for k := ad.off[v]; k < ad.off[v+1]; k++ {
			s.dirty[ad.nbr[k]] = s.groupGen
		}
	}
}

// currentLabels returns the state's labelling, canonical.
func (s *kl) currentLabels() []int {
	l := make([]int, s.n)
	for v, c := range s.label {
		l[v] = int(c)
	}
	return Canonical(l)
}

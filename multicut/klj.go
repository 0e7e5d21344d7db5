package multicut

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// KLjOptions configures KLj.
type KLjOptions struct {
	// MaxIter bounds the outer iterations (0: 100).
	MaxIter int
	// Start is a feasible starting labelling; nil starts from GAEC.
	Start []int
	// MaxStall ends one Kernighan–Lin move sequence after this many moves
	// without a new best prefix (0: 200; negative: unlimited, as the
	// original, which lets a sequence sweep whole clusters).
	MaxStall int
	// FullSweep: in phase 2, a pair of clusters with at most this many
	// nodes together runs its sequence to the end, as Kernighan and Lin's
	// does, whatever MaxStall says; so do every split of a cluster against
	// a new, empty one and every pair of two clusters of at least MaxStall
	// nodes each (0: 1000; negative: no phase 2).
	FullSweep int
	// Levels are the coarsening factors of the multilevel refinement that
	// follows the node-level search, finest first: level i merges at most
	// Levels[i] nodes of the level below into one (nil: DefaultLevels; an
	// empty, non-nil slice turns it off). See multilevel.
	Levels []int
	// VCycles is the number of multilevel V-cycles (0: 1). Each cycle after
	// the first halves the finest fragment size and adds a level of 4, so
	// that its fragments have other boundaries; a second cycle lowers the
	// energy further on some DAVIS graphs and roughly doubles the time of
	// KLj.
	VCycles int
	// GroupMoves bounds the length of the connected group moves that
	// follow the multilevel refinement (see groupMoves; 0:
	// DefaultGroupMoves; negative: none).
	GroupMoves int
	// JoinEvict bounds the size of the small clusters that the
	// join-and-evict moves join into a neighbour, after the group moves
	// (see joinEvictMoves; 0: DefaultJoinEvict; negative: none).
	JoinEvict int
	// Neighbourhood, when positive, bounds the nodes of one neighbourhood
	// re-solve, the first large-neighbourhood move after the multilevel
	// refinement (see neighbourhoods; 0: off; ThoroughNeighbourhood).
	Neighbourhood int
	// Fusions is the number of fusion moves that end KLj (see fuse and
	// proposal; 0: none; ThoroughFusions).
	Fusions int
	// Seed seeds the perturbation of the fusion proposals (0: 1). KLj is
	// deterministic for a given seed.
	Seed uint64
	// Progress, when set, is called after every outer iteration of the
	// node-level search on the input graph.
	Progress func(KLjProgress)
}

// KLjProgress reports one outer iteration of KLj.
type KLjProgress struct {
	Iter        int     // 1-based outer iteration
	Energy      float64 // objective after the iteration
	Clusters    int     // number of clusters after the iteration
	Improvement float64 // decrease of the objective in this iteration
}

// klEps is the smallest gain that counts as an improvement; a sequence's
// gain must also exceed klEps times the sum of the absolute gains of its
// moves (and a join's the sum of the absolute costs it uncuts), the scale of
// its rounding error: a full sweep of 24,000 nodes otherwise "improved" by
// 4e-9 back and forth until MaxIter (DAVIS paragliding-launch, β = 0.1).
const klEps = 1e-9

// KLj improves a feasible lifted multicut by Kernighan–Lin with joins
// (Keuper, Andres, Brox ICCV'15, Sec. 3.2; Keuper et al. ICCV'15 "Efficient
// decomposition ...", Sec. 4.2, the lifted version).
//
// One outer iteration:
//
//  1. For every pair (A, B) of clusters joined by a regular edge run one KL
//     sequence (Kernighan & Lin 1970, Bell Syst. Tech. J. 49): the gain of
//     moving node v from its side to the other is
//     d_v = Σ_{w on the other side} c_vw − Σ_{w on v's side, w≠v} c_vw over
//     E ∪ F; greedily apply the unmoved movable node of largest d_v (a node
//     is movable when it has a regular edge to the other side, so the target
//     stays connected), update its neighbours' gains, and remember the best
//     prefix of the sequence. Compare with the gain of joining A and B,
//     Σ_{u∈A, v∈B} c_uv, and apply the better one if its gain is positive.
//  2. For every cluster A, the same with B = ∅ (a new cluster; the first
//     move may take any node of A), repeated while it improves.
//  3. When 1–2 found nothing, a pass of single-node moves (to a cluster the
//     node has a regular edge to, or to a new singleton) that keep every
//     cluster connected; so the result is locally optimal for such moves.
//
// A sequence depends only on the node sets of its two clusters, so one that
// found nothing is not run again until one of them changes (this replaces
// the "changed" flags of Keuper et al.; it skips nothing that could
// improve).
//
// Sequence length, in two phases. Kernighan–Lin runs every sequence to its
// end, which on a trajectory graph sweeps a large background cluster once
// for every small neighbour (andres/graph's KLj spends most of its time
// there). Phase 1 stops a sequence after MaxStall moves without a new best
// prefix, which finds most improvements at a fraction of the cost, and
// iterates until nothing improves. Phase 2 then also runs to its end every
// sequence on at most FullSweep nodes, every split of a cluster against a
// new one, and every pair of two clusters of at least MaxStall nodes each,
// and iterates again: these find the improvements that need a long way
// down before the energy falls below its start (moving half of a wrongly
// merged cluster of 900 nodes into a neighbour, say, where the first 400
// moves only raise the energy; or splitting the swan off its background
// cluster on DAVIS blackswan, which reaches andres/graph's energy). Only
// the pairs of a large cluster with each of its many small neighbours stay
// limited. Phase 2 starts from the local optimum of phase 1, so it can only
// improve on it.
//
// Feasibility. A sequence may disconnect the cluster nodes leave. After
// choosing the best prefix, both resulting sets are checked for connectivity
// through E (a search from the neighbours of the moved nodes that stops once
// they all meet). If a set fell apart it is split into its connected
// components, which additionally cuts the lifted edges between them; the
// change is kept only if its gain net of that split cost is still positive,
// otherwise it is undone. (Andres' implementation instead relabels connected
// components once per outer iteration.) All accepted changes strictly
// decrease the objective; the best labelling seen is returned, so KLj is
// never worse than its start. Labels are canonical.
//
// Multilevel refinement. After phase 2, V-cycles over fragment graphs (see
// multilevel and VCycles) move whole fragments of clusters, which reaches
// improvements even full sequences of single-node moves miss; its result is
// kept only when it lowers the energy. Lifted edges are carried into the
// fragment graphs with their costs, so energies and feasibility are exactly
// those of the node graph.
//
// Connected group moves. Then, from every node on a cluster boundary, a
// one-sided sequence grows a connected group through E into the
// neighbouring cluster (see groupMoves; at most GroupMoves nodes), and the
// node-level search resumes after every pass that improved. These reach
// tightly knit groups deep inside a large cluster that a sweep of the whole
// pair passes only after hundreds of unrelated moves.
//
// Join-and-evict moves. When a pass of group moves finds nothing, every
// cluster of at most JoinEvict nodes is joined into each cluster it has a
// regular edge to, and up to four nodes of the union are then evicted to
// other clusters (see joinEvictMoves); the best prefix with at least one
// eviction is kept when it lowers the energy exactly. These reach a join
// that pays only once a node repelling the small cluster has left, which
// neither step does alone.
//
// Large-neighbourhood moves (off by default; see fusion.go). With
// Neighbourhood > 0, every cluster is re-solved together with its
// neighbouring clusters from scratch (neighbourhoods), followed by the
// node-level search. Then Fusions times, a second local optimum built from
// perturbed costs is fused with the current labelling (fuse, proposal):
// KLj on the contraction of the fragments both agree on. These reach
// rearrangements of several clusters at once. On the 20 DAVIS development
// graphs (scripts/klj-eval.sh), the default and VCycles 2 with
// ThoroughNeighbourhood and ThoroughFusions both end at or below
// andres/graph's KLj energy on all 20 (the default on 19 before the
// join-and-evict moves, on 17 before the group moves).
func KLj(g *Graph, opts KLjOptions) ([]int, error) {
	if err := g.Validate(); err != nil {
		return nil, err
	}
	var start []int
	if opts.Start != nil {
		if err := Feasible(g, opts.Start); err != nil {
			return nil, fmt.Errorf("KLj start labelling: %w", err)
		}
		start = Canonical(opts.Start)
	} else {
		start = gaec(g)
	}
	maxIter := opts.MaxIter
	if maxIter <= 0 {
		maxIter = 100
	}
	maxStall := opts.MaxStall
	if maxStall == 0 {
		maxStall = 200
	}
	fullSweep := opts.FullSweep
	if fullSweep == 0 {
		fullSweep = 1000
	}
	levels := opts.Levels
	if levels == nil {
		levels = DefaultLevels
	}
	s := newKL(g, start, maxStall, fullSweep)
	labels := s.search(start, maxIter, opts.Progress)
	// The node-level search resumes from its state: clusters that a
	// later move left unchanged keep what was already tried on them.
	refine := func(from []int) []int {
		s.relabel(from)
		return s.search(from, maxIter, nil)
	}
	if len(levels) > 0 {
		solve := func(h *Graph, from []int) []int {
			// Fragment graphs: sequences run to their end, and joins are
			// known not to help (from a local optimum of some level the
			// clusters are the same sets at every level, and so are the
			// join gains).
			c := newKL(h, from, -1, fullSweep)
			c.joinsTried()
			return c.search(from, maxIter, nil)
		}
		cycles := opts.VCycles
		if cycles == 0 {
			cycles = 1
		}
		lv := slices.Clone(levels)
		for c := 0; c < cycles; c++ {
			labels = multilevel(g, s.adj, labels, lv, solve, refine)
			// The next cycle: fragments half as large at the finest
			// level (other boundaries), one more level on top.
			lv = append([]int{max(2, lv[0]/2)}, append(lv[1:], 4)...)
		}
	}
	group := cmp.Or(opts.GroupMoves, DefaultGroupMoves)
	evict := cmp.Or(opts.JoinEvict, DefaultJoinEvict)
	if group > 0 || evict > 0 {
		// Group moves, join-and-evict moves (when the group moves found
		// nothing) and the node-level search alternate until neither move
		// improves; the search resumes from the state of the last one.
		s.relabel(labels)
		for range maxIter {
			imp := 0.0
			if group > 0 {
				imp = s.groupMoves(group)
			}
			if imp <= 0 && evict > 0 {
				imp = s.joinEvictMoves(evict)
			}
			if imp <= 0 {
				break
			}
			labels = s.search(s.currentLabels(), maxIter, nil)
		}
	}
	if opts.Neighbourhood > 0 {
		if next := neighbourhoods(g, labels, opts.Neighbourhood, maxStall, fullSweep, maxIter); Energy(g, next) < Energy(g, labels)-klEps {
			labels = refine(next)
		}
	}
	rng := &splitMix{cmp.Or(opts.Seed, 1)}
	for range max(0, opts.Fusions) {
		b := proposal(g, rng, maxStall, fullSweep, maxIter)
		if next := fuse(g, labels, b, fullSweep, maxIter); Energy(g, next) < Energy(g, labels)-klEps {
			labels = next
		}
	}
	return labels, nil
}

// joinsTried records that the current labelling admits no improving join
// of two clusters: a pair of two one-node clusters, whose only sequences
// are its two joins, is then not tried until one of them changes.
func (s *kl) joinsTried() {
	for _, p := range s.adjacentPairs() {
		a, b := int32(p>>32), int32(uint32(p))
		if len(s.members[a]) == 1 && len(s.members[b]) == 1 {
			s.pairTried[p] = tried{s.ver[a] + 1, s.ver[b] + 1, s.stall(a, b) < 0}
		}
	}
}

// search is KLj's node-level search (phases 1 and 2) from the current
// state, whose labelling is start (canonical); it returns the best
// labelling seen, canonical, and leaves the state at it.
func (s *kl) search(start []int, maxIter int, progress func(KLjProgress)) []int {
	best := slices.Clone(start)
	bestE := s.energy()
	e := bestE
	for it := 1; it <= maxIter; it++ {
		imp := s.outerIteration()
		if imp <= 0 {
			imp = s.localMoves()
		}
		e = s.energy()
		if e < bestE {
			bestE = e
			for v, l := range s.label {
				best[v] = int(l)
			}
		}
		if progress != nil {
			progress(KLjProgress{Iter: it, Energy: e, Clusters: s.numClusters(), Improvement: imp})
		}
		if imp <= 0 {
			if s.deep || s.fullSw <= 0 {
				break
			}
			s.deep = true
		}
	}
	best = Canonical(best)
	if e > bestE {
		s.relabel(best)
	}
	return best
}

// relabel moves the state to labels (a feasible labelling). A cluster of
// labels that is already a cluster keeps its id, its version and so what
// was tried on it; the nodes of every other cluster move to a new id.
func (s *kl) relabel(labels []int) {
	k := 0
	for _, l := range labels {
		k = max(k, l+1)
	}
	keep := make([]int32, k) // new label → kept old id, −1: none, −2: unset
	count := make([]int32, k)
	for i := range keep {
		keep[i] = -2
	}
	for v, l := range labels {
		count[l]++
		switch old := s.label[v]; keep[l] {
		case -2:
			keep[l] = old
		case old, -1:
		default:
			keep[l] = -1
		}
	}
	claimed := make(map[int32]bool)
	for l := range keep {
		if old := keep[l]; old >= 0 && (int(count[l]) != len(s.members[old]) || claimed[old]) {
			keep[l] = -1
		} else if old >= 0 {
			claimed[old] = true
		}
	}
	fresh := make([]int32, k)
	for l := range fresh {
		fresh[l] = -1
	}
	for v, l := range labels {
		if keep[l] >= 0 {
			continue
		}
		if fresh[l] < 0 {
			fresh[l] = s.allocID()
		}
		s.removeMember(int32(v), s.label[v])
		s.addMember(int32(v), fresh[l])
	}
}

// kl is the state of KLj: node labels, cluster member lists and scratch
// arrays, all flat and indexed by node or cluster id.
type kl struct {
	adj      adjacency
	n        int
	label    []int32
	members  [][]int32
	pos      []int32  // position of a node in its members list
	free     []int32  // ids of empty clusters
	ver      []uint32 // per cluster: incremented on every change of its members
	maxStall int
	fullSw   int
	deep     bool // second phase: full sweeps for sets of at most fullSw nodes
	// pairTried holds, for a pair of clusters (packed a<<32|b), the
	// versions of both at its last sequence that found no improvement and
	// whether that sequence was a full sweep; splitTried[c] is the same
	// for the last such attempt to split c against a new cluster (ver 0:
	// none).
	pairTried  map[uint64]tried
	splitTried []tried
	// groupTried is the same for the connected group moves (groupMoves),
	// keyed by seed node and target cluster (x<<32|d).
	groupTried map[uint64]tried
	groupGen   uint32   // pass of groupMoves
	groupRuns  int      // sequences run by groupMove (for tests)
	coverGen   []uint32 // per node: pass in which a sequence covered it
	coverTo    []int32  // per node: the target cluster of that sequence
	// internal, extOff/extCl/extSum: groupMoves' per-pass tables of each
	// node's summed cost to its own and to each other cluster (groupTables).
	internal []float64
	extOff   []int32
	extCl    []int32
	extSum   []float64
	dirty    []uint32 // per node: pass in which its table entry went stale

	gain     []float64
	regOther []int32
	inited   []bool
	moved    []bool
	touched  []int32
	heap     gainHeap
	moves    []int32

	mark    []uint32 // BFS visit marks (generation markGen)
	srcMark []uint32
	markGen uint32
	queue   []int32
	comp    []int32

	csum     []float64
	creg     []bool
	cseen    []bool
	ctouched []int32
	failVer  []uint32
	failCl   []int32
	inQ      []bool
}

func newKL(g *Graph, start []int, maxStall, fullSweep int) *kl {
	n := g.N
	s := &kl{
		adj: buildAdjacency(g), n: n, maxStall: maxStall, fullSw: fullSweep,
		pairTried: make(map[uint64]tried),
		label:     make([]int32, n), pos: make([]int32, n),
		gain: make([]float64, n), regOther: make([]int32, n), inited: make([]bool, n),
		moved: make([]bool, n), heap: newGainHeap(n),
		mark: make([]uint32, n), srcMark: make([]uint32, n), comp: make([]int32, n),
		failVer: make([]uint32, n), failCl: make([]int32, n), inQ: make([]bool, n),
	}
	k := 0
	for _, l := range start {
		k = max(k, l+1)
	}
	s.members = make([][]int32, k)
	s.ver = make([]uint32, k)
	s.splitTried = make([]tried, k)
	for v, l := range start {
		s.label[v] = int32(l)
		s.pos[v] = int32(len(s.members[l]))
		s.members[l] = append(s.members[l], int32(v))
	}
	for c := range s.members {
		if len(s.members[c]) == 0 {
			s.free = append(s.free, int32(c))
		}
	}
	return s
}

func (s *kl) energy() float64 {
	e := 0.0
	a := &s.adj
	for v := 0; v < s.n; v++ {
		lv := s.label[v]
		for k := a.off[v]; k < a.off[v+1]; k++ {
			if w := a.nbr[k]; int(w) > v && s.label[w] != lv {
				e += a.cost[k]
			}
		}
	}
	return e
}

func (s *kl) numClusters() int {
	k := 0
	for _, m := range s.members {
		if len(m) > 0 {
			k++
		}
	}
	return k
}

// allocID returns an empty cluster id.
func (s *kl) allocID() int32 {
	if k := len(s.free); k > 0 {
		id := s.free[k-1]
		s.free = s.free[:k-1]
		return id
	}
	s.members = append(s.members, nil)
	s.ver = append(s.ver, 0)
	s.splitTried = append(s.splitTried, tried{})
	return int32(len(s.members) - 1)
}

// removeMember takes v out of the members list of cluster c (its label
// before the change).
func (s *kl) removeMember(v, c int32) {
	m := s.members[c]
	p := s.pos[v]
	last := m[len(m)-1]
	m[p] = last
	s.pos[last] = p
	s.members[c] = m[:len(m)-1]
	s.ver[c]++
	if len(s.members[c]) == 0 {
		s.free = append(s.free, c)
	}
}

func (s *kl) addMember(v, c int32) {
	s.label[v] = c
	s.pos[v] = int32(len(s.members[c]))
	s.members[c] = append(s.members[c], v)
	s.ver[c]++
}

func (s *kl) nextGen() uint32 {
	s.markGen++
	if s.markGen == 0 { // wrapped: clear marks
		clear(s.mark)
		clear(s.srcMark)
		s.markGen = 1
	}
	return s.markGen
}

// outerIteration runs steps 1 and 2 of KLj and returns the decrease of the
// objective. A sequence depends only on the node sets of its two clusters,
// so a pair (or a split attempt) whose clusters are unchanged since it last
// found nothing is skipped: it would find nothing again.
func (s *kl) outerIteration() float64 {
	imp := 0.0
	for _, p := range s.adjacentPairs() {
		a, b := int32(p>>32), int32(uint32(p))
		if len(s.members[a]) == 0 || len(s.members[b]) == 0 {
			continue
		}
		now := tried{s.ver[a] + 1, s.ver[b] + 1, s.stall(a, b) < 0}
		if s.pairTried[p] == now {
			continue
		}
		if d := s.bipartition(a, b, false); d > 0 {
			imp += d
			delete(s.pairTried, p)
		} else {
			s.pairTried[p] = now
		}
	}
	nc := int32(len(s.members))
	for a := int32(0); a < nc; a++ {
		for len(s.members[a]) > 1 {
			now := tried{s.ver[a] + 1, 0, s.stall(a, -1) < 0}
			if s.splitTried[a] == now {
				break
			}
			d := s.bipartition(a, -1, true)
			if d <= 0 {
				s.splitTried[a] = now
				break
			}
			imp += d
		}
	}
	return imp
}

// tried identifies a sequence by the versions (+1) of its clusters and
// whether it ran to the end.
type tried struct {
	va, vb uint32
	full   bool
}

// stall returns the number of moves without a new best prefix after which
// the sequence between clusters a and b (b < 0: a against a new, empty
// cluster) stops; −1: it runs to the end. It runs to the end without a
// limit (maxStall < 0), on a set that a limited sequence sweeps fully
// anyway, and in the deep phase (phase 2) when it is a split, when the two
// clusters hold at most fullSw nodes together, or when each of them holds
// at least maxStall nodes. Splits and pairs of two large clusters are few
// (at most n/maxStall clusters are large), so sweeping them fully is cheap;
// the pairs left limited are those of a large cluster with each of its
// many small neighbours, which full sweeps would make expensive.
func (s *kl) stall(a, b int32) int {
	na, nb := len(s.members[a]), 0
	if b >= 0 {
		nb = len(s.members[b])
	}
	switch size := na + nb; {
	case s.maxStall < 0 || size <= s.maxStall:
		return -1
	case s.deep && (b < 0 || size <= s.fullSw || min(na, nb) >= s.maxStall):
		return -1
	}
	return s.maxStall
}

// adjacentPairs lists the cluster pairs (a<b, packed a<<32|b) joined by a
// regular edge.
func (s *kl) adjacentPairs() []uint64 {
	var pairs []uint64
	a := &s.adj
	for v := 0; v < s.n; v++ {
		lv := s.label[v]
		for k := a.off[v]; k < a.off[v+1]; k++ {
			w := a.nbr[k]
			if int(w) <= v || !a.reg[k] {
				continue
			}
			if lw := s.label[w]; lw != lv {
				x, y := lv, lw
				if x > y {
					x, y = y, x
				}
				pairs = append(pairs, uint64(x)<<32|uint64(y))
			}
		}
	}
	slices.Sort(pairs)
	return slices.Compact(pairs)
}

// initNode computes the gain of moving v (in cluster a or b) to the other
// cluster, from scratch under the current tentative labels, and pushes it if
// it is movable (or if any node may move: free).
func (s *kl) initNode(v, a, b int32, free bool) {
	own := s.label[v]
	other := a
	if own == a {
		other = b
	}
	g := 0.0
	r := int32(0)
	ad := &s.adj
	for k := ad.off[v]; k < ad.off[v+1]; k++ {
		switch s.label[ad.nbr[k]] {
		case own:
			g -= ad.cost[k]
		case other:
			g += ad.cost[k]
			if ad.reg[k] {
				r++
			}
		}
	}
	s.gain[v] = g
	s.regOther[v] = r
	if !s.inited[v] && !s.moved[v] {
		s.touched = append(s.touched, v)
	}
	s.inited[v] = true
	if r > 0 || free {
		s.heap.set(v, g)
	} else {
		s.heap.remove(v)
	}
}

// bipartition runs one KL sequence between clusters a and b (newSide, with
// b = −1: a new, empty cluster) and applies the best prefix or the join. It returns
// the decrease of the objective (0 when nothing changed).
func (s *kl) bipartition(a, b int32, newSide bool) float64 {
	ad := &s.adj
	joinGain, joinAbs := 0.0, 0.0
	stall := s.stall(a, b) // b is −1 for a split until the new cluster is allocated
	if newSide {
		b = s.allocID()
		for _, v := range s.members[a] {
			s.initNode(v, a, b, true)
		}
	} else {
		small, other := a, b
		if len(s.members[b]) < len(s.members[a]) {
			small, other = b, a
		}
		adjacent := false
		for _, x := range s.members[small] {
			for k := ad.off[x]; k < ad.off[x+1]; k++ {
				y := ad.nbr[k]
				if s.label[y] != other {
					continue
				}
				joinGain += ad.cost[k]
				joinAbs += math.Abs(ad.cost[k])
				if ad.reg[k] {
					adjacent = true
					if !s.inited[x] {
						s.initNode(x, a, b, false)
					}
					if !s.inited[y] {
						s.initNode(y, a, b, false)
					}
				}
			}
		}
		if !adjacent {
			s.cleanup()
			return 0
		}
	}

	cum, best, bestK, absCum := 0.0, 0.0, 0, 0.0
	for s.heap.len() > 0 {
		v := s.heap.pop().id
		if s.regOther[v] == 0 && !(newSide && len(s.moves) == 0) {
			continue
		}
		from := s.label[v]
		to := a
		if from == a {
			to = b
		}
		s.label[v] = to
		if !s.inited[v] {
			s.touched = append(s.touched, v)
		}
		s.moved[v] = true
		s.moves = append(s.moves, v)
		cum += s.gain[v]
		absCum += math.Abs(s.gain[v])
		for k := ad.off[v]; k < ad.off[v+1]; k++ {
			y := ad.nbr[k]
			ly := s.label[y]
			if (ly != a && ly != b) || s.moved[y] {
				continue
			}
			c, reg := ad.cost[k], ad.reg[k]
			if ly == from {
				if s.inited[y] {
					s.gain[y] += 2 * c
					if reg {
						s.regOther[y]++
					}
					s.requeue(y)
				} else if reg {
					s.initNode(y, a, b, false)
				}
			} else if s.inited[y] {
				s.gain[y] -= 2 * c
				if reg {
					s.regOther[y]--
				}
				s.requeue(y)
			}
		}
		if cum > best {
			best, bestK = cum, len(s.moves)
		} else if stall > 0 && len(s.moves)-bestK >= stall {
			break
		}
	}

	result := 0.0
	tol := klEps * max(1, absCum)
	switch {
	case !newSide && joinGain > best && joinGain > klEps*max(1, joinAbs):
		s.revert(s.moves, a, b)
		s.join(a, b)
		result = joinGain
	case best > tol:
		s.revert(s.moves[bestK:], a, b)
		result = s.commitPrefix(a, b, s.moves[:bestK], best, tol)
	default:
		s.revert(s.moves, a, b)
	}
	if newSide && len(s.members[b]) == 0 {
		s.free = append(s.free, b)
	}
	s.cleanup()
	return result
}

// commitPrefix commits the tentative moves applied (the best prefix of a
// sequence between clusters a and b, of gain best; the labels are already
// moved) when both clusters stay connected through E. If one falls apart it
// is split into its connected components, which also cuts the lifted edges
// between them; the moves are then kept only if their gain net of that cost
// exceeds tol, and undone otherwise. It returns the decrease of the
// objective (0 when undone).
func (s *kl) commitPrefix(a, b int32, applied []int32, best, tol float64) float64 {
	if s.connectedAfter(a, a, b, applied) && s.connectedAfter(b, a, b, applied) {
		s.apply(a, b, applied)
		return best
	}
	pen := 0.0
	var parts [][][]int32
	for _, c := range []int32{a, b} {
		p, cost := s.finalComponents(c, a, b, applied)
		pen += cost
		parts = append(parts, p)
	}
	if best-pen <= tol {
		s.revert(applied, a, b)
		return 0
	}
	s.apply(a, b, applied)
	for _, p := range parts {
		s.splitOff(p)
	}
	return best - pen
}

// requeue updates y's heap entry after its gain changed: a node stays a
// candidate while it has a regular edge to the other side.
func (s *kl) requeue(y int32) {
	if s.regOther[y] > 0 {
		s.heap.set(y, s.gain[y])
	} else {
		s.heap.remove(y)
	}
}

func (s *kl) cleanup() {
	for _, v := range s.touched {
		s.inited[v] = false
		s.moved[v] = false
	}
	s.touched = s.touched[:0]
	s.heap.reset()
	s.moves = s.moves[:0]
}

// revert undoes tentative moves between a and b (each node moved once).
func (s *kl) revert(moves []int32, a, b int32) {
	for _, v := range moves {
		if s.label[v] == a {
			s.label[v] = b
		} else {
			s.label[v] = a
		}
	}
}

// join merges the smaller of clusters a and b into the larger.
func (s *kl) join(a, b int32) {
	if len(s.members[a]) < len(s.members[b]) {
		a, b = b, a
	}
	for _, v := range s.members[b] {
		s.label[v] = a
		s.pos[v] = int32(len(s.members[a]))
		s.members[a] = append(s.members[a], v)
	}
	s.members[b] = s.members[b][:0]
	s.free = append(s.free, b)
	s.ver[a]++
	s.ver[b]++
}

// apply commits tentative moves (labels already final) to the member lists.
func (s *kl) apply(a, b int32, applied []int32) {
	for _, v := range applied {
		to := s.label[v]
		from := a
		if to == a {
			from = b
		}
		s.removeMember(v, from)
		s.addMember(v, to)
	}
}

// connectedAfter reports whether cluster c (a or b) is connected through E
// under the tentative labels, given the applied moves. Sources are the moved
// nodes now in c and the c-neighbours of nodes that left c: since c was
// connected before, every node of c reaches a source, so c is connected iff
// a search from one source reaches all of them (it stops as soon as it does).
func (s *kl) connectedAfter(c, a, b int32, applied []int32) bool {
	ad := &s.adj
	sg := s.nextGen()
	srcs := s.queue[:0]
	for _, v := range applied {
		if s.label[v] == c {
			if s.srcMark[v] != sg {
				s.srcMark[v] = sg
				srcs = append(srcs, v)
			}
			continue
		}
		for k := ad.off[v]; k < ad.off[v+1]; k++ {
			y := ad.nbr[k]
			if ad.reg[k] && s.label[y] == c && s.srcMark[y] != sg {
				s.srcMark[y] = sg
				srcs = append(srcs, y)
			}
		}
	}
	if len(srcs) <= 1 {
		s.queue = srcs
		return true
	}
	return s.sourcesMeet(c, srcs, sg, -1)
}

// sourcesMeet reports whether a breadth-first search through E inside
// cluster c (current labels), started at srcs[0], reaches every node of srcs
// (those marked with generation sg; len(srcs) ≥ 2). Node skip (−1: none) is
// treated as removed. It stops as soon as all sources are found and reuses
// srcs as the queue, which it leaves in s.queue.
func (s *kl) sourcesMeet(c int32, srcs []int32, sg uint32, skip int32) bool {
	ad := &s.adj
	nsrc := len(srcs)
	g := s.nextGen()
	if skip >= 0 {
		s.mark[skip] = g
	}
	q := append(srcs[:0], srcs[0])
	s.mark[q[0]] = g
	found := 1
	for h := 0; h < len(q); h++ {
		x := q[h]
		for k := ad.off[x]; k < ad.off[x+1]; k++ {
			y := ad.nbr[k]
			if !ad.reg[k] || s.label[y] != c || s.mark[y] == g {
				continue
			}
			s.mark[y] = g
			if s.srcMark[y] == sg {
				found++
				if found == nsrc {
					s.queue = q
					return true
				}
			}
			q = append(q, y)
		}
	}
	s.queue = q
	return false
}

// finalComponents splits the tentative cluster c into its connected
// components through E (largest first; nil when connected) and returns the
// summed cost of the lifted edges between different components, which a
// split additionally cuts.
func (s *kl) finalComponents(c, a, b int32, applied []int32) ([][]int32, float64) {
	ad := &s.adj
	var set []int32
	for _, v := range s.members[c] {
		if s.label[v] == c {
			set = append(set, v)
		}
	}
	for _, v := range applied {
		if s.label[v] == c {
			set = append(set, v)
		}
	}
	g := s.nextGen()
	var parts [][]int32
	for _, r := range set {
		if s.mark[r] == g {
			continue
		}
		id := int32(len(parts))
		s.mark[r] = g
		s.comp[r] = id
		part := []int32{r}
		for h := 0; h < len(part); h++ {
			x := part[h]
			for k := ad.off[x]; k < ad.off[x+1]; k++ {
				y := ad.nbr[k]
				if ad.reg[k] && s.label[y] == c && s.mark[y] != g {
					s.mark[y] = g
					s.comp[y] = id
					part = append(part, y)
				}
			}
		}
		parts = append(parts, part)
	}
	if len(parts) <= 1 {
		return nil, 0
	}
	cost := 0.0
	for _, x := range set {
		for k := ad.off[x]; k < ad.off[x+1]; k++ {
			y := ad.nbr[k]
			if y > x && s.label[y] == c && s.comp[y] != s.comp[x] {
				cost += ad.cost[k]
			}
		}
	}
	slices.SortStableFunc(parts, func(p, q []int32) int { return len(q) - len(p) })
	return parts, cost
}

// splitOff moves every part but the first into a new cluster.
func (s *kl) splitOff(parts [][]int32) {
	for i := 1; i < len(parts); i++ {
		id := s.allocID()
		for _, v := range parts[i] {
			s.removeMember(v, s.label[v])
			s.addMember(v, id)
		}
		s.markDirty(parts[i])
	}
}

// connectedWithout reports whether cluster c minus node v is connected
// through E (c connected, |c| > 1): every node of c∖{v} reaches an
// E-neighbour of v inside c, so it suffices that these neighbours meet.
func (s *kl) connectedWithout(c, v int32) bool {
	ad := &s.adj
	sg := s.nextGen()
	srcs := s.queue[:0]
	for k := ad.off[v]; k < ad.off[v+1]; k++ {
		y := ad.nbr[k]
		if ad.reg[k] && s.label[y] == c && s.srcMark[y] != sg {
			s.srcMark[y] = sg
			srcs = append(srcs, y)
		}
	}
	if len(srcs) <= 1 {
		s.queue = srcs
		return len(srcs) == 1
	}
	return s.sourcesMeet(c, srcs, sg, v)
}

// localMoves applies improving single-node moves — to a cluster the node has
// a regular edge to, or to a new singleton — that keep the source cluster
// connected, until none is left. It returns the decrease of the objective.
func (s *kl) localMoves() float64 {
	ad := &s.adj
	if len(s.csum) < len(s.members) {
		s.csum = make([]float64, len(s.members)+s.n)
		s.creg = make([]bool, len(s.members)+s.n)
		s.cseen = make([]bool, len(s.members)+s.n)
	}
	work := make([]int32, 0, s.n)
	for v := 0; v < s.n; v++ {
		work = append(work, int32(v))
		s.inQ[v] = true
	}
	total := 0.0
	for h := 0; h < len(work); h++ {
		v := work[h]
		s.inQ[v] = false
		if h > 1<<20 && h > len(work)/2 { // compact the queue
			work = append(work[:0], work[h+1:]...)
			h = -1
		}
		c := s.label[v]
		own := 0.0
		for k := ad.off[v]; k < ad.off[v+1]; k++ {
			l := s.label[ad.nbr[k]]
			if l == c {
				own += ad.cost[k]
				continue
			}
			if int(l) >= len(s.csum) {
				grow := int(l) + 1 - len(s.csum)
				s.csum = append(s.csum, make([]float64, grow)...)
				s.creg = append(s.creg, make([]bool, grow)...)
				s.cseen = append(s.cseen, make([]bool, grow)...)
			}
			if !s.cseen[l] {
				s.cseen[l] = true
				s.ctouched = append(s.ctouched, l)
			}
			s.csum[l] += ad.cost[k]
			if ad.reg[k] {
				s.creg[l] = true
			}
		}
		bestG, bestT := klEps, int32(-1)
		for _, l := range s.ctouched {
			if d := s.csum[l] - own; s.creg[l] && d > bestG {
				bestG, bestT = d, l
			}
			s.csum[l] = 0
			s.creg[l] = false
			s.cseen[l] = false
		}
		s.ctouched = s.ctouched[:0]
		single := len(s.members[c]) > 1
		if single && -own > bestG {
			bestG, bestT = -own, -2
		}
		if bestT == -1 {
			continue
		}
		if single {
			if s.failCl[v] == c && s.failVer[v] == s.ver[c]+1 {
				continue
			}
			if !s.connectedWithout(c, v) {
				s.failCl[v], s.failVer[v] = c, s.ver[c]+1
				continue
			}
		}
		if bestT == -2 {
			bestT = s.allocID()
		}
		s.removeMember(v, c)
		s.addMember(v, bestT)
		total += bestG
		if !s.inQ[v] {
			s.inQ[v] = true
			work = append(work, v)
		}
		for k := ad.off[v]; k < ad.off[v+1]; k++ {
			if y := ad.nbr[k]; !s.inQ[y] {
				s.inQ[y] = true
				work = append(work, y)
			}
		}
	}
	return total
}

// Package maxflow computes minimum s–t cuts of the flow networks of binary
// energies (Boykov & Kolmogorov): internal/colourcut builds the graph cuts
// of refine's mask refinement and of trainset's background cut on it.
package maxflow

import (
	"fmt"
	"math"
)

// Graph is an s–t flow network for binary energies: nodes 0…n−1, each with
// a capacity from the source s and to the sink t, and pairs of opposite arcs
// between nodes. MaxFlow computes a maximum flow and a minimum cut by the
// augmenting-path algorithm of Boykov & Kolmogorov ("An experimental
// comparison of min-cut/max-flow algorithms for energy minimization in
// vision", IEEE TPAMI 26(9), 2004, Sec. 3): two search trees, S rooted at s
// and T at t, grow along non-saturated arcs (growth stage) until they touch;
// the path found is augmented, which saturates at least one of its arcs and
// orphans the nodes below it (augmentation stage); orphans look for a new
// parent in their own tree whose root path is still valid, or become free
// (adoption stage). Trees are kept between augmentations, which is why the
// method is fast on the short, dense paths of image grids. The distance-and-
// timestamp heuristic of Sec. 3.3 (the "origin check" caches which nodes
// were verified to be connected to their terminal in the current stage, and
// reparenting prefers shorter paths) follows Kolmogorov's description.
//
// Capacities are float64 and must be ≥ 0. A binary energy
//
//	E(x) = Σ_p D_p(x_p) + Σ_{pq} w_pq [x_p ≠ x_q]
//
// is represented (Kolmogorov & Zabih, TPAMI 26(2), 2004) by the source
// capacity D_p(0) (paid when p ends on the sink side, label 0), the sink
// capacity D_p(1) (paid on the source side, label 1) and arcs of capacity
// w_pq both ways; the minimum cut's value is then min_x E(x).
type Graph struct {
	// per node
	first  []int32   // first outgoing arc, −1: none
	tr     []float64 // terminal residual: > 0 residual from s, < 0 residual to t
	parent []int32   // arc to the parent (head = parent), or one of the codes below
	tree   []int8    // free, inS or inT
	ts     []int32   // timestamp of the last origin check that verified dist
	dist   []int32   // distance to the terminal, valid when ts is current
	// per arc (arc a's opposite is a^1)
	head []int32
	next []int32
	rcap []float64

	flow float64
	time int32
	done bool
}

const (
	noParent  int32 = -1 // free node
	terminal  int32 = -2 // child of s or t directly
	orphanArc int32 = -3 // lost its parent in the current augmentation

	free int8 = 0
	inS  int8 = 1
	inT  int8 = 2
)

// NewGraph returns a graph of n nodes, no arcs and zero terminal capacities,
// with room for arcs pairs (a hint; more may be added).
func NewGraph(n, arcs int) *Graph {
	g := &Graph{
		first:  make([]int32, n),
		tr:     make([]float64, n),
		parent: make([]int32, n),
		tree:   make([]int8, n),
		ts:     make([]int32, n),
		dist:   make([]int32, n),
		head:   make([]int32, 0, 2*arcs),
		next:   make([]int32, 0, 2*arcs),
		rcap:   make([]float64, 0, 2*arcs),
	}
	for i := range g.first {
		g.first[i] = -1
	}
	return g
}

// Nodes is the number of nodes.
func (g *Graph) Nodes() int { return len(g.first) }

// AddTerminal adds capacity source from s to i and sink from i to t. Only
// the difference is kept as a capacity; min(source, sink) is flow that every
// cut pays (it is counted in MaxFlow's value).
func (g *Graph) AddTerminal(i int, source, sink float64) {
	g.tr[i] += source - sink
	g.flow += min(source, sink)
}

// AddEdge adds the arc i→j of capacity cap and the arc j→i of capacity rev.
func (g *Graph) AddEdge(i, j int, cap, rev float64) {
	a := int32(len(g.head))
	g.head = append(g.head, int32(j), int32(i))
	g.next = append(g.next, g.first[i], g.first[j])
	g.rcap = append(g.rcap, cap, rev)
	g.first[i], g.first[j] = a, a+1
}

// check refuses negative or non-finite capacities (an error, not a wrong
// cut).
func (g *Graph) check() error {
	for i, v := range g.tr {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("maxflow: node %d has terminal capacity %v", i, v)
		}
	}
	for a, c := range g.rcap {
		if !(c >= 0) || math.IsInf(c, 1) {
			return fmt.Errorf("maxflow: arc %d→%d has capacity %v", g.head[a^1], g.head[a], c)
		}
	}
	return nil
}

// MaxFlow computes a maximum flow and returns its value, the capacity of a
// minimum cut (including the terminal flow AddTerminal set aside). It may be
// called once per graph.
func (g *Graph) MaxFlow() (float64, error) {
	if g.done {
		return 0, fmt.Errorf("maxflow: graph already solved")
	}
	if err := g.check(); err != nil {
		return 0, err
	}
	g.done = true
	s := newSearch(g)
	for {
		mid := s.grow()
		if mid < 0 {
			break
		}
		s.augment(mid)
		for len(s.orphans) > 0 {
			i := s.orphans[len(s.orphans)-1]
			s.orphans = s.orphans[:len(s.orphans)-1]
			s.orphans = g.adopt(i, s.orphans, s.push)
		}
	}
	return g.flow, nil
}

// search is the state of MaxFlow's stages besides the trees in Graph: the
// FIFO of active nodes, the node being grown and the orphans.
type search struct {
	g        *Graph
	active   []int32 // FIFO of active nodes (may hold stale entries)
	inActive []bool
	head     int   // next entry of active
	cur      int32 // the node being grown, kept active across augmentations
	orphans  []int32
}

// newSearch roots the trees: every node with residual capacity from s is in
// S, every node with residual capacity to t in T, and all of them are
// active.
func newSearch(g *Graph) *search {
	n := len(g.first)
	s := &search{g: g, active: make([]int32, 0, n), inActive: make([]bool, n), cur: -1}
	for i := 0; i < n; i++ {
		g.parent[i] = noParent
		switch {
		case g.tr[i] > 0:
			g.tree[i], g.parent[i], g.dist[i] = inS, terminal, 1
			s.push(int32(i))
		case g.tr[i] < 0:
			g.tree[i], g.parent[i], g.dist[i] = inT, terminal, 1
			s.push(int32(i))
		}
	}
	return s
}

// push makes node i active (once).
func (s *search) push(i int32) {
	if !s.inActive[i] {
		s.inActive[i] = true
		s.active = append(s.active, i)
	}
}

// nextActive takes the next active node that is in a tree off the FIFO, or
// −1 when there is none (the FIFO is then emptied).
func (s *search) nextActive() int32 {
	cur := int32(-1)
	for s.head < len(s.active) {
		i := s.active[s.head]
		s.head++
		s.inActive[i] = false
		if s.g.parent[i] != noParent {
			cur = i
			break
		}
	}
	if s.head == len(s.active) {
		s.active, s.head = s.active[:0], 0
	}
	return cur
}

// grow runs the growth stage: the active nodes, in FIFO order, grow their
// trees until an arc from S to T is found. It returns that arc, or −1 when
// the trees cannot grow (the flow is maximum).
func (s *search) grow() int32 {
	if s.cur >= 0 && s.g.parent[s.cur] == noParent {
		s.cur = -1
	}
	for {
		if s.cur < 0 {
			if s.cur = s.nextActive(); s.cur < 0 {
				return -1
			}
		}
		if mid := s.growFrom(s.cur); mid >= 0 {
			return mid
		}
		s.cur = -1
	}
}

// growFrom scans the residual arcs of node i in its tree's direction: a
// free neighbour joins the tree as i's child, a fresher and closer i
// reparents a neighbour of its own tree, and a neighbour in the other tree
// ends the stage with the arc from S to T (−1 when there is none).
func (s *search) growFrom(i int32) int32 {
	g := s.g
	t := g.tree[i]
	for a := g.first[i]; a >= 0; a = g.next[a] {
		var c float64
		if t == inS {
			c = g.rcap[a]
		} else {
			c = g.rcap[a^1]
		}
		if c <= 0 {
			continue
		}
		j := g.head[a]
		switch {
		case g.tree[j] == free:
			g.tree[j], g.parent[j] = t, a^1
			g.ts[j], g.dist[j] = g.ts[i], g.dist[i]+1
			s.push(j)
		case g.tree[j] != t:
			if t == inS {
				return a
			}
			return a ^ 1
		case g.ts[j] <= g.ts[i] && g.dist[j] > g.dist[i]:
			// i is at least as fresh and closer: reparent j (Sec. 3.3)
			g.parent[j], g.ts[j], g.dist[j] = a^1, g.ts[i], g.dist[i]+1
		}
	}
	return -1
}

// augment runs the augmentation stage on the path through mid, which goes
// from S-node head[mid^1] to T-node head[mid]: the bottleneck f flows along
// it, and the nodes whose parent arc (or terminal) it saturates become
// orphans.
func (s *search) augment(mid int32) {
	g := s.g
	g.time++
	f := g.bottleneck(mid)
	g.rcap[mid] -= f
	g.rcap[mid^1] += f
	for i := g.head[mid^1]; ; {
		a := g.parent[i]
		if a == terminal {
			g.tr[i] -= f
			if g.tr[i] <= 0 {
				g.tr[i] = 0
				g.parent[i] = orphanArc
				s.orphans = append(s.orphans, i)
			}
			break
		}
		g.rcap[a] += f
		g.rcap[a^1] -= f
		p := g.head[a]
		if g.rcap[a^1] <= 0 {
			g.rcap[a^1] = 0
			g.parent[i] = orphanArc
			s.orphans = append(s.orphans, i)
		}
		i = p
	}
	for j := g.head[mid]; ; {
		a := g.parent[j]
		if a == terminal {
			g.tr[j] += f
			if g.tr[j] >= 0 {
				g.tr[j] = 0
				g.parent[j] = orphanArc
				s.orphans = append(s.orphans, j)
			}
			break
		}
		g.rcap[a^1] += f
		g.rcap[a] -= f
		p := g.head[a]
		if g.rcap[a] <= 0 {
			g.rcap[a] = 0
			g.parent[j] = orphanArc
			s.orphans = append(s.orphans, j)
		}
		j = p
	}
	g.flow += f
}

// bottleneck is the smallest residual capacity on the path through mid:
// its arcs in S and T and the terminal capacities at its ends.
func (g *Graph) bottleneck(mid int32) float64 {
	f := g.rcap[mid]
	for i := g.head[mid^1]; ; {
		a := g.parent[i]
		if a == terminal {
			f = min(f, g.tr[i])
			break
		}
		f = min(f, g.rcap[a^1])
		i = g.head[a]
	}
	for j := g.head[mid]; ; {
		a := g.parent[j]
		if a == terminal {
			f = min(f, -g.tr[j])
			break
		}
		f = min(f, g.rcap[a])
		j = g.head[a]
	}
	return f
}

// adopt finds orphan i a new parent in its tree: a neighbour j with a
// residual arc in the tree's direction whose own path to the terminal is
// valid (origin check), the one nearest the terminal. Without one i becomes
// free: its children become orphans and its tree neighbours that could
// reach it become active.
func (g *Graph) adopt(i int32, orphans []int32, push func(int32)) []int32 {
	t := g.tree[i]
	best, bestD := int32(-1), int32(math.MaxInt32)
	for a := g.first[i]; a >= 0; a = g.next[a] {
		var c float64
		if t == inS {
			c = g.rcap[a^1] // j → i
		} else {
			c = g.rcap[a] // i → j
		}
		if c <= 0 {
			continue
		}
		j := g.head[a]
		if g.tree[j] != t || g.parent[j] == noParent {
			continue
		}
		// origin check: walk up from j until the terminal, an orphan, or a
		// node verified in this stage.
		d := int32(0)
		k := j
		ok := false
		for {
			if g.ts[k] == g.time {
				d += g.dist[k]
				ok = true
				break
			}
			p := g.parent[k]
			d++
			if p == terminal {
				g.ts[k], g.dist[k] = g.time, 1
				ok = true
				break
			}
			if p == orphanArc || p == noParent {
				break
			}
			k = g.head[p]
		}
		if !ok {
			continue
		}
		if d < bestD {
			best, bestD = a, d
		}
		// stamp the path from j with its distances
		for k := j; g.ts[k] != g.time; k = g.head[g.parent[k]] {
			g.ts[k], g.dist[k] = g.time, d
			d--
		}
	}
	if best >= 0 {
		g.parent[i], g.ts[i], g.dist[i] = best, g.time, bestD+1
		return orphans
	}
	// no parent: i becomes free
	g.tree[i], g.parent[i] = free, noParent
	for a := g.first[i]; a >= 0; a = g.next[a] {
		j := g.head[a]
		if g.tree[j] != t || g.parent[j] == noParent {
			continue
		}
		var c float64
		if t == inS {
			c = g.rcap[a^1]
		} else {
			c = g.rcap[a]
		}
		if c > 0 {
			push(j)
		}
		if p := g.parent[j]; p >= 0 && g.head[p] == i {
			g.parent[j] = orphanArc
			orphans = append(orphans, j)
		}
	}
	return orphans
}

// Source reports whether node i is on the source side of the minimum cut
// MaxFlow found (label 1 of the energy): the nodes reachable from s in the
// residual graph, which is the S tree when the algorithm stops.
func (g *Graph) Source(i int) bool { return g.tree[i] == inS }

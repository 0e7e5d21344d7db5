// Package multicut solves minimum cost (lifted) multicut problems:
//
//	min_y Σ_{e ∈ E∪F} c_e · y_e,   y_e = 1 iff the endpoints of e are in different clusters,
//
// over decompositions of G = (V, E) (every cluster connected through E; lifted
// edges F only contribute cost). Positive cost = the endpoints prefer to be
// joined. Solvers: GAEC and KLj (Keuper, Andres, Brox, ICCV 2015; Keuper,
// Levinkov, Bonneel, Lavoué, Brox, Andres, "Efficient decomposition of image and
// mesh graphs by lifted multicuts", ICCV 2015). Pure Go.
//
// A labelling assigns each node an integer cluster label; the energy of a
// labelling is Σ_e c_e·[label(u) ≠ label(v)] (see Energy). Solvers return
// canonical labels 0..k-1 numbered in order of first appearance.
package multicut

import (
	"fmt"
	"math"
	"slices"
)

// Edge is an undirected edge with its cost; Lifted edges belong to F and do
// not contribute to connectivity.
type Edge struct {
	U, V   int
	Cost   float64
	Lifted bool
}

// Graph is a multicut instance on nodes 0..N-1.
type Graph struct {
	N     int
	Edges []Edge
}

// MaxCost bounds |cost| of an edge. Energies, move gains and uncertainty
// margins γ are sums of at most 2^62 edge costs, so with |c| ≤ 1e150 they
// stay below 1e169, far from overflowing float64 (1.8e308); even squares of
// costs (logistic fits) stay finite. Real costs are logits, |c| < 50.
const MaxCost = 1e150

// MaxNodes is the largest node count accepted (node ids are stored as int32
// internally).
const MaxNodes = math.MaxInt32

// MaxIsolated bounds the nodes without an edge that a graph file may
// announce beyond the ends of its edges: a header claiming 10^8 nodes for
// one edge would otherwise make the solvers allocate gigabytes. Real
// instances have few isolated nodes (trajectories without a neighbour).
const MaxIsolated = 1 << 20

// edgeProblem describes the first invalid edge found by checkEdges: edge index
// I (and Other for a duplicate, Other < I), with a message.
type edgeProblem struct {
	I, Other int
	Msg      string
}

// checkEdges validates node count and edges; it returns nil when the graph is
// a valid instance. Duplicates (u,v)/(v,u) of any kind (regular or lifted) are
// found by sorting packed endpoint keys, O(M log M) and no map.
func checkEdges(n int, edges []Edge) (nerr string, p *edgeProblem) {
	if n < 0 {
		return fmt.Sprintf("negative node count %d", n), nil
	}
	if n > MaxNodes {
		return fmt.Sprintf("node count %d exceeds the maximum %d", n, MaxNodes), nil
	}
	for i, e := range edges {
		switch {
		case e.U < 0 || e.U >= n || e.V < 0 || e.V >= n:
			return "", &edgeProblem{I: i, Other: -1, Msg: fmt.Sprintf("node id out of range in edge (%d,%d): ids must be in [0,%d)", e.U, e.V, n)}
		case e.U == e.V:
			return "", &edgeProblem{I: i, Other: -1, Msg: fmt.Sprintf("self-loop (%d,%d)", e.U, e.V)}
		case math.IsNaN(e.Cost) || math.IsInf(e.Cost, 0):
			return "", &edgeProblem{I: i, Other: -1, Msg: fmt.Sprintf("edge (%d,%d) has non-finite cost %v", e.U, e.V, e.Cost)}
		case math.Abs(e.Cost) > MaxCost:
			return "", &edgeProblem{I: i, Other: -1, Msg: fmt.Sprintf("edge (%d,%d) has cost %g beyond ±%g (energies and move gains are sums of costs and must stay finite)", e.U, e.V, e.Cost, MaxCost)}
		}
	}
	type keyed struct {
		key uint64
		idx int
	}
	keys := make([]keyed, len(edges))
	for i, e := range edges {
		u, v := e.U, e.V
		if u > v {
			u, v = v, u
		}
		keys[i] = keyed{uint64(u)<<32 | uint64(v), i}
	}
	slices.SortFunc(keys, func(a, b keyed) int {
		if a.key != b.key {
			if a.key < b.key {
				return -1
			}
			return 1
		}
		return a.idx - b.idx
	})
	var dup *edgeProblem
	for i := 1; i < len(keys); i++ {
		if keys[i].key == keys[i-1].key {
			// Report the duplicate that appears first in input order.
			if dup == nil || keys[i].idx < dup.I {
				e := edges[keys[i].idx]
				dup = &edgeProblem{I: keys[i].idx, Other: keys[i-1].idx,
					Msg: fmt.Sprintf("duplicate edge (%d,%d)", e.U, e.V)}
			}
		}
	}
	return "", dup
}

// Validate reports the first problem of g: a negative or too large node
// count, a node id out of range, a self-loop, a NaN or infinite cost, or a
// duplicate edge ((u,v) and (v,u) are the same edge, whether lifted or not).
func (g *Graph) Validate() error {
	if g == nil {
		return fmt.Errorf("multicut: nil graph")
	}
	if msg, p := checkEdges(g.N, g.Edges); msg != "" {
		return fmt.Errorf("multicut: %s", msg)
	} else if p != nil {
		if p.Other >= 0 {
			return fmt.Errorf("multicut: edge %d: %s (same as edge %d)", p.I, p.Msg, p.Other)
		}
		return fmt.Errorf("multicut: edge %d: %s", p.I, p.Msg)
	}
	return nil
}

// Counts returns the number of regular (E) and lifted (F) edges.
func (g *Graph) Counts() (regular, lifted int) {
	for _, e := range g.Edges {
		if e.Lifted {
			lifted++
		} else {
			regular++
		}
	}
	return regular, lifted
}

// Components returns the connected components of G = (V, E) (lifted edges
// ignored) as canonical labels 0..k-1. This is the feasible labelling with
// every regular edge joined; it is optimal when all costs are positive.
// The graph must be valid (see Validate).
func Components(g *Graph) []int {
	uf := newUnionFind(g.N)
	for _, e := range g.Edges {
		if !e.Lifted {
			uf.union(int32(e.U), int32(e.V))
		}
	}
	labels := make([]int, g.N)
	for i := range labels {
		labels[i] = int(uf.find(int32(i)))
	}
	return Canonical(labels)
}

// ConnectedParts returns the connected components, through regular edges,
// of every cluster of labels, as canonical labels 0..k-1: the feasible
// decomposition that keeps every edge inside a cluster uncut that labels
// does and cuts the rest. It is labels itself, up to renumbering, exactly
// when labels is feasible. The graph must be valid and labels one per node.
func ConnectedParts(g *Graph, labels []int) []int {
	uf := newUnionFind(g.N)
	for _, e := range g.Edges {
		if !e.Lifted && labels[e.U] == labels[e.V] {
			uf.union(int32(e.U), int32(e.V))
		}
	}
	parts := make([]int, g.N)
	for i := range parts {
		parts[i] = int(uf.find(int32(i)))
	}
	return Canonical(parts)
}

// unionFind is a disjoint-set forest with path halving and union by size.
type unionFind struct {
	parent []int32
	size   []int32
}

func newUnionFind(n int) *unionFind {
	uf := &unionFind{parent: make([]int32, n), size: make([]int32, n)}
	for i := range uf.parent {
		uf.parent[i] = int32(i)
		uf.size[i] = 1
	}
	return uf
}

func (uf *unionFind) find(x int32) int32 {
	for uf.parent[x] != x {
		uf.parent[x] = uf.parent[uf.parent[x]]
		x = uf.parent[x]
	}
	return x
}

func (uf *unionFind) union(a, b int32) int32 {
	a, b = uf.find(a), uf.find(b)
	if a == b {
		return a
	}
	if uf.size[a] < uf.size[b] {
		a, b = b, a
	}
	uf.parent[b] = a
	uf.size[a] += uf.size[b]
	return a
}

// adjacency is a compressed sparse row view of E ∪ F: the neighbours of node
// v are nbr[off[v]:off[v+1]], with the edge cost and whether the edge is
// regular (in E).
type adjacency struct {
	off  []int32
	nbr  []int32
	cost []float64
	reg  []bool
}

func buildAdjacency(g *Graph) adjacency {
	n := g.N
	a := adjacency{off: make([]int32, n+1)}
	for _, e := range g.Edges {
		a.off[e.U+1]++
		a.off[e.V+1]++
	}
	for i := 0; i < n; i++ {
		a.off[i+1] += a.off[i]
	}
	m2 := int(a.off[n])
	a.nbr = make([]int32, m2)
	a.cost = make([]float64, m2)
	a.reg = make([]bool, m2)
	fill := make([]int32, n)
	copy(fill, a.off[:n])
	put := func(u, v int, c float64, reg bool) {
		k := fill[u]
		fill[u]++
		a.nbr[k] = int32(v)
		a.cost[k] = c
		a.reg[k] = reg
	}
	for _, e := range g.Edges {
		put(e.U, e.V, e.Cost, !e.Lifted)
		put(e.V, e.U, e.Cost, !e.Lifted)
	}
	return a
}

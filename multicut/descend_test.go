package multicut

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// minMargin returns, by brute force over every node and every cluster it
// reaches through a regular edge, the smallest energy change of moving one
// node, computed as the difference of two energies; with feasible, only
// over the moves that leave the decomposition feasible.
func minMargin(g *Graph, labels []int, feasible bool) float64 {
	e0 := Energy(g, labels)
	best := 0.0
	for v := range labels {
		for _, e := range g.Edges {
			if e.Lifted || (e.U != v && e.V != v) {
				continue
			}
			u := e.U + e.V - v
			if labels[u] == labels[v] {
				continue
			}
			moved := slices.Clone(labels)
			moved[v] = labels[u]
			if feasible && Feasible(g, moved) != nil {
				continue
			}
			best = min(best, Energy(g, moved)-e0)
		}
	}
	return best
}

func TestDescendHandComputed(t *testing.T) {
	// A path 0–1–2–3 labelled {0,1} {2,3}: node 1 is pulled to 2 by +5
	// and to 0 by +1, so moving it lowers the energy by 4 (γ = 1 − 5).
	// After the move, node 0 is alone; joining {1,2,3} through the edge
	// of cost +1 lowers the energy by 1.
	g := &Graph{N: 4, Edges: []Edge{{U: 0, V: 1, Cost: 1}, {U: 1, V: 2, Cost: 5}, {U: 2, V: 3, Cost: 2}}}
	labels, moves := Descend(g, []int{0, 0, 1, 1})
	if want := []int{0, 0, 0, 0}; !slices.Equal(labels, want) || moves != 2 {
		t.Fatalf("Descend = %v after %d moves, want %v after 2", labels, moves, want)
	}
	// A negative edge keeps node 0 apart: 0–1 costs −3, so the first
	// move (1 to 2) leaves 0 alone and moving it back costs +3.
	g.Edges[0].Cost = -3
	labels, moves = Descend(g, []int{0, 0, 1, 1})
	if want := []int{0, 1, 1, 1}; !slices.Equal(labels, want) || moves != 1 {
		t.Fatalf("Descend = %v after %d moves, want %v after 1", labels, moves, want)
	}
	// A local optimum is returned as it is (canonically numbered).
	labels, moves = Descend(g, []int{7, 3, 3, 3})
	if want := []int{0, 1, 1, 1}; !slices.Equal(labels, want) || moves != 0 {
		t.Fatalf("Descend of an optimum = %v after %d moves, want %v after 0", labels, moves, want)
	}
}

// TestDescendDisconnects: moving the middle node of a path out of its
// cluster disconnects it. Without lifted edges the move is made and the
// ends become clusters of their own; with a lifted edge between the ends
// the split would cut it, and the move is not made.
func TestDescendDisconnects(t *testing.T) {
	// 0–1–2 in one cluster, 1–3 pulls 1 away with +10 against 0–1 and 1–2
	// at +1 each (γ = 2 − 10 = −8); 0–3 and 2–3 at −5 keep 0 and 2 from
	// following it (γ = 0 − (1 − 5) = 4). Energy 0 before, −8 after.
	g := &Graph{N: 4, Edges: []Edge{{U: 0, V: 1, Cost: 1}, {U: 1, V: 2, Cost: 1}, {U: 1, V: 3, Cost: 10}, {U: 0, V: 3, Cost: -5}, {U: 2, V: 3, Cost: -5}}}
	labels, moves := Descend(g, []int{0, 0, 0, 1})
	if want := []int{0, 1, 2, 1}; !slices.Equal(labels, want) || moves != 1 {
		t.Fatalf("Descend = %v after %d moves, want %v after 1", labels, moves, want)
	}
	if e := Energy(g, labels); e != -8 {
		t.Fatalf("energy %g after the move, want −8", e)
	}
	// A lifted edge 0–2 of cost +4: the split would raise the energy by 4
	// on top of γ; the move is infeasible without it and is not made.
	g.Edges = append(g.Edges, Edge{U: 0, V: 2, Cost: 4, Lifted: true})
	labels, moves = Descend(g, []int{0, 0, 0, 1})
	if want := []int{0, 0, 0, 1}; !slices.Equal(labels, want) || moves != 0 {
		t.Fatalf("with the lifted edge Descend = %v after %d moves, want %v after 0", labels, moves, want)
	}
}

// TestDescendRandom: on random instances started from random feasible
// labellings, no single-node move lowers the energy afterwards (brute
// force; with lifted edges: no move that keeps the decomposition
// feasible), the labels are feasible, and the energy never rises.
func TestDescendRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for trial := range 300 {
		lifted := trial%2 == 1
		g := randomGraph(r, 4+r.IntN(40), 0.1+0.3*r.Float64(), map[bool]float64{false: 0, true: 0.2}[lifted], r.Float64()-0.5)
		start := make([]int, g.N)
		for v := range start {
			start[v] = r.IntN(1 + r.IntN(6))
		}
		start = ConnectedParts(g, start)
		labels, _ := Descend(g, start)
		if err := Feasible(g, labels); err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		if !slices.Equal(labels, Canonical(labels)) {
			t.Fatalf("trial %d: labels %v not canonical", trial, labels)
		}
		if m := minMargin(g, labels, lifted); m < -1e-6 {
			t.Fatalf("trial %d (lifted %v): a move still lowers the energy by %g", trial, lifted, -m)
		}
		if e0, e1 := Energy(g, start), Energy(g, labels); e1 > e0+1e-9 {
			t.Fatalf("trial %d: energy rose from %g to %g", trial, e0, e1)
		}
	}
}

package multicut

import (
	"math"
	"math/rand/v2"
	"testing"
)

// groupInstance: cluster A holds a triangle S = {0, 1, 2} (costs 5) and a
// triangle A' = {3, 4, 5} (costs 10), joined by s_i–a_i (3); cluster B is
// the triangle {6, 7, 8} (costs 10). Each s_i has edges of 2.5 to b_i and
// b_{i+1}; a_i–b_i costs −20. Moving one s_i into B changes the gain by
// (2.5 + 2.5) − (5 + 5 + 3) = −8; moving all of S gains 6·2.5 − 3·3 = 6.
func groupInstance() (*Graph, []int) {
	g := &Graph{N: 9}
	add := func(u, v int, c float64) { g.Edges = append(g.Edges, Edge{U: u, V: v, Cost: c}) }
	for _, t := range [][3]int{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}} {
		c := 10.0
		if t[0] == 0 {
			c = 5
		}
		add(t[0], t[1], c)
		add(t[1], t[2], c)
		add(t[0], t[2], c)
	}
	for i := 0; i < 3; i++ {
		add(i, 3+i, 3)
		add(i, 6+i, 2.5)
		add(i, 6+(i+1)%3, 2.5)
	}
	for i := 0; i < 3; i++ {
		add(3+i, 6+i, -20)
	}
	return g, []int{0, 0, 0, 0, 0, 0, 1, 1, 1}
}

// The group sequence started at s0 moves s0 (−8), s1 (+2) and s2 (+12): its
// best prefix is all of S, gain 6, which is the exact optimum.
func TestGroupMovesHandComputed(t *testing.T) {
	g, start := groupInstance()
	s := newKL(g, start, 200, 1000)
	e0 := s.energy()
	if d := s.groupMoves(DefaultGroupMoves); math.Abs(d-6) > 1e-9 {
		t.Fatalf("groupMoves gained %v, want 6", d)
	}
	got := s.currentLabels()
	want := []int{0, 0, 0, 1, 1, 1, 0, 0, 0}
	if !equalInts(got, want) {
		t.Fatalf("labels %v, want %v", got, want)
	}
	if e := s.energy(); math.Abs(e-(e0-6)) > 1e-9 {
		t.Fatalf("energy %v, want %v", e, e0-6)
	}
	if opt, _ := exactOptimum(t, g); math.Abs(opt-Energy(g, got)) > 1e-9 {
		t.Fatalf("energy %v, exact optimum %v", Energy(g, got), opt)
	}
	// From the optimum nothing improves, and a third pass on the same
	// clusters runs no sequence: every start is recorded as tried.
	if d := s.groupMoves(DefaultGroupMoves); d != 0 {
		t.Fatalf("second pass gained %v", d)
	}
	tried := len(s.groupTried)
	s.groupRuns = 0
	if d := s.groupMoves(DefaultGroupMoves); d != 0 || len(s.groupTried) != tried || s.groupRuns != 0 {
		t.Fatalf("third pass: gain %v, %d records (was %d), %d sequences run", d, len(s.groupTried), tried, s.groupRuns)
	}
	// Sequences of two moves cannot reach it: the first two cost −6.
	s2 := newKL(g, start, 200, 1000)
	if d := s2.groupMoves(2); d != 0 {
		t.Fatalf("groupMoves(2) gained %v, want 0", d)
	}
}

// runMove runs one pass of a KLj move (move) on a state started from start
// and checks that its result is feasible and that the gain it reports is the
// fall of the energy; it returns the gain and the labels.
func runMove(t *testing.T, g *Graph, start []int, move func(*kl) float64) (float64, []int) {
	t.Helper()
	s := newKL(g, start, 200, 1000)
	e0 := Energy(g, start)
	d := move(s)
	lab := s.currentLabels()
	if err := Feasible(g, lab); err != nil {
		t.Fatalf("infeasible result: %v", err)
	}
	if got := e0 - Energy(g, lab); math.Abs(got-d) > 1e-9 {
		t.Fatalf("reported gain %v, energy fell by %v", d, got)
	}
	return d, lab
}

// A group whose removal disconnects its cluster: A is a path 3 – S – 4 with
// S = {0, 1, 2} in the middle. Moving S into B gains 7 and cuts the lifted
// edge 3–4 (cost c34) when A falls apart, so it is kept iff 7 − c34 > 0
// (c34 = 1: 6; c34 = 8: nothing). With c34 = −2 node 3 follows S (its
// gain is 1 − c34 = 3): 7 + 3 = 10, and A = {4} stays connected.
// (Sequences never move all of a cluster: that is a join.)
func TestGroupMovesSplitsDisconnectedCluster(t *testing.T) {
	for _, c := range []struct {
		lifted, wantGain float64
	}{{1, 6}, {-2, 10}, {8, 0}} {
		g := &Graph{N: 8}
		add := func(u, v int, cost float64, lifted bool) {
			g.Edges = append(g.Edges, Edge{U: u, V: v, Cost: cost, Lifted: lifted})
		}
		add(0, 1, 5, false)
		add(1, 2, 5, false)
		add(3, 0, 1, false)
		add(2, 4, 1, false)
		add(3, 4, c.lifted, true)
		// B = {5, 6, 7}, strongly joined, and attracting S: 3 · 3 − 2 · 1
		// = 7 gained by moving S, before the lifted edge.
		add(5, 6, 10, false)
		add(6, 7, 10, false)
		for i := 0; i < 3; i++ {
			add(i, 5+i, 3, false)
		}
		start := []int{0, 0, 0, 0, 0, 1, 1, 1}
		if d, _ := runMove(t, g, start, func(s *kl) float64 { return s.groupMoves(DefaultGroupMoves) }); math.Abs(d-c.wantGain) > 1e-9 {
			t.Fatalf("lifted cost %v: gain %v, want %v", c.lifted, d, c.wantGain)
		}
	}
}

// Group moves follow the multilevel refinement from the same labelling and
// are kept only when they lower the energy, so KLj with them is never worse
// than without; on random instances they must also find something.
func TestKLjGroupMovesNeverWorse(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	lower := 0
	for trial := 0; trial < 40; trial++ {
		g := randomGraph(r, 150, 0.06, 0.03, -0.3)
		with, err := KLj(g, KLjOptions{MaxStall: 3, FullSweep: -1, JoinEvict: -1})
		if err != nil {
			t.Fatal(err)
		}
		without, err := KLj(g, KLjOptions{MaxStall: 3, FullSweep: -1, GroupMoves: -1, JoinEvict: -1})
		if err != nil {
			t.Fatal(err)
		}
		ew, eo := Energy(g, with), Energy(g, without)
		if ew > eo+1e-9 {
			t.Fatalf("trial %d: with group moves %v, without %v", trial, ew, eo)
		}
		if ew < eo-1e-9 {
			lower++
		}
		if err := Feasible(g, with); err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
	}
	if lower == 0 {
		t.Error("group moves lowered the energy on none of 40 instances")
	}
	t.Logf("group moves lowered the energy on %d of 40 instances", lower)
}

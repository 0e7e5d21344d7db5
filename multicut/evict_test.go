package multicut

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// joinEvictInstance is the pattern of the DAVIS motocross-jump graph in five
// nodes: cluster A = {a1 = 0, a2 = 1, p = 2}, the small cluster C = {c = 3}
// and Q = {q = 4}. c repels p (−3.5) and is held by a1 and a2 (1.25 each),
// so joining C into A costs 1; p moving to q alone costs 3 − 4 = 1; joined,
// p's pull to A is 2 + 2 − 3.5 = 0.5, and moving it to q gains 2.5: the
// compound move lowers the energy from −2 to −3.5, the optimum.
func joinEvictInstance() (*Graph, []int) {
	g := &Graph{N: 5, Edges: []Edge{
		{U: 0, V: 1, Cost: 10}, {U: 0, V: 2, Cost: 2}, {U: 1, V: 2, Cost: 2},
		{U: 3, V: 0, Cost: 1.25}, {U: 3, V: 1, Cost: 1.25}, {U: 3, V: 2, Cost: -3.5},
		{U: 2, V: 4, Cost: 3}, {U: 4, V: 0, Cost: -4},
	}}
	return g, []int{0, 0, 0, 1, 2}
}

func TestJoinEvictHandComputed(t *testing.T) {
	g, start := joinEvictInstance()
	opt, optL := exactOptimum(t, g)
	if e := Energy(g, start); e != -2 || opt != -3.5 {
		t.Fatalf("start energy %v, optimum %v; want -2 and -3.5", e, opt)
	}
	if want := []int{0, 0, 1, 0, 1}; !slices.Equal(Canonical(optL), want) {
		t.Fatalf("optimum %v, want %v", optL, want)
	}
	// Everything else KLj does leaves the start alone.
	without, err := KLj(g, KLjOptions{Start: start, JoinEvict: -1})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(without, start) {
		t.Fatalf("KLj without join-and-evict moved to %v (energy %v); the instance no longer tests them", without, Energy(g, without))
	}
	s := newKL(g, start, 200, 1000)
	if d := s.joinEvictMoves(DefaultJoinEvict); math.Abs(d-1.5) > 1e-12 {
		t.Fatalf("join-and-evict gain %v, want 1.5", d)
	}
	if got := s.currentLabels(); !slices.Equal(got, Canonical(optL)) {
		t.Fatalf("join-and-evict labels %v, want %v", got, Canonical(optL))
	}
	with, err := KLj(g, KLjOptions{Start: start})
	if err != nil {
		t.Fatal(err)
	}
	if e := Energy(g, with); e != opt {
		t.Fatalf("KLj energy %v, want the optimum %v", e, opt)
	}
	// A bound below |C| = 1 leaves the start alone.
	s = newKL(g, start, 200, 1000)
	if d := s.joinEvictMoves(0); d != 0 || !slices.Equal(s.currentLabels(), start) {
		t.Fatalf("size bound 0: gain %v, labels %v; want none", d, s.currentLabels())
	}
}

// TestJoinEvictSplitsAndLifted: A = {a1 = 0, a2 = 1, p = 2} is connected
// through p only (a1–a2 is lifted, cost L); c = 3 holds on to a1 (2.5) and
// repels p (−3.5), so the join costs 1; evicting p to q = 4 gains
// 3 − (2 + 2 − 3.5) = 2.5 and leaves a2 apart from a1 and c. The union
// falls into {a1, c} and {a2}, which cuts the lifted edge: with L = 1 the
// move still pays (1.5 − 1), with L = 2 it does not and nothing changes.
func TestJoinEvictSplitsAndLifted(t *testing.T) {
	for _, c := range []struct {
		lifted, want float64
	}{{1, 0.5}, {2, 0}} {
		g := &Graph{N: 5, Edges: []Edge{
			{U: 0, V: 2, Cost: 2}, {U: 1, V: 2, Cost: 2}, {U: 0, V: 1, Cost: c.lifted, Lifted: true},
			{U: 3, V: 0, Cost: 2.5}, {U: 3, V: 2, Cost: -3.5},
			{U: 2, V: 4, Cost: 3}, {U: 4, V: 0, Cost: -4}, {U: 4, V: 1, Cost: -5},
		}}
		start := []int{0, 0, 0, 1, 2}
		d, lab := runMove(t, g, start, func(s *kl) float64 { return s.joinEvictMoves(DefaultJoinEvict) })
		if math.Abs(d-c.want) > 1e-12 {
			t.Fatalf("lifted %v: gain %v, want %v", c.lifted, d, c.want)
		}
		want := start
		if c.want > 0 {
			want = []int{0, 1, 2, 0, 2}
		}
		if !slices.Equal(lab, want) {
			t.Fatalf("lifted %v: labels %v, want %v", c.lifted, lab, want)
		}
	}
}

// TestKLjJoinEvictNeverWorse: join-and-evict moves run only where the rest
// of KLj has stopped and keep only exact decreases, so KLj with them is
// never worse than without; on random instances (lifted edges, small
// clusters) they must find something, and every result is feasible.
func TestKLjJoinEvictNeverWorse(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	lower := 0
	for trial := 0; trial < 60; trial++ {
		g := randomGraph(r, 120, 0.05, 0.03, -0.6)
		with, err := KLj(g, KLjOptions{MaxStall: 3, FullSweep: -1})
		if err != nil {
			t.Fatal(err)
		}
		without, err := KLj(g, KLjOptions{MaxStall: 3, FullSweep: -1, JoinEvict: -1})
		if err != nil {
			t.Fatal(err)
		}
		if err := Feasible(g, with); err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		ew, eo := Energy(g, with), Energy(g, without)
		if ew > eo+1e-9 {
			t.Fatalf("trial %d: with join-and-evict %v, without %v", trial, ew, eo)
		}
		if ew < eo-1e-9 {
			lower++
		}
	}
	if lower == 0 {
		t.Error("join-and-evict lowered the energy on none of 60 instances")
	}
	t.Logf("join-and-evict lowered the energy on %d of 60 instances", lower)
}

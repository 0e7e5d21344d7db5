package multicut

import (
	"math/rand/v2"
	"testing"
)

// A hand-computed neighbourhood re-solve: the path 0–1–2 with attractive
// regular edges (+1, +1) and a repulsive lifted edge (0, 2) of −5. From
// singletons (energy 1 + 1 − 5 = −3) the first neighbourhood is {0, 1}
// (centre 0, the largest cluster with the smallest id), whose subgraph GAEC
// joins; {0, 1}, {2} has energy 1 − 5 = −4, the optimum (joining all three
// would uncut the lifted edge: energy 0).
func TestNeighbourhoodsHandComputed(t *testing.T) {
	g := &Graph{N: 3, Edges: []Edge{{U: 0, V: 1, Cost: 1}, {U: 1, V: 2, Cost: 1}, {U: 0, V: 2, Cost: -5, Lifted: true}}}
	got := neighbourhoods(g, []int{0, 1, 2}, 10, 200, 1000, 100)
	if e := Energy(g, got); e != -4 {
		t.Fatalf("energy %v (labels %v), want -4", e, got)
	}
	if err := Feasible(g, got); err != nil {
		t.Fatal(err)
	}
	// a neighbourhood larger than the bound is not re-solved
	if got := neighbourhoods(g, []int{0, 1, 2}, 1, 200, 1000, 100); !equalInts(got, []int{0, 1, 2}) {
		t.Fatalf("bound 1 node: labels %v, want the start", got)
	}
}

// Fusion of two labellings is feasible and no worse than either; on random
// graphs with lifted edges it is sometimes strictly better than both.
func TestFuseNoWorseThanEither(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	rng := &splitMix{7}
	better := 0
	for trial := 0; trial < 40; trial++ {
		g := randomGraph(r, 80+r.IntN(60), 0.06, 0.04*float64(trial%2), -0.3)
		a := newKL(g, gaec(g), 200, 1000).search(gaec(g), 100, nil)
		b := proposal(g, rng, 200, 1000, 100)
		if err := Feasible(g, b); err != nil {
			t.Fatalf("trial %d: proposal infeasible: %v", trial, err)
		}
		f := fuse(g, a, b, 1000, 100)
		if err := Feasible(g, f); err != nil {
			t.Fatalf("trial %d: fusion infeasible: %v", trial, err)
		}
		ea, eb, ef := Energy(g, a), Energy(g, b), Energy(g, f)
		if ef > min(ea, eb)+1e-9 {
			t.Fatalf("trial %d: fusion %.9g worse than its inputs %.9g, %.9g", trial, ef, ea, eb)
		}
		if ef < min(ea, eb)-1e-9 {
			better++
		}
	}
	if better == 0 {
		t.Error("fusion never improved on both of its inputs in 40 trials")
	}
	t.Logf("fusion strictly better than both inputs in %d of 40 trials", better)
}

// KLj with the large-neighbourhood moves is never below the exact optimum
// (a bug in the energy bookkeeping would show as an impossible energy),
// never worse than the default KLj, feasible, and deterministic.
func TestKLjThoroughAgainstExactOptimum(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const instances = 300
	hits, defHits := 0, 0
	for it := 0; it < instances; it++ {
		g := smallInstance(r, 3, it%2 == 1)
		opt, _ := exactOptimum(t, g)
		def, err := KLj(g, KLjOptions{})
		if err != nil {
			t.Fatal(err)
		}
		th := KLjOptions{VCycles: 2, Neighbourhood: ThoroughNeighbourhood, Fusions: ThoroughFusions, Seed: uint64(it)}
		got, err := KLj(g, th)
		if err != nil {
			t.Fatal(err)
		}
		if err := Feasible(g, got); err != nil {
			t.Fatalf("instance %d: infeasible: %v", it, err)
		}
		e, ed := Energy(g, got), Energy(g, def)
		if e < opt-1e-9 {
			t.Fatalf("instance %d: energy %.12g below the optimum %.12g", it, e, opt)
		}
		if e > ed+1e-9 {
			t.Fatalf("instance %d: thorough %.12g worse than the default %.12g", it, e, ed)
		}
		again, _ := KLj(g, th)
		if !equalInts(again, got) {
			t.Fatalf("instance %d: two runs with seed %d differ", it, it)
		}
		if e <= opt+1e-9 {
			hits++
		}
		if ed <= opt+1e-9 {
			defHits++
		}
	}
	t.Logf("exact optimum reached: thorough %d/%d, default %d/%d", hits, instances, defHits, instances)
	if hits < defHits {
		t.Errorf("thorough reaches the optimum on %d instances, the default on %d", hits, defHits)
	}
}

// On medium random graphs with lifted edges the moves lower the energy
// below the default's on some instances (they are reaching KLj) and never
// raise it.
func TestKLjThoroughLowersEnergy(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	lower := 0
	for trial := 0; trial < 15; trial++ {
		g := randomGraph(r, 150, 0.05, 0.03, -0.2)
		def, _ := Solve(g, SolveOptions{})
		th, err := Solve(g, SolveOptions{Neighbourhood: 500, Fusions: 2, Seed: 9})
		if err != nil {
			t.Fatal(err)
		}
		if err := Feasible(g, th.Labels); err != nil {
			t.Fatal(err)
		}
		if th.Energy > def.Energy+1e-9 {
			t.Fatalf("trial %d: %.9g with the moves, %.9g without", trial, th.Energy, def.Energy)
		}
		if th.Energy < def.Energy-1e-9 {
			lower++
		}
	}
	if lower == 0 {
		t.Error("the moves never lowered the energy in 15 trials")
	}
}

func TestConnectedParts(t *testing.T) {
	// path 0–1–2–3–4 (regular) and a lifted edge 0–4: cluster 0 without
	// node 2 falls into {0, 1} and {3, 4}
	g := &Graph{N: 5, Edges: []Edge{{U: 0, V: 1, Cost: 1}, {U: 1, V: 2, Cost: 1}, {U: 2, V: 3, Cost: 1}, {U: 3, V: 4, Cost: 1}, {U: 0, V: 4, Cost: 1, Lifted: true}}}
	if got := ConnectedParts(g, []int{0, 0, 1, 0, 0}); !equalInts(got, []int{0, 0, 1, 2, 2}) {
		t.Fatalf("got %v", got)
	}
	if got := ConnectedParts(g, []int{0, 0, 0, 1, 1}); !equalInts(got, []int{0, 0, 0, 1, 1}) {
		t.Fatalf("connected clusters relabelled: %v", got)
	}
}

package uncertainty

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/densify/densify/multicut"
)

// bruteOptimum enumerates all partitions (restricted growth strings) of a
// small graph and returns a feasible one of minimum energy.
func bruteOptimum(g *multicut.Graph) ([]int, float64) {
	best, bestE := []int(nil), math.Inf(1)
	lab := make([]int, g.N)
	var rec func(i, k int)
	rec = func(i, k int) {
		if i == g.N {
			if multicut.Feasible(g, lab) == nil {
				if e := multicut.Energy(g, lab); e < bestE {
					bestE, best = e, append([]int(nil), lab...)
				}
			}
			return
		}
		for l := 0; l <= k; l++ {
			lab[i] = l
			nk := k
			if l == k {
				nk = k + 1
			}
			rec(i+1, nk)
		}
	}
	rec(0, 0)
	return best, bestE
}

func key(labels []int) string { return fmt.Sprint(multicut.Canonical(labels)) }

func TestNBestFindsOptimumOneMoveAway(t *testing.T) {
	// Two triangles {0,1,2}, {3,4,5} joined by repulsive edges 2–3 (E) and
	// 1–4 (E), and a lifted 0–5. The input puts node 2 into the second
	// cluster; moving it back (γ_A(2) = c23 − (c12 + c02) = −2 − 6 = −8) is the
	// smallest change of the pair and gives the optimum.
	g := &multicut.Graph{N: 6, Edges: []multicut.Edge{
		{U: 0, V: 1, Cost: 3}, {U: 1, V: 2, Cost: 3}, {U: 0, V: 2, Cost: 3},
		{U: 3, V: 4, Cost: 3}, {U: 4, V: 5, Cost: 3}, {U: 3, V: 5, Cost: 3},
		{U: 2, V: 3, Cost: -2}, {U: 1, V: 4, Cost: -1}, {U: 0, V: 5, Cost: -0.5, Lifted: true},
	}}
	opt, optE := bruteOptimum(g)
	if key(opt) != key([]int{0, 0, 0, 1, 1, 1}) || math.Abs(optE+3.5) > 1e-12 {
		t.Fatalf("brute-force optimum %v (%v), expected the two triangles (−3.5)", opt, optE)
	}
	input := []int{4, 4, 9, 9, 9, 9}
	alts, err := NBest(g, input, NBestOptions{N: 5})
	if err != nil {
		t.Fatal(err)
	}
	checkAlternatives(t, g, input, alts)
	found := false
	for _, a := range alts[1:] {
		if key(a.Labels) == key(opt) {
			found = true
			if a.Moved != 1 || a.From != 9 || a.To != 4 || math.Abs(a.Energy-optE) > 1e-12 {
				t.Errorf("optimum found as %+v", a)
			}
		}
	}
	if !found {
		t.Errorf("the optimum one move away is not among %d alternatives", len(alts))
	}
	// It has the lowest energy, so it comes right after the input.
	if key(alts[1].Labels) != key(opt) {
		t.Errorf("second labeling %v, want the optimum", alts[1].Labels)
	}
}

// checkAlternatives: first = input, the rest sorted by energy, all distinct,
// feasible, with energies equal to a recomputation.
func checkAlternatives(t *testing.T, g *multicut.Graph, input []int, alts []Alternative) {
	t.Helper()
	if len(alts) == 0 || key(alts[0].Labels) != key(input) || alts[0].From != -1 {
		t.Fatalf("first alternative is not the input")
	}
	seen := map[string]bool{}
	for i, a := range alts {
		if err := multicut.Feasible(g, a.Labels); err != nil {
			t.Errorf("alternative %d infeasible: %v", i, err)
		}
		if e := energy(g, a.Labels); math.Abs(e-a.Energy) > 1e-9 {
			t.Errorf("alternative %d: energy %v, recomputed %v", i, a.Energy, e)
		}
		k := key(a.Labels)
		if seen[k] {
			t.Errorf("alternative %d duplicates an earlier one", i)
		}
		seen[k] = true
		if i >= 2 && a.Energy < alts[i-1].Energy {
			t.Errorf("alternative %d (%v) below alternative %d (%v)", i, a.Energy, i-1, alts[i-1].Energy)
		}
		if a.Clusters != multicut.NumClusters(a.Labels) {
			t.Errorf("alternative %d: clusters %d", i, a.Clusters)
		}
	}
}

// randomFeasible: the components of a random subset of E.
func randomFeasible(rng *rand.Rand, g *multicut.Graph) []int {
	sub := &multicut.Graph{N: g.N}
	for _, e := range g.Edges {
		if !e.Lifted && rng.Intn(3) > 0 {
			sub.Edges = append(sub.Edges, e)
		}
	}
	c := multicut.Components(sub)
	for i := range c {
		c[i] *= 2 // non-contiguous label ids
	}
	return c
}

func TestNBestRandomProperties(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	nontrivial := 0
	for trial := 0; trial < 60; trial++ {
		g, _ := randomInstance(rng, 9, 16, 1)
		input := randomFeasible(rng, g)
		alts, err := NBest(g, input, NBestOptions{N: 1 + rng.Intn(12), MaxK: rng.Intn(4)})
		if err != nil {
			t.Fatal(err)
		}
		checkAlternatives(t, g, input, alts)
		if len(alts) > 1 {
			nontrivial++
		}
		// one per pair: distinct pairs, each the pair's best, never better than the unrestricted list
		pp, err := NBest(g, input, NBestOptions{N: 6, OnePerPair: true})
		if err != nil {
			t.Fatal(err)
		}
		checkAlternatives(t, g, input, pp)
		pairs := map[[2]int]bool{}
		for _, a := range pp[1:] {
			if pairs[[2]int{a.From, a.To}] {
				t.Fatalf("trial %d: pair %d→%d listed twice with OnePerPair", trial, a.From, a.To)
			}
			pairs[[2]int{a.From, a.To}] = true
		}
		full, _ := NBest(g, input, NBestOptions{N: 6})
		if len(pp) > 1 && len(full) > 1 && pp[1].Energy < full[1].Energy-1e-9 {
			t.Fatalf("trial %d: one-per-pair best %v below the unrestricted best %v", trial, pp[1].Energy, full[1].Energy)
		}
		// merges add candidates: feasible, exact, and never a worse best
		mg, err := NBest(g, input, NBestOptions{N: 6, Merges: true})
		if err != nil {
			t.Fatal(err)
		}
		checkAlternatives(t, g, input, mg)
		if len(full) > 1 && (len(mg) < 2 || mg[1].Energy > full[1].Energy+1e-9) {
			t.Fatalf("trial %d: with merges the best alternative %v, without %v", trial, mg, full[1].Energy)
		}
	}
	if nontrivial < 30 {
		t.Errorf("only %d of 60 instances produced alternatives", nontrivial)
	}
}

// The incremental energy of every candidate equals the exact recomputation.
func TestNBestIncrementalEnergy(t *testing.T) {
	rng := rand.New(rand.NewSource(6))
	splits := 0
	defer func() {
		if splits == 0 {
			t.Error("no candidate split its source cluster: the component relabelling went untested")
		}
	}()
	for trial := 0; trial < 40; trial++ {
		g, _ := randomInstance(rng, 10, 20, 1)
		input := randomFeasible(rng, g)
		adj, _ := NewAdjacency(g)
		moves, _ := adj.Moves(input)
		members := map[int][]int{}
		maxLabel := 0
		for v, l := range input {
			members[l] = append(members[l], v)
			maxLabel = max(maxLabel, l)
		}
		e0 := multicut.Energy(g, input)
		s := &nbestState{adj: adj, orig: input, cur: append([]int(nil), input...),
			mark: make([]int32, g.N), vis: make([]int32, g.N), seen: map[[2]uint64]bool{}, keep: 1 << 20}
		for i := range moves {
			// move node alone, and together with the next move of the same pair
			S := moves[i : i+1]
			if i+1 < len(moves) && moves[i+1].From == moves[i].From && moves[i+1].To == moves[i].To {
				S = moves[i : i+2]
			}
			s.candidate(S, members[S[0].From], maxLabel, e0)
		}
		for _, a := range s.best {
			if a.Split > 0 {
				splits++
			}
			if e := multicut.Energy(g, a.Labels); math.Abs(e-a.Energy) > 1e-9 {
				t.Fatalf("trial %d: incremental energy %v, exact %v (%+v)", trial, a.Energy, e, a)
			}
			if err := multicut.Feasible(g, a.Labels); err != nil {
				t.Fatalf("trial %d: %v", trial, err)
			}
		}
	}
}

func TestNBestErrors(t *testing.T) {
	g, _ := handGraph()
	if _, err := NBest(g, []int{0, 0, 0, 1, 1, 1}, NBestOptions{N: 0}); err == nil {
		t.Error("n = 0 accepted")
	}
	// {0,1,2} ∪ {5}: 5 joins 0 only through a lifted edge and 2 through E, fine;
	// {3,4} ∪ {0}: 0–3 is lifted only → not connected.
	if _, err := NBest(g, []int{1, 0, 0, 1, 1, 0}, NBestOptions{N: 3}); err == nil {
		t.Error("infeasible input accepted")
	}
	if _, err := NBest(g, []int{0, 0}, NBestOptions{N: 3}); err == nil {
		t.Error("short labels accepted")
	}
}

// A path 0–1–2 (cluster A) beside 3–4 (cluster B), joined through E only by
// 2–3 (cost 1) and attracted by the lifted edge 0–4 (cost 5); every cost is
// attractive, so the optimum is one cluster (energy 0) and the input costs
// 1 + 5 = 6. The moves reach only node 2 into B (energy 3 + 5 = 8) or node 3
// into A (8): neither is the merge. With Merges the whole of A moves to B
// (Δ = −(1 + 5)) and that alternative is the optimum, listed once although
// B into A gives the same partition.
func TestNBestMergesWholeGroups(t *testing.T) {
	g := &multicut.Graph{N: 5, Edges: []multicut.Edge{
		{U: 0, V: 1, Cost: 3}, {U: 1, V: 2, Cost: 3}, {U: 2, V: 3, Cost: 1}, {U: 3, V: 4, Cost: 3},
		{U: 0, V: 4, Cost: 5, Lifted: true},
	}}
	input := []int{0, 0, 0, 1, 1}
	if _, optE := bruteOptimum(g); optE != 0 {
		t.Fatalf("brute-force optimum %v, want 0", optE)
	}
	for _, merges := range []bool{false, true} {
		for _, perPair := range []bool{false, true} {
			alts, err := NBest(g, input, NBestOptions{N: 10, Merges: merges, OnePerPair: perPair})
			if err != nil {
				t.Fatal(err)
			}
			checkAlternatives(t, g, input, alts)
			merged := 0
			for _, a := range alts[1:] {
				if a.Clusters == 1 {
					merged++
					if a.Energy != 0 || a.Moved != 3 || a.From != 0 || a.To != 1 {
						t.Errorf("merges %v, per pair %v: merge %+v, want energy 0, 3 nodes of cluster 0 to 1", merges, perPair, a)
					}
				} else if a.Energy != 8 {
					t.Errorf("merges %v, per pair %v: move %+v, want energy 8", merges, perPair, a)
				}
			}
			if want := map[bool]int{false: 0, true: 1}[merges]; merged != want {
				t.Errorf("merges %v, per pair %v: %d merged alternatives, want %d (%+v)", merges, perPair, merged, want, alts)
			}
			if merges && alts[1].Clusters != 1 {
				t.Errorf("the merge (energy 0) is not the first alternative: %+v", alts)
			}
		}
	}
}

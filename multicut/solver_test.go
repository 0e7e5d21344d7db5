package multicut

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// exactOptimum enumerates all set partitions of the nodes (restricted growth
// strings; Bell(9) = 21147 for 9 nodes), keeps the feasible ones (every
// cluster connected through E) and returns the minimum energy.
func exactOptimum(t *testing.T, g *Graph) (float64, []int) {
	t.Helper()
	n := g.N
	labels := make([]int, n)
	best := math.Inf(1)
	var bestL []int
	count := 0
	var rec func(i, k int)
	rec = func(i, k int) {
		if i == n {
			count++
			if Feasible(g, labels) != nil {
				return
			}
			if e := Energy(g, labels); e < best {
				best = e
				bestL = append([]int(nil), labels...)
			}
			return
		}
		for l := 0; l <= k; l++ {
			labels[i] = l
			nk := k
			if l == k {
				nk = k + 1
			}
			rec(i+1, nk)
		}
	}
	if n == 0 {
		return 0, []int{}
	}
	labels[0] = 0
	rec(1, 1)
	bell := []int{1, 1, 2, 5, 15, 52, 203, 877, 4140, 21147}
	if count != bell[n] {
		t.Fatalf("enumerated %d partitions of %d nodes, want Bell = %d", count, n, bell[n])
	}
	return best, bestL
}

// smallInstance draws an instance of minN..9 nodes for exactOptimum: a
// random regular edge density, lifted edges when lifted, a random cost
// bias.
func smallInstance(r *rand.Rand, minN int, lifted bool) *Graph {
	n := minN + r.IntN(10-minN)
	pReg := 0.2 + 0.6*r.Float64()
	pLift := 0.0
	if lifted {
		pLift = (1 - pReg) * r.Float64()
	}
	bias := r.Float64()*1.5 - 0.5
	return randomGraph(r, n, pReg, pLift, bias)
}

// randomGraph draws a graph with regular edge density pReg and lifted edge
// density pLift among the remaining pairs; costs are Gaussian with mean bias.
func randomGraph(r *rand.Rand, n int, pReg, pLift, bias float64) *Graph {
	g := &Graph{N: n}
	for u := 0; u < n; u++ {
		for v := u + 1; v < n; v++ {
			x := r.Float64()
			switch {
			case x < pReg:
				g.Edges = append(g.Edges, Edge{U: u, V: v, Cost: bias + r.NormFloat64()})
			case x < pReg+pLift:
				g.Edges = append(g.Edges, Edge{U: u, V: v, Cost: bias + r.NormFloat64(), Lifted: true})
			}
		}
	}
	// Shuffle edge order and orientation: solvers must not depend on them.
	r.Shuffle(len(g.Edges), func(i, j int) { g.Edges[i], g.Edges[j] = g.Edges[j], g.Edges[i] })
	for i := range g.Edges {
		if r.IntN(2) == 0 {
			g.Edges[i].U, g.Edges[i].V = g.Edges[i].V, g.Edges[i].U
		}
	}
	return g
}

// checkLocalOptimum fails when moving one node to an E-adjacent cluster or to
// a new singleton keeps the labelling feasible and lowers the energy.
func checkLocalOptimum(t *testing.T, g *Graph, labels []int) {
	t.Helper()
	e0 := Energy(g, labels)
	size := map[int]int{}
	for _, l := range labels {
		size[l]++
	}
	trial := append([]int(nil), labels...)
	for v := 0; v < g.N; v++ {
		targets := map[int]bool{}
		for _, e := range g.Edges {
			if e.Lifted {
				continue
			}
			if e.U == v && labels[e.V] != labels[v] {
				targets[labels[e.V]] = true
			}
			if e.V == v && labels[e.U] != labels[v] {
				targets[labels[e.U]] = true
			}
		}
		if size[labels[v]] > 1 {
			targets[-1] = true // new singleton
		}
		for b := range targets {
			trial[v] = b
			if Feasible(g, trial) == nil {
				if e := Energy(g, trial); e < e0-1e-9 {
					t.Fatalf("not locally optimal: moving node %d from %d to %d lowers energy %.12g → %.12g", v, labels[v], b, e0, e)
				}
			}
			trial[v] = labels[v]
		}
	}
}

func TestSolversAgainstExactOptimum(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const instances = 600
	gaecHits, kljHits := 0, 0
	var kindHits [2][2]int // [lifted][gaec, klj]
	for it := 0; it < instances; it++ {
		g := smallInstance(r, 2, it%2 == 1)
		opt, _ := exactOptimum(t, g)

		lg, err := GAEC(g)
		if err != nil {
			t.Fatal(err)
		}
		if err := Feasible(g, lg); err != nil {
			t.Fatalf("instance %d: GAEC infeasible: %v", it, err)
		}
		eg := Energy(g, lg)
		if eg < opt-1e-9 {
			t.Fatalf("instance %d: GAEC energy %.12g below the optimum %.12g", it, eg, opt)
		}
		lk, err := KLj(g, KLjOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := Feasible(g, lk); err != nil {
			t.Fatalf("instance %d: KLj infeasible: %v", it, err)
		}
		ek := Energy(g, lk)
		if ek < opt-1e-9 {
			t.Fatalf("instance %d: KLj energy %.12g below the optimum %.12g", it, ek, opt)
		}
		if ek > eg+1e-9 {
			t.Fatalf("instance %d: KLj %.12g worse than its GAEC start %.12g", it, ek, eg)
		}
		checkLocalOptimum(t, g, lk)
		if eg <= opt+1e-9 {
			gaecHits++
			kindHits[it%2][0]++
		}
		if ek <= opt+1e-9 {
			kljHits++
			kindHits[it%2][1]++
		}
	}
	gr, kr := float64(gaecHits)/instances, float64(kljHits)/instances
	t.Logf("exact optimum reached on %d instances (≤ 9 nodes, half lifted): GAEC %.1f%%, KLj %.1f%%", instances, 100*gr, 100*kr)
	t.Logf("without lifted edges: GAEC %d/%d, KLj %d/%d; with lifted edges: GAEC %d/%d, KLj %d/%d",
		kindHits[0][0], instances/2, kindHits[0][1], instances/2, kindHits[1][0], instances/2, kindHits[1][1], instances/2)
	if kr < 0.90 {
		t.Errorf("KLj reaches the optimum on %.1f%% of instances, want ≥ 90%%", 100*kr)
	}
	if kr < gr {
		t.Errorf("KLj hit rate %.3f below GAEC's %.3f", kr, gr)
	}
}

// KLj started from arbitrary feasible labellings never ends worse than the
// start and is locally optimal.
func TestKLjNeverWorseThanStart(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for it := 0; it < 200; it++ {
		n := 5 + r.IntN(60)
		g := randomGraph(r, n, 0.1+0.3*r.Float64(), 0.2*r.Float64(), r.Float64()-0.5)
		var start []int
		switch it % 3 {
		case 0:
			start = Components(g)
		case 1:
			start = make([]int, n)
			for i := range start {
				start[i] = i
			}
		default:
			start, _ = GAEC(g)
		}
		l, err := KLj(g, KLjOptions{Start: start})
		if err != nil {
			t.Fatal(err)
		}
		if err := Feasible(g, l); err != nil {
			t.Fatalf("instance %d: %v", it, err)
		}
		if e, e0 := Energy(g, l), Energy(g, start); e > e0+1e-9 {
			t.Fatalf("instance %d: KLj %.12g worse than start %.12g", it, e, e0)
		}
		checkLocalOptimum(t, g, l)
	}
}

func TestKLjRejectsInfeasibleStart(t *testing.T) {
	g := &Graph{N: 3, Edges: []Edge{{0, 1, 1, false}, {0, 2, 1, true}}}
	// Nodes 0 and 2 share a cluster but are joined only by a lifted edge.
	if _, err := KLj(g, KLjOptions{Start: []int{0, 1, 0}}); err == nil || !strings.Contains(err.Error(), "not connected") {
		t.Fatalf("want a connectivity error, got %v", err)
	}
	if _, err := KLj(g, KLjOptions{Start: []int{0, 1}}); err == nil {
		t.Fatal("want an error for a start of the wrong length")
	}
}

func TestEdgeCases(t *testing.T) {
	solvers := map[string]func(*Graph) ([]int, error){
		"gaec": GAEC,
		"klj":  func(g *Graph) ([]int, error) { return KLj(g, KLjOptions{}) },
	}
	// A chain 0-1-2, a pair 3-4, an isolated node 5.
	pos := &Graph{N: 6, Edges: []Edge{{0, 1, 2, false}, {1, 2, 0.5, false}, {3, 4, 1, false}, {0, 4, 3, true}}}
	neg := &Graph{N: 4, Edges: []Edge{{0, 1, -1, false}, {1, 2, -0.5, false}, {2, 3, -2, false}, {0, 3, -1, true}}}
	for name, solve := range solvers {
		// No nodes, and nodes without edges: singletons.
		if l, err := solve(&Graph{}); err != nil || len(l) != 0 {
			t.Fatalf("%s empty graph: %v %v", name, l, err)
		}
		if l, err := solve(&Graph{N: 3}); err != nil || !equalInts(l, []int{0, 1, 2}) {
			t.Fatalf("%s edgeless: %v %v", name, l, err)
		}
		// All positive: one cluster per component of E (the lifted edge 0–4
		// cannot join them), the isolated node alone.
		l, err := solve(pos)
		if err != nil || !equalInts(l, []int{0, 0, 0, 1, 1, 2}) {
			t.Fatalf("%s all positive: %v %v", name, l, err)
		}
		if !equalInts(l, Components(pos)) || Energy(pos, l) != 3 {
			t.Fatalf("%s all positive: energy %v", name, Energy(pos, l))
		}
		// All negative: singletons.
		l, err = solve(neg)
		if err != nil || !equalInts(l, []int{0, 1, 2, 3}) || Energy(neg, l) != -4.5 {
			t.Fatalf("%s all negative: %v %v", name, l, err)
		}
		// Invalid graphs are rejected, not solved.
		for _, bad := range []*Graph{
			{N: 2, Edges: []Edge{{0, 0, 1, false}}},
			{N: 2, Edges: []Edge{{0, 1, 1, false}, {1, 0, 2, true}}},
			{N: 2, Edges: []Edge{{0, 2, 1, false}}},
			{N: 2, Edges: []Edge{{0, 1, math.NaN(), false}}},
			{N: -1},
		} {
			if _, err := solve(bad); err == nil {
				t.Fatalf("%s accepted invalid graph %+v", name, bad)
			}
		}
	}
}

// A lifted edge joins costs but cannot be contracted on its own; once the
// clusters become adjacent through E its cost counts (Keuper et al. ICCV'15).
func TestGAECLiftedHandComputed(t *testing.T) {
	// Path 0-1-2 with weak regular edges; strong lifted attraction 0–2.
	g := &Graph{N: 3, Edges: []Edge{{0, 1, -0.5, false}, {1, 2, -0.5, false}, {0, 2, 5, true}}}
	// Contractible costs are all negative: GAEC does nothing.
	l, _ := GAEC(g)
	if !equalInts(l, []int{0, 1, 2}) {
		t.Fatalf("GAEC %v", l)
	}
	// The optimum joins all three (energy 0 versus 4 for singletons). From
	// singletons no single move or pair join helps (each costs 0.5), so KLj
	// stays there: a local optimum. From {0,1},{2} the join gains 4.5.
	k, _ := KLj(g, KLjOptions{})
	if Energy(g, k) != 4 {
		t.Fatalf("KLj from GAEC: %v energy %v, want the local optimum 4", k, Energy(g, k))
	}
	k, _ = KLj(g, KLjOptions{Start: []int{0, 0, 1}})
	if !equalInts(k, []int{0, 0, 0}) {
		t.Fatalf("KLj from {0,1},{2}: %v, want one cluster", k)
	}
	// With 0-1 attractive, GAEC contracts it; then {0,1}–2 has cost
	// -0.5 + 5 = 4.5 > 0 and is contractible through the regular edge 1-2.
	g.Edges[0].Cost = 1
	l, _ = GAEC(g)
	if !equalInts(l, []int{0, 0, 0}) {
		t.Fatalf("GAEC %v", l)
	}
	// A lifted edge alone never joins: 0–2 lifted, no regular path.
	g2 := &Graph{N: 3, Edges: []Edge{{0, 1, -1, false}, {0, 2, 10, true}}}
	l, _ = GAEC(g2)
	k, _ = KLj(g2, KLjOptions{})
	if !equalInts(l, []int{0, 1, 2}) || !equalInts(k, []int{0, 1, 2}) {
		t.Fatalf("GAEC %v KLj %v", l, k)
	}
}

func TestEnergyFeasibleCanonical(t *testing.T) {
	g := &Graph{N: 4, Edges: []Edge{{0, 1, 1.5, false}, {1, 2, -2, false}, {2, 3, 0.25, false}, {0, 3, 4, true}}}
	if e := Energy(g, []int{7, 7, 3, 3}); e != -2+4 {
		t.Fatalf("energy %v", e)
	}
	if e := Energy(g, []int{0, 0}); !math.IsNaN(e) {
		t.Fatalf("energy with short labels %v", e)
	}
	if err := Feasible(g, []int{5, 5, 9, 9}); err != nil {
		t.Fatal(err)
	}
	// 0 and 3 only joined by the lifted edge → infeasible.
	if err := Feasible(g, []int{1, 2, 2, 1}); err == nil {
		t.Fatal("want infeasible")
	}
	if c := Canonical([]int{7, 7, -3, 9, -3}); !equalInts(c, []int{0, 0, 1, 2, 1}) {
		t.Fatalf("canonical %v", c)
	}
	if k := NumClusters([]int{7, 7, -3, 9, -3}); k != 3 {
		t.Fatalf("clusters %d", k)
	}
}

// Medium instances: KLj stays feasible, locally optimal and no worse than
// GAEC on lifted graphs with planted structure.
func TestPlantedMedium(t *testing.T) {
	improved := 0
	for seed := uint64(1); seed <= 4; seed++ {
		g, _ := GeneratePlanted(GenerateOptions{Seed: seed, Nodes: 400, Edges: 3000, Lifted: 2000 * int(seed%2), Clusters: 6, Noise: 4})
		lg, err := GAEC(g)
		if err != nil {
			t.Fatal(err)
		}
		lk, err := KLj(g, KLjOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := Feasible(g, lk); err != nil {
			t.Fatal(err)
		}
		eg, ek := Energy(g, lg), Energy(g, lk)
		if ek > eg+1e-9 {
			t.Fatalf("seed %d: KLj %.6g worse than GAEC %.6g", seed, ek, eg)
		}
		if ek < eg-1e-9 {
			improved++
		}
		checkLocalOptimum(t, g, lk)
		t.Logf("seed %d: GAEC %.2f (%d clusters), KLj %.2f (%d clusters)", seed, eg, NumClusters(lg), ek, NumClusters(lk))
	}
	// At this noise GAEC's greedy merges leave errors that KLj repairs.
	if improved < 3 {
		t.Fatalf("KLj improved on GAEC in %d of 4 noisy instances", improved)
	}
}

func TestKLjDeterministic(t *testing.T) {
	g, _ := GeneratePlanted(GenerateOptions{Seed: 9, Nodes: 500, Edges: 4000, Lifted: 2000, Clusters: 5, Noise: 4})
	a, _ := KLj(g, KLjOptions{})
	b, _ := KLj(g, KLjOptions{})
	if !equalInts(a, b) {
		t.Fatal("two KLj runs differ")
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Solve hands KLj's options through: with each setting it returns exactly
// what KLj returns from the GAEC start with the same options, and settings
// that change the search (no multilevel and short sequences vs the defaults)
// are seen to change it on some instance.
func TestSolvePassesKLjOptions(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	differs := map[bool]bool{} // by "JoinEvict off"
	for trial := 0; trial < 20; trial++ {
		g := randomGraph(r, 120, 0.08, 0.03, -0.2)
		for _, o := range []SolveOptions{
			{},
			{MaxStall: 2, FullSweep: -1, Levels: []int{}},
			{Levels: []int{4, 4}, VCycles: 2},
			{GroupMoves: -1},
			{GroupMoves: 3},
			{JoinEvict: -1},
			{GroupMoves: -1, JoinEvict: 2},
		} {
			sol, err := Solve(g, o)
			if err != nil {
				t.Fatal(err)
			}
			start, err := GAEC(g)
			if err != nil {
				t.Fatal(err)
			}
			want, err := KLj(g, KLjOptions{Start: start, MaxIter: o.MaxIter, MaxStall: o.MaxStall, FullSweep: o.FullSweep, Levels: o.Levels, VCycles: o.VCycles, GroupMoves: o.GroupMoves, JoinEvict: o.JoinEvict})
			if err != nil {
				t.Fatal(err)
			}
			if e := Energy(g, want); e != sol.Energy {
				t.Fatalf("trial %d, %+v: Solve energy %v, KLj with the same options %v", trial, o, sol.Energy, e)
			}
			if o.MaxStall == 2 || o.JoinEvict == -1 {
				def, _ := Solve(g, SolveOptions{})
				if def.Energy != sol.Energy {
					differs[o.JoinEvict == -1] = true
				}
			}
		}
	}
	if !differs[false] {
		t.Error("MaxStall 2 without multilevel gave the default's energy on all 20 instances: the options are not reaching KLj")
	}
	if !differs[true] {
		t.Error("JoinEvict -1 gave the default's energy on all 20 instances: the option is not reaching KLj")
	}
}

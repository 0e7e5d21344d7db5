package multicut

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// twoGrids builds two side × side grids with internal edges of cost +3 (K1:
// nodes 0..side²−1, K2 the next side² nodes), joined along a seam by side
// edges of cost −1, and a node b with +0.25 edges to the first 10 nodes of
// K2. With lifted, 10 lifted edges of cost −0.5 join far nodes of K1 and
// K2. The optimum cuts every negative edge and no positive one: K1 | K2 ∪ b,
// energy −side (−side − 5 with lifted).
func twoGrids(side int, lifted bool) (g *Graph, start []int, opt float64) {
	n := side * side
	id := func(k, i, j int) int { return k*n + i*side + j }
	g = &Graph{N: 2*n + 1}
	for k := 0; k < 2; k++ {
		for i := 0; i < side; i++ {
			for j := 0; j < side; j++ {
				if j+1 < side {
					g.Edges = append(g.Edges, Edge{U: id(k, i, j), V: id(k, i, j+1), Cost: 3})
				}
				if i+1 < side {
					g.Edges = append(g.Edges, Edge{U: id(k, i, j), V: id(k, i+1, j), Cost: 3})
				}
			}
		}
	}
	for i := 0; i < side; i++ {
		g.Edges = append(g.Edges, Edge{U: id(0, i, side-1), V: id(1, i, 0), Cost: -1})
	}
	b := 2 * n
	for v := n; v < n+10; v++ {
		g.Edges = append(g.Edges, Edge{U: b, V: v, Cost: 0.25})
	}
	opt = -float64(side)
	if lifted {
		for i := 0; i < 10; i++ {
			g.Edges = append(g.Edges, Edge{U: id(0, i, 0), V: id(1, i, side-1), Cost: -0.5, Lifted: true})
		}
		opt -= 5
	}
	// Start: both grids in one cluster, b alone.
	start = make([]int, g.N)
	start[b] = 1
	return g, start, opt
}

// Splitting the wrongly merged grids needs a move sequence of side² nodes
// whose energy only falls at its end: the first phase (MaxStall moves
// without a new best prefix), which was all of KLj before the second phase
// and the multilevel refinement, stalls at the join with b (energy 0; it
// did so with the default MaxStall); the full sweeps of the second phase
// and the multilevel refinement each reach the optimum.
func TestKLjLongSequence(t *testing.T) {
	for _, lifted := range []bool{false, true} {
		g, start, opt := twoGrids(16, lifted) // 256 nodes per grid > MaxStall 200
		e0 := Energy(g, start)
		check := func(name string, o KLjOptions, want float64) {
			t.Helper()
			o.Start = start
			l, err := KLj(g, o)
			if err != nil {
				t.Fatal(err)
			}
			if err := Feasible(g, l); err != nil {
				t.Fatalf("%s lifted=%v: %v", name, lifted, err)
			}
			if e := Energy(g, l); math.Abs(e-want) > 1e-9 {
				t.Fatalf("%s lifted=%v: energy %v, want %v (start %v)", name, lifted, e, want, e0)
			}
		}
		// Phase 1 alone joins b (gain 2.5) and stalls there: energy 0.
		if e0 != 2.5 {
			t.Fatalf("start energy %v", e0)
		}
		check("phase 1", KLjOptions{FullSweep: -1, Levels: []int{}}, 0)
		check("full sweeps", KLjOptions{Levels: []int{}}, opt)
		check("multilevel", KLjOptions{FullSweep: -1}, opt)
		check("two V-cycles", KLjOptions{FullSweep: -1, VCycles: 2}, opt)
		check("default", KLjOptions{}, opt)
	}
}

// Fragments lie inside one cluster and are connected; the fragment graph
// has the energies and the feasibility of the expanded labellings.
func TestFragmentGraph(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for it := 0; it < 100; it++ {
		n := 10 + r.IntN(60)
		g := randomGraph(r, n, 0.1+0.3*r.Float64(), 0.2*r.Float64(), r.Float64()-0.2)
		labels := Components(g)
		if it%2 == 1 {
			labels = gaec(g)
		}
		maxSize := 2 + r.IntN(8)
		frag := matchFragments(buildAdjacency(g), labels, maxSize)
		if err := Feasible(g, frag); err != nil {
			t.Fatalf("instance %d: fragments not connected: %v", it, err)
		}
		k, size, cl := 0, map[int]int{}, map[int]int{}
		for v, f := range frag {
			k = max(k, f+1)
			size[f]++
			if c, ok := cl[f]; ok && c != labels[v] {
				t.Fatalf("instance %d: fragment %d spans clusters %d and %d", it, f, c, labels[v])
			}
			cl[f] = labels[v]
		}
		for f, s := range size {
			if s > maxSize {
				t.Fatalf("instance %d: fragment %d has %d nodes > %d", it, f, s, maxSize)
			}
		}
		cg := fragmentGraph(g, frag, k)
		if err := cg.Validate(); err != nil {
			t.Fatal(err)
		}
		for i, e := range cg.Edges {
			if e.U >= e.V || (i > 0 && (cg.Edges[i-1].U > e.U || (cg.Edges[i-1].U == e.U && cg.Edges[i-1].V >= e.V))) {
				t.Fatalf("instance %d: fragment edge %d (%d, %d) out of (U, V) order", it, i, e.U, e.V)
			}
		}
		// Random coarse labellings: same energy, same feasibility.
		for trial := 0; trial < 20; trial++ {
			coarse := make([]int, k)
			for f := range coarse {
				if trial == 0 {
					coarse[f] = cl[f]
				} else {
					coarse[f] = r.IntN(3)
				}
			}
			fine := make([]int, n)
			for v, f := range frag {
				fine[v] = coarse[f]
			}
			if ec, ef := Energy(cg, coarse), Energy(g, fine); math.Abs(ec-ef) > 1e-9 {
				t.Fatalf("instance %d: coarse energy %v, expanded %v", it, ec, ef)
			}
			if (Feasible(cg, coarse) == nil) != (Feasible(g, fine) == nil) {
				t.Fatalf("instance %d: feasibility differs: coarse %v, expanded %v", it, Feasible(cg, coarse), Feasible(g, fine))
			}
		}
	}
}

// relabel moves KLj's state to another labelling: the same partition, member
// lists and positions consistent with the labels, and a cluster present in
// both keeping its id and version.
func TestKLjRelabel(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for it := 0; it < 100; it++ {
		n := 5 + r.IntN(60)
		g := randomGraph(r, n, 0.1+0.3*r.Float64(), 0.2*r.Float64(), r.Float64()-0.5)
		from, to := Components(g), gaec(g)
		if it%2 == 1 {
			from, to = to, from
		}
		s := newKL(g, from, 200, 1000)
		oldVer := slices.Clone(s.ver)
		oldLabel := slices.Clone(s.label)
		s.relabel(to)
		got := make([]int, n)
		for v, l := range s.label {
			got[v] = int(l)
		}
		if !equalInts(Canonical(got), Canonical(to)) {
			t.Fatalf("instance %d: relabelled to %v, want the partition %v", it, got, to)
		}
		for c, m := range s.members {
			for i, v := range m {
				if s.label[v] != int32(c) || s.pos[v] != int32(i) {
					t.Fatalf("instance %d: member list of %d inconsistent at node %d", it, c, v)
				}
			}
		}
		// A cluster of to that equals a cluster of from keeps id and version.
		for _, m := range s.members {
			if len(m) == 0 {
				continue
			}
			c := s.label[m[0]]
			same := int(c) < len(oldVer)
			for _, v := range m {
				same = same && oldLabel[v] == c
			}
			if same {
				size := 0
				for _, l := range oldLabel {
					if l == c {
						size++
					}
				}
				if size == len(m) && s.ver[c] != oldVer[c] {
					t.Fatalf("instance %d: unchanged cluster %d got a new version", it, c)
				}
			}
		}
	}
}

// cliques builds cliques of 6 nodes each (internal edges +1) and joins
// every node of clique i to every node of clique j with cost c[{i,j}]
// (regular edges).
func cliques(k int, c map[[2]int]float64) *Graph {
	g := &Graph{N: 6 * k}
	for q := 0; q < k; q++ {
		for u := 0; u < 6; u++ {
			for v := u + 1; v < 6; v++ {
				g.Edges = append(g.Edges, Edge{U: 6*q + u, V: 6*q + v, Cost: 1})
			}
		}
	}
	for p, w := range c {
		for u := 0; u < 6; u++ {
			for v := 0; v < 6; v++ {
				g.Edges = append(g.Edges, Edge{U: 6*p[0] + u, V: 6*p[1] + v, Cost: w})
			}
		}
	}
	return g
}

// Phase 2 sweeps every split, and every pair of two clusters of at least
// MaxStall nodes each, to its end, whatever their size against FullSweep.
// Both instances need a valley of several moves that the limited sequences
// (MaxStall 2) stop in, with FullSweep 4 below the sizes and the multilevel
// refinement off; a single-node move never helps.
func TestKLjPhase2SweepsSplitsAndLargePairs(t *testing.T) {
	opts := KLjOptions{MaxStall: 2, FullSweep: 4, Levels: []int{}}
	solve := func(g *Graph, start []int) float64 {
		t.Helper()
		o := opts
		o.Start = start
		l, err := KLj(g, o)
		if err != nil {
			t.Fatal(err)
		}
		if err := Feasible(g, l); err != nil {
			t.Fatal(err)
		}
		return Energy(g, l)
	}
	// Split: cliques A and B with −0.5 between them, merged into one
	// cluster (energy 0). Moving k nodes of A out costs k(6−k) − 3k: +2,
	// +2, 0, −4, −10, −18, so only the whole sequence finds A | B (−18).
	split := cliques(2, map[[2]int]float64{{0, 1}: -0.5})
	if e := solve(split, make([]int, 12)); math.Abs(e+18) > 1e-9 {
		t.Fatalf("split: energy %v, want −18", e)
	}
	// Pair: X = A ∪ B and Y = D (energy 3.6 − 6 = −2.4), with A–B +0.05,
	// B–D +0.1 and A–D −1/6 per edge. Moving B into Y, one node at a time,
	// raises the energy by 4.7, 7.4, 8.1, 6.8, 3.5 before it ends at −4.2,
	// the optimum; no split of X and no join helps.
	pair := cliques(3, map[[2]int]float64{{0, 1}: 0.05, {1, 2}: 0.1, {0, 2}: -1.0 / 6})
	start := make([]int, 18)
	for v := 12; v < 18; v++ {
		start[v] = 1
	}
	if e0 := Energy(pair, start); math.Abs(e0+2.4) > 1e-9 {
		t.Fatalf("pair: start energy %v, want −2.4", e0)
	}
	if e := solve(pair, start); math.Abs(e+4.2) > 1e-9 {
		t.Fatalf("pair: energy %v, want −4.2", e)
	}
}

package multicut

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// naiveGAEC is GAEC written from its definition, for comparison: at every
// step it recomputes every pair of clusters' summed cost and whether a
// regular edge joins them, and merges the contractible pair of largest
// positive cost whose union has at most maxSize nodes (0: no bound), with
// edges inside the clusters of within only (nil: all). O(steps · |E|).
func naiveGAEC(g *Graph, within []int, maxSize int) []int {
	lab := make([]int, g.N)
	size := map[int]int{}
	for v := range lab {
		lab[v] = v
		size[v] = 1
	}
	for {
		sum := map[[2]int]float64{}
		reg := map[[2]int]bool{}
		for _, e := range g.Edges {
			if within != nil && within[e.U] != within[e.V] {
				continue
			}
			a, b := lab[e.U], lab[e.V]
			if a == b {
				continue
			}
			k := [2]int{min(a, b), max(a, b)}
			sum[k] += e.Cost
			reg[k] = reg[k] || !e.Lifted
		}
		best, bk := 0.0, [2]int{-1, -1}
		for k, c := range sum {
			if reg[k] && c > best && (maxSize == 0 || size[k[0]]+size[k[1]] <= maxSize) {
				best, bk = c, k
			}
		}
		if bk[0] < 0 {
			return Canonical(lab)
		}
		for v := range lab {
			if lab[v] == bk[1] {
				lab[v] = bk[0]
			}
		}
		size[bk[0]] += size[bk[1]]
	}
}

// TestGAECAgainstNaive compares GAEC's partitions with naiveGAEC on random
// graphs with lifted edges, whole and restricted to the clusters of a
// labelling with a size bound (the multilevel coarsening). Costs are
// continuous, so ties do not occur and the partitions must be identical.
// The graphs are large enough that the pair table grows and clusters
// merge many times over.
func TestGAECAgainstNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 9))
	merges := 0
	for trial := range 60 {
		n := 20 + r.IntN(60)
		g := randomGraph(r, n, 0.15, 0.1, -0.3+0.8*r.Float64())
		got, want := gaec(g), naiveGAEC(g, nil, 0)
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d: GAEC %v, naive %v", trial, got, want)
		}
		merges += n - NumClusters(got)
		within := make([]int, n)
		for v := range within {
			within[v] = r.IntN(3)
		}
		maxSize := 2 + r.IntN(6)
		got, want = gaecWithin(g, within, maxSize), naiveGAEC(g, within, maxSize)
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d: GAEC within, size ≤ %d: %v, naive %v", trial, maxSize, got, want)
		}
	}
	if merges < 500 {
		t.Fatalf("only %d merges compared", merges)
	}
}

// TestPairTable checks the pair table against a Go map through growth:
// unordered pairs, present and absent ones.
func TestPairTable(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	tab := newPairTable(4)
	ref := map[[2]int32]int32{}
	for i := range 5000 {
		u, v := int32(r.IntN(300)), int32(r.IntN(300))
		k := [2]int32{min(u, v), max(u, v)}
		if _, ok := ref[k]; !ok {
			tab.put(u, v, int32(i))
			ref[k] = int32(i)
		}
	}
	if len(tab.keys) < 2*len(ref) {
		t.Fatalf("table of %d slots holds %d pairs, more than half full", len(tab.keys), len(ref))
	}
	for u := int32(0); u < 300; u++ {
		for v := int32(0); v < 300; v++ {
			want, wok := ref[[2]int32{min(u, v), max(u, v)}]
			got, ok := tab.get(u, v)
			if ok != wok || got != want {
				t.Fatalf("get(%d, %d) = %d, %v; want %d, %v", u, v, got, ok, want, wok)
			}
		}
	}
}

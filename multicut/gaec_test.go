package multicut

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// naiveGAEC is GAEC written from its definition, for comparison: at every
// step it recomputes every pair of clusters' summed cost and whether a
// regular edge joins them, and merges the contractible pair of largest
// positive cost. O(steps · |E|).
func naiveGAEC(g *Graph) []int {
	lab := make([]int, g.N)
	for v := range lab {
		lab[v] = v
	}
	for {
		sum := map[[2]int]float64{}
		reg := map[[2]int]bool{}
		for _, e := range g.Edges {
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
			if reg[k] && c > best {
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
	}
}

// TestGAECAgainstNaive compares GAEC's partitions with naiveGAEC on random
// graphs with lifted edges. Costs are continuous, so ties do not occur and
// the partitions must be identical.
// The graphs are large enough that the pair table grows and clusters
// merge many times over.
func TestGAECAgainstNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 9))
	merges := 0
	for trial := range 60 {
		n := 20 + r.IntN(60)
		g := randomGraph(r, n, 0.15, 0.1, -0.3+0.8*r.Float64())
		got, want := gaec(g), naiveGAEC(g)
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d: GAEC %v, naive %v", trial, got, want)
		}
		merges += n - NumClusters(got)
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
	if len(tab.slots) < 2*len(ref) {
		t.Fatalf("table of %d slots holds %d pairs, more than half full", len(tab.slots), len(ref))
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

package multicut

import (
	"math/bits"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// naiveMatch is matchFragments written from its definition, for
// comparison: every round recomputes all fragment pairs' summed costs from
// the edges, and every fragment's best partner from scratch when its turn
// comes (no reuse of the first search).
func naiveMatch(g *Graph, within []int, maxSize int) []int {
	frag := make([]int, g.N)
	size := map[int]int{}
	for v := range frag {
		frag[v] = v
		size[v] = 1
	}
	for r := 0; r < bits.Len(uint(maxSize-1)); r++ {
		sum := map[[2]int]float64{}
		reg := map[[2]int]bool{}
		for _, e := range g.Edges {
			a, b := frag[e.U], frag[e.V]
			if within[e.U] != within[e.V] || a == b {
				continue
			}
			for _, k := range [][2]int{{a, b}, {b, a}} {
				sum[k] += e.Cost
				reg[k] = reg[k] || !e.Lifted
			}
		}
		matched := map[int]bool{}
		best := func(f int) (int, float64) {
			h, c := -1, 0.0
			for k, s := range sum {
				if k[0] != f || matched[k[1]] || !reg[k] || s <= 0 || size[f]+size[k[1]] > maxSize {
					continue
				}
				if h < 0 || s > c || s == c && k[1] < h {
					h, c = k[1], s
				}
			}
			return h, c
		}
		type cand struct {
			f int
			c float64
		}
		var order []cand
		for f := range size {
			if h, c := best(f); h >= 0 {
				order = append(order, cand{f, c})
			}
		}
		if len(order) == 0 {
			break
		}
		sort.Slice(order, func(i, j int) bool {
			if order[i].c != order[j].c {
				return order[i].c > order[j].c
			}
			return order[i].f < order[j].f
		})
		for _, o := range order {
			if matched[o.f] {
				continue
			}
			h, _ := best(o.f)
			if h < 0 {
				continue
			}
			for v := range frag {
				if frag[v] == h {
					frag[v] = o.f
				}
			}
			size[o.f] += size[h]
			delete(size, h)
			matched[o.f], matched[h] = true, true
		}
	}
	return Canonical(frag)
}

// On the path a–b–c–d with costs 3, 5, 1: round 1 pairs b with c (the
// heaviest edge), after which a's and d's partners are taken; round 2
// (bound 4) pairs a with {b, c}, whose sums to a (3) and to d (1) decide,
// ties broken by the smaller id. GAEC with the same bound would also
// contract d (cost 1 > 0): a matching round pairs each fragment once.
func TestMatchFragmentsPath(t *testing.T) {
	g := &Graph{N: 4, Edges: []Edge{{U: 0, V: 1, Cost: 3}, {U: 1, V: 2, Cost: 5}, {U: 2, V: 3, Cost: 1}}}
	same := []int{0, 0, 0, 0}
	for _, c := range []struct {
		maxSize int
		want    []int
	}{{2, []int{0, 1, 1, 2}}, {3, []int{0, 0, 0, 1}}, {4, []int{0, 0, 0, 1}}, {8, []int{0, 0, 0, 0}}} {
		if got := matchFragments(buildAdjacency(g), same, c.maxSize); !slices.Equal(got, c.want) {
			t.Errorf("maxSize %d: fragments %v, want %v", c.maxSize, got, c.want)
		}
	}
	// Clusters bound the fragments: b and c apart leave a with b, c with d.
	if got, want := matchFragments(buildAdjacency(g), []int{0, 0, 1, 1}, 16), []int{0, 0, 1, 1}; !slices.Equal(got, want) {
		t.Errorf("within clusters: fragments %v, want %v", got, want)
	}
	// Ties go to the smaller id: node 0 with two partners of cost 2 visits
	// first and takes node 1.
	star := &Graph{N: 3, Edges: []Edge{{U: 0, V: 2, Cost: 2}, {U: 0, V: 1, Cost: 2}}}
	if got, want := matchFragments(buildAdjacency(star), []int{0, 0, 0}, 2), []int{0, 0, 1}; !slices.Equal(got, want) {
		t.Errorf("tie: fragments %v, want %v", got, want)
	}
	// A lifted edge does not make a pair contractible.
	g.Edges[1].Lifted = true
	if got, want := matchFragments(buildAdjacency(g), same, 2), []int{0, 0, 1, 1}; !slices.Equal(got, want) {
		t.Errorf("lifted b–c: fragments %v, want %v", got, want)
	}
}

// matchFragments against naiveMatch on random graphs with lifted edges and
// random clusters; costs are continuous, so there are no ties and the
// fragments must be identical.
func TestMatchFragmentsAgainstNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	merged := 0
	for trial := range 80 {
		n := 10 + r.IntN(60)
		g := randomGraph(r, n, 0.1+0.3*r.Float64(), 0.15, -0.3+0.8*r.Float64())
		within := make([]int, n)
		for v := range within {
			within[v] = r.IntN(1 + trial%3)
		}
		maxSize := 2 + r.IntN(15)
		got, want := matchFragments(buildAdjacency(g), within, maxSize), naiveMatch(g, within, maxSize)
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d (maxSize %d): fragments %v, naive %v", trial, maxSize, got, want)
		}
		merged += n - NumClusters(got)
	}
	if merged < 500 {
		t.Fatalf("only %d merges compared", merged)
	}
}

package multicut

import (
	"slices"
	"testing"
)

// matchFragments' steps by hand on the path 0–1–2–3 (costs 3, 1, 2) with a
// lifted edge 0–2 of cost 5, all in one cluster.
func TestFragmenterStepsByHand(t *testing.T) {
	g := &Graph{N: 4, Edges: []Edge{{U: 0, V: 1, Cost: 3}, {U: 1, V: 2, Cost: 1}, {U: 2, V: 3, Cost: 2}, {U: 0, V: 2, Cost: 5, Lifted: true}}}
	fr := newFragmenter(buildAdjacency(g), []int{0, 0, 0, 0}, 4)
	// Round 1, single nodes: 0's partner is 1 (the lifted 0–2 is not
	// contractible), 2's is 3 (2 > 1).
	for _, c := range []struct {
		f, h int32
		c    float64
	}{{0, 1, 3}, {1, 0, 3}, {2, 3, 2}, {3, 2, 2}} {
		if h, s := fr.partner(c.f, 1); h != c.h || s != c.c {
			t.Errorf("round 1: partner of %d is %d (%v), want %d (%v)", c.f, h, s, c.h, c.c)
		}
	}
	// Merges by decreasing c: 0 takes 1, then 2 takes 3.
	if !fr.round(1) || !slices.Equal(fr.frag, []int32{0, 0, 2, 2}) || fr.root[0].size != 2 || fr.last[0] != 1 || fr.next[0] != 1 {
		t.Fatalf("after round 1: fragments %v, root %+v", fr.frag, fr.root)
	}
	// {0,1} to {2,3}: 0–2 (5, lifted) + 1–2 (1, in E) = 6, contractible.
	fr.sumNeighbours(0)
	if !slices.Equal(fr.touched, []int32{2}) || fr.sums[2].sum != 6 || !fr.sums[2].reg {
		t.Errorf("sums of {0,1}: touched %v, %+v", fr.touched, fr.sums[2])
	}
	if h, c := fr.partner(0, 2); h != 2 || c != 6 {
		t.Errorf("round 2: partner of {0,1} is %d (%v), want 2 (6)", h, c)
	}
	if !fr.round(2) || !slices.Equal(fr.labels(), []int{0, 0, 0, 0}) {
		t.Errorf("after round 2: %v", fr.labels())
	}
	// With at most 3 nodes per fragment round 2 finds no partner.
	fr = newFragmenter(buildAdjacency(g), []int{0, 0, 0, 0}, 3)
	if !fr.round(1) || fr.round(2) || !slices.Equal(fr.labels(), []int{0, 0, 1, 1}) {
		t.Errorf("size 3: %v", fr.labels())
	}
	// Arcs between clusters are skipped: with 1 and 2 in different
	// clusters, node 1's partner is 0 and node 2's is 3 whatever their costs.
	fr = newFragmenter(buildAdjacency(g), []int{0, 0, 1, 1}, 4)
	if h, _ := fr.partner(1, 1); h != 0 {
		t.Errorf("partner of 1 across clusters: %d", h)
	}
	fr.round(1)
	fr.sumNeighbours(0)
	if len(fr.touched) != 0 {
		t.Errorf("sums across clusters: %v", fr.touched)
	}
}

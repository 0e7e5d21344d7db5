package decompose

import (
	"math"
	"testing"

	"github.com/densify/densify/multicut"
	"github.com/densify/densify/uncertainty"
)

// layeredOf is the γ of Kardoost & Keuper (UAI 2021, Eq. 12; β = ½) and
// Layered's Γ of labels on g, with the adjacency they were computed on.
func layeredOf(t *testing.T, g *multicut.Graph, labels []int) (*uncertainty.Adjacency, *uncertainty.Result, []float64) {
	t.Helper()
	adj, err := uncertainty.NewAdjacency(g)
	if err != nil {
		t.Fatal(err)
	}
	res, err := adj.Compute(labels, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Layered(adj, labels, res)
	if err != nil {
		t.Fatal(err)
	}
	return adj, res, got
}

// TestLayeredChainEnergy checks Γ on a path 0–1–2–3 (E) with a lifted edge
// 0–2, clusters A = {0,1,2}, B = {3}, and an isolated node 4 (cluster C, no
// edges) against the energy changes computed by hand and by
// multicut.Energy of the moved labelling.
func TestLayeredChainEnergy(t *testing.T) {
	g := &multicut.Graph{N: 5, Edges: []multicut.Edge{
		{U: 0, V: 1, Cost: 1}, {U: 1, V: 2, Cost: 2}, {U: 2, V: 3, Cost: 3},
		{U: 0, V: 2, Cost: 0.5, Lifted: true},
	}}
	labels := []int{0, 0, 0, 1, 2}
	adj, res, got := layeredOf(t, g, labels)
	// node 2: γ = (2 + 0.5) − 3; node 3: γ_A(3) = 0 − (3) … its only
	// neighbour is 2 in A: γ = 0 − 3 = −3; node 1: moves {1,2}; node 0:
	// moves {0,1,2}.
	want := []float64{-3, -1.5, -0.5, -3, math.Inf(1)}
	e0 := multicut.Energy(g, labels)
	moved := map[int][]int{0: {0, 0, 0, 0, 2}, 1: {0, 1, 1, 1, 2}, 2: {0, 0, 1, 1, 2}}
	for v, w := range want {
		if got[v] != w {
			t.Errorf("Γ(%d) = %v, want %v", v, got[v], w)
		}
		if m, ok := moved[v]; ok {
			if d := multicut.Energy(g, m) - e0; math.Abs(d-w) > 1e-12 {
				t.Errorf("Γ(%d) = %v but the chain move changes the energy by %v", v, w, d)
			}
		}
	}
	// γ₁: node 0: min(+∞, 1 + 0.5); node 1: 1 + 2; node 2: min(−0.5, 2.5);
	// node 3: no edge into its own cluster: γ = −3; node 4: +∞.
	sg, err := SingleNode(adj, labels, res)
	if err != nil {
		t.Fatal(err)
	}
	for v, w := range []float64{1.5, 3, -0.5, -3, math.Inf(1)} {
		if sg[v] != w {
			t.Errorf("γ₁(%d) = %v, want %v", v, sg[v], w)
		}
	}
	if res.Gamma[2] != -0.5 || !math.IsInf(res.Gamma[1], 1) {
		t.Errorf("γ = %v, want γ(2) = −0.5 and γ(1) = +∞", res.Gamma)
	}
}

// TestLayeredPicksCheaperChain: node 1 sits between two layer-0 nodes with
// different targets; it extends the chain whose total is lower.
func TestLayeredPicksCheaperChain(t *testing.T) {
	// 0(B) – 2(A) – 1(A) – 3(A) – 4(C): E path; A = {1,2,3}.
	g := &multicut.Graph{N: 5, Edges: []multicut.Edge{
		{U: 0, V: 2, Cost: 1}, {U: 2, V: 1, Cost: 4}, {U: 1, V: 3, Cost: 2}, {U: 3, V: 4, Cost: 0.5},
	}}
	labels := []int{1, 0, 0, 0, 2}
	_, _, got := layeredOf(t, g, labels)
	// γ(2) = 4 − 1 = 3 (to B); γ(3) = 2 − 0.5 = 1.5 (to C).
	// via 2: 3 + (2 − 4) = 1; via 3: 1.5 + (4 − 2) = 3.5 → Γ(1) = 1.
	if got[1] != 1 || got[2] != 3 || got[3] != 1.5 {
		t.Errorf("Γ = %v, want Γ(1) = 1, Γ(2) = 3, Γ(3) = 1.5", got)
	}
	if e := multicut.Energy(g, []int{1, 1, 1, 0, 2}) - multicut.Energy(g, labels); e != 1 {
		t.Errorf("moving {1,2} to B changes the energy by %v, want 1", e)
	}
}

// SegmentFloor by hand: segments {0..5}, {6}, {7,8} of 9 pixels, mean size
// 3. Γ = 0, +∞, +∞, +∞, +∞, 2 | −1 | +∞, 1, so u = ½, 0, 0, 0, 0, σ(−2) |
// σ(1) | 0, σ(−1). Segment 0 (6 pixels, not below the mean) keeps its own u:
// its μ = (½ + σ(−2))/6 ≈ 0.10 would otherwise lift pixels 1–4 above pixel
// 7. Segment 1 (one pixel) has μ = σ(1) = u; segment 2 (2 pixels) is floored
// at μ = σ(−1)/2, which lifts pixel 7 (u = 0) above pixel 5 (σ(−2) ≈ 0.12 <
// σ(−1)/2 ≈ 0.13). Order: 6, 0, 8, 7, 5, then 1–4 tied (equal s and Γ).
func TestSegmentFloorHandComputed(t *testing.T) {
	inf := math.Inf(1)
	labels := []int{0, 0, 0, 0, 0, 0, 1, 2, 2}
	gamma := []float64{0, inf, inf, inf, inf, 2, -1, inf, 1}
	s, rank, err := SegmentFloor(labels, gamma)
	if err != nil {
		t.Fatal(err)
	}
	sg := func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
	wantS := []float64{0.5, 0, 0, 0, 0, sg(-2), sg(1), sg(-1) / 2, sg(-1)}
	wantR := []float64{8, 4, 4, 4, 4, 5, 9, 6, 7}
	for v := range labels {
		if math.Abs(s[v]-wantS[v]) > 1e-12 || rank[v] != wantR[v] {
			t.Fatalf("pixel %d: s %v rank %v, want %v and %v (all s %v rank %v)", v, s[v], rank[v], wantS[v], wantR[v], s, rank)
		}
	}
	// With all pixels in segments of the mean size (two of 3) nothing is
	// floored: the ranking is that of Γ alone, ties shared.
	s, rank, err = SegmentFloor([]int{0, 0, 0, 1, 1, 1}, []float64{inf, 1, -2, inf, inf, 0})
	if err != nil {
		t.Fatal(err)
	}
	wantS = []float64{0, sg(-1), sg(2), 0, 0, 0.5}
	wantR = []float64{3, 4, 6, 3, 3, 5}
	for v := range wantS {
		if math.Abs(s[v]-wantS[v]) > 1e-12 || rank[v] != wantR[v] {
			t.Fatalf("equal segments, pixel %d: s %v rank %v, want %v and %v", v, s[v], rank[v], wantS[v], wantR[v])
		}
	}
	if _, _, err := SegmentFloor(labels, gamma[:8]); err == nil {
		t.Fatal("8 Γ for 9 labels accepted")
	}
}

package colourcut

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/densify/densify/internal/gmm"
)

// energy is Cut's energy of a labelling of the free pixels
// (node ≥ 0; fixed pixels are background), computed directly from its
// definition over all unordered 8-neighbour pairs.
func energy(lab []bool, rgb, u0, u1 []float64, node []int32, w, h int, gf, gb *gmm.Mixture, beta, colour, smooth float64) float64 {
	x := func(i int) bool { return node[i] >= 0 && lab[node[i]] }
	e := 0.0
	for i := 0; i < w*h; i++ {
		if node[i] < 0 {
			continue
		}
		k, c := node[i], rgb[3*i:3*i+3]
		if x(i) {
			e += u1[k] - colour*gf.LogDensity(c)
		} else {
			e += u0[k] - colour*gb.LogDensity(c)
		}
	}
	for i := 0; i < w*h; i++ {
		for j := i + 1; j < min(w*h, i+w+2); j++ {
			dx, dy := j%w-i%w, j/w-i/w
			if dx < -1 || dx > 1 || dy > 1 || x(i) == x(j) {
				continue
			}
			d2 := 0.0
			for c := 0; c < 3; c++ {
				d2 += (rgb[3*i+c] - rgb[3*j+c]) * (rgb[3*i+c] - rgb[3*j+c])
			}
			e += smooth / math.Hypot(float64(dx), float64(dy)) * math.Exp(-beta*d2)
		}
	}
	return e
}

// On small random frames with fixed pixels, the cut's labelling has the
// least energy of all 2^n labellings of the free pixels.
func TestSolveBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	const w, h = 4, 4
	for trial := 0; trial < 60; trial++ {
		rgb := make([]float64, 3*w*h)
		p := make([]float64, w*h)
		for i := range p {
			p[i] = rng.Float64()
			if trial%3 == 0 {
				p[i] = math.Round(p[i]) // 0 and 1: refine's clamp to [ε, 1 − ε]
			}
			for c := 0; c < 3; c++ {
				rgb[3*i+c] = float64(rng.IntN(256))
			}
		}
		node := make([]int32, w*h)
		n := 0
		for i := range node {
			node[i] = -1
			if rng.IntN(4) != 0 { // a quarter fixed
				node[i] = int32(n)
				n++
			}
		}
		gf, _ := gmm.Fit(rgb[:18], 2, 1)
		gb, _ := gmm.Fit(rgb[18:], 3, 1)
		// refine's costs: λ_n times −log of the clamped probability.
		net, colour, smooth := 0.5+rng.Float64(), rng.Float64()*0.3, rng.Float64()*6
		beta := 1 / (2 * 40000.0)
		u0, u1 := make([]float64, n), make([]float64, n)
		for i, k := range node {
			if k >= 0 {
				q := min(1-1e-3, max(1e-3, p[i]))
				u1[k], u0[k] = net*-math.Log(q), net*-math.Log(1-q)
			}
		}
		lab, err := solve(rgb, u0, u1, n, gf, gb, newPairTerms(rgb, node, n, w, h, beta, smooth), colour)
		if err != nil {
			t.Fatal(err)
		}
		got := energy(lab, rgb, u0, u1, node, w, h, gf, gb, beta, colour, smooth)
		best := math.Inf(1)
		all := make([]bool, n)
		for m := 0; m < 1<<n; m++ {
			for k := range all {
				all[k] = m>>k&1 == 1
			}
			best = min(best, energy(all, rgb, u0, u1, node, w, h, gf, gb, beta, colour, smooth))
		}
		if math.Abs(got-best) > 1e-9*math.Abs(best)+1e-9 {
			t.Fatalf("trial %d (%d free): cut energy %v, minimum %v", trial, n, got, best)
		}
	}
}

// Nodes numbers the pixels within the band in scan order, the band's edge
// included, and fixes the others.
func TestNodesByHand(t *testing.T) {
	node, n := Nodes([]float64{0, 5, 4, 9, math.Inf(1), 1}, 4)
	want := []int32{0, -1, 1, -1, -1, 2}
	if n != 3 || len(node) != len(want) {
		t.Fatalf("n %d, nodes %v; want 3, %v", n, node, want)
	}
	for i := range want {
		if node[i] != want[i] {
			t.Fatalf("nodes %v, want %v", node, want)
		}
	}
}

package gmm

import (
	"math"
	"testing"
)

// One component: the sample moments plus covEps·I, and the density by hand.
// Four colours around (11, 21, 31): variances 3, covariances −1, so
// Σ = 8I − 11ᵀ after the regularisation, eigenvalues 5 (along (1,1,1)) and
// 8, 8: det 320, and (1,1,1) from the mean has Mahalanobis² 3/5.
func TestGMMOneComponentByHand(t *testing.T) {
	cols := []float64{10, 20, 30, 14, 20, 30, 10, 24, 30, 10, 20, 34}
	g, err := Fit(cols, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Weight) != 1 || g.Weight[0] != 1 || g.Mean[0] != [3]float64{11, 21, 31} {
		t.Fatalf("gmm %+v", g)
	}
	want := [9]float64{7, -1, -1, -1, 7, -1, -1, -1, 7}
	for i := range want {
		if math.Abs(g.Cov[0][i]-want[i]) > 1e-12 {
			t.Fatalf("cov %v, want %v", g.Cov[0], want)
		}
	}
	c := -0.5*math.Log(320) - 1.5*math.Log(2*math.Pi)
	if v := g.LogDensity([]float64{11, 21, 31}); math.Abs(v-c) > 1e-12 {
		t.Errorf("log density at the mean %v, want %v", v, c)
	}
	if v := g.LogDensity([]float64{12, 22, 32}); math.Abs(v-(c-0.3)) > 1e-12 {
		t.Errorf("log density at mean+(1,1,1) %v, want %v", v, c-0.3)
	}
}

// Two well separated clusters and k = 2: Orchard–Bouman's first split
// separates them exactly, so weights and means are the clusters'. With
// k = 5 and only three distinct colours, at most three components remain.
func TestGMMSplitsClusters(t *testing.T) {
	var cols []float64
	for i := 0; i < 30; i++ {
		d := float64(i%3) - 1 // −1, 0, 1
		cols = append(cols, 50+d, 60-d, 70)
	}
	for i := 0; i < 10; i++ {
		d := float64(i%2)*2 - 1
		cols = append(cols, 200, 30+d, 100)
	}
	g, err := Fit(cols, 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Weight) != 2 {
		t.Fatalf("%d components", len(g.Weight))
	}
	got := map[[3]float64]float64{g.Mean[0]: g.Weight[0], g.Mean[1]: g.Weight[1]}
	if got[[3]float64{50, 60, 70}] != 0.75 || got[[3]float64{200, 30, 100}] != 0.25 {
		t.Errorf("components %v", got)
	}
	// the density prefers each cluster's own colours
	a, b := g.LogDensity([]float64{50, 60, 70}), g.LogDensity([]float64{125, 45, 85})
	if !(a > b+10) {
		t.Errorf("log density at a cluster %v, between clusters %v", a, b)
	}
	g, err = Fit([]float64{1, 2, 3, 1, 2, 3, 9, 9, 9, 9, 9, 9, 5, 5, 5}, 5, 2)
	if err != nil || len(g.Weight) > 3 {
		t.Fatalf("three colours: %d components, err %v", len(g.Weight), err)
	}
	if _, err := Fit(nil, 5, 1); err == nil {
		t.Error("no samples accepted")
	}
}

// principal finds the largest eigenvalue and its axis, also when the first
// start vector is orthogonal to it.
func TestPrincipal(t *testing.T) {
	// diag(1, 4, 2) rotated so that (1, −1, 0)/√2 carries eigenvalue 9:
	// C = I·1 + 8·e eᵀ, orthogonal to (1,1,1).
	c := [9]float64{5, -4, 0, -4, 5, 0, 0, 0, 1}
	e, l := principal(c)
	if math.Abs(l-9) > 1e-9 || math.Abs(math.Abs(e[0]-e[1])-math.Sqrt2) > 1e-6 {
		t.Errorf("eigen %v %v, want 9 along (1,−1,0)/√2", l, e)
	}
}

package logistic

import (
	"math"
	"math/rand/v2"
	"testing"
)

// With only an intercept, the maximum-likelihood θ_0 is the logit of the
// mean label, for soft labels too.
func TestInterceptIsLogitOfMean(t *testing.T) {
	y := []float64{0.2, 0.3, 0.4, 0.3}
	X := []float64{1, 1, 1, 1}
	th, err := Fit(X, y, 1, 0, 50)
	if err != nil {
		t.Fatal(err)
	}
	if want := math.Log(0.3 / 0.7); math.Abs(th[0]-want) > 1e-9 {
		t.Fatalf("θ0 = %v, want %v", th[0], want)
	}
}

// Soft labels equal to the true probabilities give the same maximiser as
// the expected hard labels: θ is recovered from p itself.
func TestRecoversThetaFromSoftLabels(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 5000
	X := make([]float64, 0, 2*n)
	y := make([]float64, 0, n)
	for range n {
		x := rng.NormFloat64()
		X = append(X, 1, x)
		y = append(y, sigmoid(-0.5+2*x))
	}
	th, err := Fit(X, y, 2, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(th[0]+0.5) > 1e-6 || math.Abs(th[1]-2) > 1e-6 {
		t.Fatalf("θ = %v, want [-0.5 2]", th)
	}
	// a penalty shrinks the slope, never the intercept's freedom
	thp, _ := Fit(X, y, 2, 1000, 100)
	if !(math.Abs(thp[1]) < math.Abs(th[1])) {
		t.Fatalf("penalised slope %v not below %v", thp[1], th[1])
	}
	if _, err := Fit(X, make([]float64, n), 2, 0, 10); err == nil {
		t.Fatal("labels all 0 accepted")
	}
}

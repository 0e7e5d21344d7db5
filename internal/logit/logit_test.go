package logit

import (
	"math"
	"testing"
)

func TestCostSignAndBeta(t *testing.T) {
	for _, p := range []float64{0.01, 0.2, 0.5, 0.7, 0.99} {
		c := CostFromProb(p, 0.5)
		want := math.Log((1 - p) / p) // logit(1−p)
		if math.Abs(c-want) > 1e-12 {
			t.Fatalf("p=%v: c=%v want %v", p, c, want)
		}
		if (p < 0.5) != (c > 0) {
			t.Fatalf("p=%v: cost %v has the wrong sign (positive must mean join)", p, c)
		}
		// larger β (more prior cut) lowers the cost monotonically
		if !(CostFromProb(p, 0.3) > c && c > CostFromProb(p, 0.7)) {
			t.Fatalf("β not monotone at p=%v", p)
		}
	}
	if c := CostFromProb(1, 0.5); math.Abs(c-math.Log(PMin/(1-PMin))) > 1e-9 {
		t.Fatalf("clamped cost %v", c)
	}
	if c := CostFromProb(0, 0.5); math.Abs(c-math.Log((1-PMin)/PMin)) > 1e-9 || math.IsInf(c, 0) {
		t.Fatalf("clamped cost %v", c)
	}
	if CheckBeta(0) == nil || CheckBeta(1) == nil || CheckBeta(math.NaN()) == nil || CheckBeta(0.5) != nil {
		t.Fatal("CheckBeta")
	}
	if s := Sigmoid(-800); s != 0 && !(s > 0) || math.IsNaN(s) || Sigmoid(800) != 1 {
		t.Fatal("sigmoid not stable")
	}
}

func TestClampProb(t *testing.T) {
	for _, c := range []struct{ p, want float64 }{
		{math.NaN(), 0.5}, {-1, PMin}, {0, PMin}, {0.3, 0.3}, {1, 1 - PMin}, {2, 1 - PMin},
	} {
		if got := ClampProb(c.p); got != c.want {
			t.Errorf("ClampProb(%v) = %v, want %v", c.p, got, c.want)
		}
	}
}

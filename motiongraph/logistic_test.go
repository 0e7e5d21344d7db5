package motiongraph

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/densify/densify/internal/logit"
)

func TestFitCostsRecoversTheta(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	// features are raw values; with mean/std standardisation the fitted θ
	// is in standardised units, so compare the implied raw-logit function.
	trueW := []float64{1.5, -0.8, 0.0, 2.0, 0.5, -1.0, 0.3, 0.7, -0.4, 1.1, 0.2}
	trueB := -0.7
	n := 40000
	samples := make([]PairSample, n)
	for i := range samples {
		f := make([]float64, NumFeatures)
		eta := trueB
		for j := range f {
			f[j] = rng.NormFloat64()*float64(j+1)*0.5 + float64(j)
			eta += trueW[j] * (f[j] - float64(j)) / (float64(j+1) * 0.5)
		}
		samples[i] = PairSample{Features: f, Cut: rng.Float64() < logit.Sigmoid(eta)}
	}
	m, cal, err := FitCosts(samples, FitOptions{Lambda: 1e-3})
	if err != nil {
		t.Fatal(err)
	}
	// compare logits on fresh points
	maxErr := 0.0
	for range 200 {
		f := make([]float64, NumFeatures)
		eta := trueB
		for j := range f {
			f[j] = rng.NormFloat64()*float64(j+1)*0.5 + float64(j)
			eta += trueW[j] * (f[j] - float64(j)) / (float64(j+1) * 0.5)
		}
		maxErr = math.Max(maxErr, math.Abs(m.Logit(f)-eta)/(1+math.Abs(eta)))
	}
	if maxErr > 0.15 {
		t.Fatalf("fitted logits deviate by %v relative; model %+v", maxErr, m)
	}
	// standardised θ should be close to the true θ here (std ≈ (j+1)/2, mean ≈ j)
	for j, w := range trueW {
		if math.Abs(m.Theta[j+1]-w) > 0.12 {
			t.Fatalf("θ_%d = %v, want %v", j+1, m.Theta[j+1], w)
		}
	}
	if math.Abs(m.Theta[0]-trueB) > 0.1 {
		t.Fatalf("θ_0 = %v, want %v", m.Theta[0], trueB)
	}
	// a well specified model is calibrated in-sample
	if cal.ECE > 0.02 {
		t.Fatalf("ECE %v", cal.ECE)
	}
	sum := 0
	for _, b := range cal.Bins {
		sum += b.Count
	}
	if sum != n || cal.N != n {
		t.Fatalf("bins hold %d of %d", sum, n)
	}
}

func TestFitCostsConstantFeature(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	var s []PairSample
	for range 2000 {
		f := []float64{rng.NormFloat64(), rng.NormFloat64(), 1, 0, 2, rng.NormFloat64(), rng.NormFloat64(),
			rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()} // features 2, 3, 4 constant
		s = append(s, PairSample{Features: f, Cut: rng.Float64() < logit.Sigmoid(2*f[0])})
	}
	m, _, err := FitCosts(s, FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Theta[3] != 0 || m.Theta[4] != 0 || m.Std[3] != 1 {
		t.Fatalf("constant features should get weight 0: %+v", m)
	}
	if _, _, err := FitCosts(s[:1], FitOptions{}); err == nil {
		t.Fatal("one sample accepted")
	}
	allJoin := []PairSample{{Features: make([]float64, NumFeatures)}, {Features: make([]float64, NumFeatures)}}
	if _, _, err := FitCosts(allJoin, FitOptions{}); err == nil {
		t.Fatal("single class accepted")
	}
}

func TestCalibrateHandComputed(t *testing.T) {
	p := []float64{0.05, 0.15, 0.15, 0.95, 1.0}
	y := []bool{false, false, true, true, true}
	c := Calibrate(p, y, 10)
	if c.Bins[0].Count != 1 || c.Bins[1].Count != 2 || c.Bins[9].Count != 2 {
		t.Fatalf("bins %+v", c.Bins)
	}
	if math.Abs(c.Bins[1].Observed-0.5) > 1e-12 || math.Abs(c.Bins[9].MeanPred-0.975) > 1e-12 {
		t.Fatalf("bin stats %+v", c.Bins)
	}
	brier := (0.05*0.05 + 0.15*0.15 + 0.85*0.85 + 0.05*0.05 + 0) / 5
	if math.Abs(c.Brier-brier) > 1e-12 {
		t.Fatalf("brier %v want %v", c.Brier, brier)
	}
	// ECE = (1·0.05 + 2·0.35 + 2·0.025)/5
	if math.Abs(c.ECE-(0.05+0.7+0.05)/5) > 1e-12 {
		t.Fatalf("ece %v", c.ECE)
	}
	ll := -(math.Log(0.95) + math.Log(0.85) + math.Log(0.15) + math.Log(0.95) + math.Log(1-logit.PMin)) / 5
	if math.Abs(c.LogLoss-ll) > 1e-9 {
		t.Fatalf("log loss %v want %v", c.LogLoss, ll)
	}
	// AUC: positives {0.15, 0.95, 1.0}, negatives {0.05, 0.15}: pairs won 2+2+1.5... =
	// 0.15 vs (0.05 win, 0.15 tie) = 1.5; 0.95 → 2; 1.0 → 2 → 5.5/6
	if math.Abs(c.AUC-5.5/6) > 1e-12 {
		t.Fatalf("auc %v", c.AUC)
	}
}

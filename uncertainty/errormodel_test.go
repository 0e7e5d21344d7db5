package uncertainty

import (
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestErrorFeaturesHandComputed(t *testing.T) {
	for _, c := range []struct {
		gamma, mu float64
		want      [4]float64
	}{
		{math.E - 1, 0.001, [4]float64{math.E - 1, 1, 0, -3}},
		{-(math.E - 1), 1, [4]float64{-(math.E - 1), -1, 0, 0}},
		{0, 0, [4]float64{0, 0, 0, -12}}, // μ floored at MinMu
		{math.Inf(1), 1e-5, [4]float64{0, 0, 1, -5}},
	} {
		got := ErrorFeatures(c.gamma, c.mu)
		for j := range got {
			if math.Abs(got[j]-c.want[j]) > 1e-12 {
				t.Errorf("γ %v μ %v: features %v, want %v", c.gamma, c.mu, got, c.want)
				break
			}
		}
	}
	m := &ErrorModel{Version: ErrorModelVersion, Features: ErrorFeatureNames, Theta: []float64{0.5, 0.1, -1, 2, 0.25}}
	// z = 0.5 + 0.1·(e − 1) − 1·1 + 0.25·(−3) = −1.25 + 0.1·(e − 1)
	if p, z := m.PWrong(math.E-1, 0.001), -1.25+0.1*(math.E-1); math.Abs(p-1/(1+math.Exp(-z))) > 1e-12 {
		t.Errorf("PWrong %v, want σ(%v)", p, z)
	}
	// γ = ∞: z = 0.5 + 2 + 0.25·(−5) = 1.25
	if p := m.PWrong(math.Inf(1), 1e-5); math.Abs(p-1/(1+math.Exp(-1.25))) > 1e-12 {
		t.Errorf("PWrong at γ = ∞ %v, want σ(1.25)", p)
	}
}

// errorSamples draws n nodes whose labels are wrong with the probability
// of the model theta.
func errorSamples(r *rand.Rand, n int, theta []float64) []ErrorSample {
	m := &ErrorModel{Version: ErrorModelVersion, Features: ErrorFeatureNames, Theta: theta}
	var s []ErrorSample
	for range n {
		g := math.Exp(r.Float64()*6) - 1
		if r.Float64() < 0.2 {
			g = math.Inf(1)
		}
		mu := math.Pow(10, -8*r.Float64())
		s = append(s, ErrorSample{Gamma: g, Mu: mu, Wrong: r.Float64() < m.PWrong(g, mu), Hard: g < 3 && mu > DefaultPhi})
	}
	return s
}

// Labels drawn from a logistic model give its parameters back, and the
// fit beats the best temperature in likelihood (μ_A carries information
// no temperature sees).
func TestFitErrorModelRecoversTheModel(t *testing.T) {
	theta := []float64{-1, -0.05, -0.8, -1.5, 0.4}
	s := errorSamples(rand.New(rand.NewSource(7)), 200000, theta)
	m, err := FitErrorModel(s, "drawn")
	if err != nil {
		t.Fatal(err)
	}
	for j, want := range theta {
		if math.Abs(m.Theta[j]-want) > 0.1 {
			t.Errorf("θ_%d = %.3f, drawn with %v (all %v)", j, m.Theta[j], want, m.Theta)
		}
	}
	if m.Samples != len(s) || m.Source != "drawn" {
		t.Errorf("samples %d source %q", m.Samples, m.Source)
	}
	if a, b := NLLOf(s, m.Calibrator()), NLL(s, FitTemperature(s)); !(a < b) {
		t.Errorf("error model NLL %v not below the temperature's %v", a, b)
	}
	if _, err := FitErrorModel([]ErrorSample{{Gamma: 1}, {Gamma: 2}}, ""); err == nil || !strings.Contains(err.Error(), "right and wrong") {
		t.Errorf("no wrong label: %v", err)
	}
}

// With several sequences, each is scored by the error model fitted on the
// others: the counts of hard examples it calls right are those of that
// model, recomputed here.
func TestCalibrateScoresTheHeldOutErrorModel(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	theta := []float64{-1, -0.05, -0.8, -1.5, 0.4}
	samples := [][]ErrorSample{errorSamples(r, 3000, theta), errorSamples(r, 3000, theta), errorSamples(r, 3000, theta)}
	sum := Calibrate([]string{"a", "b", "c"}, samples, []float64{0.5, 0.5, 0.5}, []float64{0.5, 0.5, 0.5})
	if sum.ErrorModel == nil || sum.ErrorModel.Samples != 9000 {
		t.Fatalf("error model on all: %+v", sum.ErrorModel)
	}
	for i, c := range sum.Sequences {
		others := append(append([]ErrorSample{}, samples[(i+1)%3]...), samples[(i+2)%3]...)
		m, err := FitErrorModel(others, "")
		if err != nil {
			t.Fatal(err)
		}
		hard, hardWrong, right, rightWrong := 0, 0, 0, 0
		for _, e := range samples[i] {
			if !e.Hard {
				continue
			}
			hard++
			if e.Wrong {
				hardWrong++
			}
			if 1-m.PWrong(e.Gamma, e.Mu) >= RightCut {
				right++
				if e.Wrong {
					rightWrong++
				}
			}
		}
		if c.Hard != hard || c.HardWrong != hardWrong || c.HardRight != right || c.HardRightWrong != rightWrong {
			t.Errorf("%s: hard %d/%d right %d/%d, want %d/%d %d/%d", c.Name, c.Hard, c.HardWrong, c.HardRight, c.HardRightWrong, hard, hardWrong, right, rightWrong)
		}
		if c.ModelAUC == nil || *c.ModelAUC < 0.6 || c.ModelECE == nil || *c.ModelECE > 0.05 || c.ModelNLL == nil || *c.ModelNLL > *c.LOSONLL {
			t.Errorf("%s: model AUC %v ECE %v NLL %v (temperature's NLL %v)", c.Name, c.ModelAUC, c.ModelECE, c.ModelNLL, *c.LOSONLL)
		}
	}
}

func TestErrorModelFiles(t *testing.T) {
	dir := t.TempDir()
	m := &ErrorModel{Version: ErrorModelVersion, Features: ErrorFeatureNames, Theta: []float64{1, 2, 3, 4, 5}, Samples: 9, Wrong: 2, Lambda: 1}
	p := filepath.Join(dir, "m.json")
	if err := WriteErrorModel(p, m); err != nil {
		t.Fatal(err)
	}
	back, err := LoadErrorModel(p)
	if err != nil || back.Theta[4] != 5 || back.Samples != 9 {
		t.Fatalf("round trip: %+v, %v", back, err)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte("{\n  \"version\": 1,\n  \"theta\": [1,\n}\n"), 0o644)
	if _, err := LoadErrorModel(bad); err == nil || !strings.Contains(err.Error(), "bad.json:4") {
		t.Errorf("syntax error: %v, want bad.json:4", err)
	}
	os.WriteFile(bad, []byte(`{"version": 1, "features": ["slog_gamma"], "theta": [1, 2]}`), 0o644)
	if _, err := LoadErrorModel(bad); err == nil || !strings.Contains(err.Error(), "bad.json: error model features") {
		t.Errorf("wrong features: %v", err)
	}
	if def, err := LoadErrorModel(""); err != nil || def.Validate() != nil {
		t.Errorf("default: %v", err)
	}
}

// The embedded model is valid and reads as the data of the twenty DAVIS
// sequences do: about a quarter of the labels wrong near γ = 0 (the hard
// examples' range), the share falling as γ grows beyond 5, and lowest where
// no move is possible (γ = +∞). (Below γ ≈ 3 it rises a little: labels
// whose move costs nothing are wrong less often than those at small γ > 0,
// as the reliability tables show.)
func TestDefaultErrorModelFallsWithGamma(t *testing.T) {
	m := DefaultErrorModel()
	if err := m.Validate(); err != nil || m.Samples == 0 {
		t.Fatalf("embedded model: %v (%d samples)", err, m.Samples)
	}
	if p := m.PWrong(0, DefaultPhi); !(p > 0.15 && p < 0.4) {
		t.Errorf("P(wrong) at γ = 0 is %v", p)
	}
	prev := 1.0
	for g := 5.0; g <= 200; g += 0.5 {
		p := m.PWrong(g, DefaultPhi)
		if !(p < prev) || p <= 0 {
			t.Fatalf("P(wrong) at γ = %v is %v, after %v", g, p, prev)
		}
		prev = p
	}
	if p := m.PWrong(math.Inf(1), DefaultPhi); !(p < m.PWrong(20, DefaultPhi)) {
		t.Errorf("P(wrong) at γ = ∞ is %v", p)
	}
}

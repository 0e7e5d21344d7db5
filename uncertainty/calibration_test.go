package uncertainty

import (
	"math"
	"math/rand"
	"testing"
)

func TestLabelErrorsHandComputed(t *testing.T) {
	labels := []int{0, 0, 0, 1, 1, 2, 3, 3}
	regions := []int{5, 5, 7, 7, 7, -1, 2, 9} // cluster 3: a tie, the smaller region wins
	wrong, known := LabelErrors(labels, regions)
	wantW := []bool{false, false, true, false, false, false, false, true}
	wantK := []bool{true, true, true, true, true, false, true, true}
	for v := range labels {
		if wrong[v] != wantW[v] || known[v] != wantK[v] {
			t.Errorf("node %d: wrong %v known %v, want %v %v", v, wrong[v], known[v], wantW[v], wantK[v])
		}
	}
}

// AUC against its definition: the share of (wrong, right) pairs ordered
// rightly, ties one half, on random scores with many ties.
func TestAUCIsTheShareOfOrderedPairs(t *testing.T) {
	if a := AUC([]float64{0.1, 0.4, 0.35, 0.8}, []bool{false, true, false, true}, []bool{true, true, true, true}); a != 1 {
		t.Errorf("separated: %v, want 1", a)
	}
	if a := AUC([]float64{0.5, 0.5, 9}, []bool{true, false, true}, []bool{true, true, false}); a != 0.5 {
		t.Errorf("tie: %v, want 0.5", a)
	}
	if a := AUC([]float64{1, 2}, []bool{false, false}, []bool{true, true}); !math.IsNaN(a) {
		t.Errorf("no wrong node: %v, want NaN", a)
	}
	r := rand.New(rand.NewSource(3))
	n := 300
	s, w, k := make([]float64, n), make([]bool, n), make([]bool, n)
	for v := range s {
		s[v] = float64(r.Intn(20))
		w[v], k[v] = r.Float64() < 0.3, r.Float64() < 0.9
	}
	pairs, good := 0.0, 0.0
	for i := range s {
		for j := range s {
			if k[i] && k[j] && w[i] && !w[j] {
				pairs++
				switch {
				case s[i] > s[j]:
					good++
				case s[i] == s[j]:
					good += 0.5
				}
			}
		}
	}
	if got, want := AUC(s, w, k), good/pairs; math.Abs(got-want) > 1e-12 {
		t.Errorf("AUC %v, pairs %v", got, want)
	}
}

func TestNLLAndReliabilityHandComputed(t *testing.T) {
	// γ = 0: u = ½ whatever T; −log ½ for a wrong node and a right one alike.
	s := []ErrorSample{{Gamma: 0, Wrong: true}, {Gamma: 0}}
	if got := NLL(s, 3); math.Abs(got-math.Log(2)) > 1e-12 {
		t.Errorf("NLL %v, want log 2", got)
	}
	// u_T with T = 2: γ = 2 ln 3 gives σ(−ln 3) = ¼; γ = +∞ gives 0.
	g := 2 * math.Log(3)
	if u := TemperedU(g, 2); math.Abs(u-0.25) > 1e-12 {
		t.Errorf("u_T %v, want 0.25", u)
	}
	samples := []ErrorSample{{Gamma: g, Wrong: true}, {Gamma: g}, {Gamma: g}, {Gamma: g}, {Gamma: math.Inf(1)}}
	bins, ece := Reliability(samples, 2)
	// four nodes at u = ¼ in (0.2, 0.3] with one wrong: calibrated; one
	// node at u = 0 in the first bin, right: calibrated too.
	if ece > 1e-12 {
		t.Errorf("ECE %v, want 0", ece)
	}
	for _, b := range bins {
		switch {
		case b.Hi == 0.3 && (b.Nodes != 4 || math.Abs(b.MeanU-0.25) > 1e-12 || b.WrongRate != 0.25):
			t.Errorf("bin (0.2, 0.3]: %+v", b)
		case b.Hi == 1e-6 && b.Nodes != 1:
			t.Errorf("first bin: %+v", b)
		}
	}
	// At T = 1 the same nodes have u = σ(−2 ln 3) = 1/10: a wrong rate of ¼
	// four fifths of the nodes, ECE = 4/5 · |¼ − 1/10| = 0.12.
	if _, ece := Reliability(samples, 1); math.Abs(ece-0.12) > 1e-12 {
		t.Errorf("ECE at T = 1: %v, want 0.12", ece)
	}
}

// Errors drawn with probability σ(−γ/T₀) give back T₀, and the fit is the
// minimum of the likelihood over a fine grid.
func TestFitTemperatureRecoversTheTemperature(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	const T0 = 25.0
	var s []ErrorSample
	for range 5000 {
		g := r.Float64()*200 - 20
		s = append(s, ErrorSample{Gamma: g, Wrong: r.Float64() < TemperedU(g, T0)})
	}
	T := FitTemperature(s)
	if math.Abs(T-T0) > 0.1*T0 {
		t.Errorf("fitted T %v, drawn with %v", T, T0)
	}
	best, bestT := math.Inf(1), 0.0
	for x := math.Log(T / 2); x <= math.Log(2*T); x += 0.0005 { // NLL is unimodal in log T

		if v := NLL(s, math.Exp(x)); v < best {
			best, bestT = v, math.Exp(x)
		}
	}
	if math.Abs(T-bestT) > 0.001*bestT {
		t.Errorf("golden section %v, grid %v", T, bestT)
	}
	if FitTemperature(nil) != 1 {
		t.Error("no samples: want T = 1")
	}
}

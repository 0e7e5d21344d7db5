package boundary

import (
	"fmt"
	"math"
	"math/rand"

	"github.com/densify/densify/bsds"
	"github.com/densify/densify/internal/logistic"
	"github.com/densify/densify/internal/morph"
)

// SoftLabels returns, for every pixel, the fraction of annotators with a
// boundary pixel within Chebyshev distance r (a (2r+1)² window).
func SoftLabels(anns []bsds.Annotation, r int) []float32 {
	if len(anns) == 0 {
		return nil
	}
	w, h := anns[0].W, anns[0].H
	y := make([]float32, w*h)
	for _, a := range anns {
		d := morph.Dilate(a.Boundary, w, h, r)
		for i, b := range d {
			if b {
				y[i] += 1 / float32(len(anns))
			}
		}
	}
	return y
}

// Sample is the training data drawn from a split: row-major features X
// (n × NumFeatures) and soft labels Y ∈ [0,1].
type Sample struct {
	X []float64
	Y []float64
}

// Len is the number of samples.
func (s *Sample) Len() int { return len(s.Y) }

// AddImage draws perImage pixels of one image uniformly at random (rng) and
// appends their features and soft labels (radius r).
func (s *Sample) AddImage(f *Features, anns []bsds.Annotation, r, perImage int, rng *rand.Rand) {
	y := SoftLabels(anns, r)
	n := f.W * f.H
	for k := 0; k < perImage; k++ {
		i := rng.Intn(n)
		for j := range NumFeatures {
			s.X = append(s.X, float64(f.F[j][i]))
		}
		s.Y = append(s.Y, float64(y[i]))
	}
}

// Fit fits the logistic model to soft labels by maximising the penalised
// cross-entropy
//
//	Σ_i [y_i log p_i + (1 − y_i) log(1 − p_i)] − (λ/2) Σ_{j≥1} θ_j²,
//	p_i = σ(θ_0 + Σ_j θ_j z_ij),  z standardised features,
//
// with Newton's method (IRLS; gradient X^T(y − p), Hessian X^T diag(p(1−p)) X
// + λI, solved by Cholesky with gonum/mat, step halving when the objective
// does not increase). With y_i ∈ [0,1] the fitted p is a calibrated estimate
// of the annotator fraction.
func Fit(s *Sample, r int, lambda float64, source string) (*Model, error) {
	d := NumFeatures
	n := s.Len()
	if n < 10 || len(s.X) != n*d {
		return nil, fmt.Errorf("boundary fit: need ≥ 10 samples with %d features (got %d)", d, n)
	}
	m := &Model{Version: ModelVersion, Features: FeatureNames, Mean: make([]float64, d), Std: make([]float64, d),
		LabelRadius: r, Lambda: lambda, Samples: n, Source: source}
	for i := range n {
		for j := range d {
			m.Mean[j] += s.X[i*d+j] / float64(n)
		}
	}
	for i := range n {
		for j := range d {
			v := s.X[i*d+j] - m.Mean[j]
			m.Std[j] += v * v / float64(n)
		}
	}
	for j := range d {
		m.Std[j] = math.Max(math.Sqrt(m.Std[j]), 1e-9)
	}
	D := d + 1
	Z := make([]float64, n*D)
	ybar := 0.0
	for i := range n {
		Z[i*D] = 1
		for j := range d {
			Z[i*D+j+1] = (s.X[i*d+j] - m.Mean[j]) / m.Std[j]
		}
		ybar += s.Y[i] / float64(n)
	}
	if ybar <= 0 || ybar >= 1 {
		return nil, fmt.Errorf("boundary fit: labels are all %v", ybar)
	}
	theta, err := logistic.Fit(Z, s.Y, D, lambda, 50)
	if err != nil {
		return nil, fmt.Errorf("boundary fit: %v", err)
	}
	m.Theta = theta
	return m, m.Validate()
}

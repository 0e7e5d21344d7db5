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

// Fit fits the logistic model (linear, or quadratic when quadratic is set;
// see Model) to soft labels by maximising the penalised cross-entropy
//
//	Σ_i [y_i log p_i + (1 − y_i) log(1 − p_i)] − (λ/2) Σ_{k≥1} β_k²,
//	p_i = σ(β_0 + Σ_k β_k x̃_ik),
//
// where x̃ is the design row of the standardised features z (z, then the
// products z_i z_j when quadratic), each column standardised again over the
// sample so that λ weighs every column alike; β is folded back into
// Model.Theta on z and its products afterwards. Solved with Newton's
// method (IRLS; gradient X̃^T(y − p), Hessian X̃^T diag(p(1−p)) X̃ + λI,
// solved by Cholesky with gonum/mat, step halving when the objective does
// not increase). With y_i ∈ [0,1] the fitted p is a calibrated estimate of
// the annotator fraction.
func Fit(s *Sample, r int, lambda float64, quadratic bool, source string) (*Model, error) {
	d := NumFeatures
	n := s.Len()
	if n < 10 || len(s.X) != n*d {
		return nil, fmt.Errorf("boundary fit: need ≥ 10 samples with %d features (got %d)", d, n)
	}
	m := &Model{Version: ModelVersion, Features: FeatureNames, Quadratic: quadratic, LabelRadius: r, Lambda: lambda, Samples: n, Source: source}
	m.Mean, m.Std = columnStats(n, d, func(i int) []float64 { return s.X[i*d : (i+1)*d] })
	ybar := 0.0
	for _, y := range s.Y {
		ybar += y / float64(n)
	}
	if ybar <= 0 || ybar >= 1 {
		return nil, fmt.Errorf("boundary fit: labels are all %v", ybar)
	}
	D := NumWeights(d, quadratic) - 1
	// The design rows are generated again for each pass instead of being
	// stored beside Z: at the CLI's 600,000 pixels one copy is 1.6 GB.
	z := make([]float64, d)
	var row []float64
	design := func(i int) []float64 {
		for j := range d {
			z[j] = (s.X[i*d+j] - m.Mean[j]) / m.Std[j]
		}
		row = appendDesign(row[:0], z, quadratic)
		return row
	}
	mean, std := columnStats(n, D, design)
	Z := make([]float64, n*(D+1))
	for i := range n {
		Z[i*(D+1)] = 1
		for k, v := range design(i) {
			Z[i*(D+1)+k+1] = (v - mean[k]) / std[k]
		}
	}
	beta, err := logistic.Fit(Z, s.Y, D+1, lambda, 50)
	if err != nil {
		return nil, fmt.Errorf("boundary fit: %v", err)
	}
	// β_0 + Σ_k β_k (x_k − mean_k)/std_k = θ_0 + Σ_k θ_k x_k.
	m.Theta = make([]float64, D+1)
	m.Theta[0] = beta[0]
	for k := range D {
		m.Theta[k+1] = beta[k+1] / std[k]
		m.Theta[0] -= m.Theta[k+1] * mean[k]
	}
	return m, m.Validate()
}

// columnStats returns the mean and standard deviation (floored at 1e-9) of
// each of the d columns of the n rows that row(i) returns (called twice per
// row, so that the rows need not be stored).
func columnStats(n, d int, row func(i int) []float64) (mean, std []float64) {
	mean, std = make([]float64, d), make([]float64, d)
	for i := range n {
		for j, v := range row(i) {
			mean[j] += v / float64(n)
		}
	}
	for i := range n {
		for j, v := range row(i) {
			v -= mean[j]
			std[j] += v * v / float64(n)
		}
	}
	for j := range d {
		std[j] = math.Max(math.Sqrt(std[j]), 1e-9)
	}
	return mean, std
}

package boundary

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"image"
	"io"
	"math"
	"os"
	"slices"

	"github.com/densify/densify/internal/atomicfile"
)

// Model is the fitted logistic boundary model. With standardised features
// z_j = (f_j − Mean_j)/Std_j it is
//
//	p(x) = σ(θ_0 + Σ_j θ_j z_j(x))                                (linear)
//	p(x) = σ(θ_0 + Σ_j θ_j z_j(x) + Σ_{i≤j} θ_ij z_i(x) z_j(x))   (Quadratic)
//
// p(x) estimating the fraction of annotators that draw a boundary within
// LabelRadius pixels of x (the soft label it was fitted on). The quadratic
// form is Martin, Fowlkes and Malik's "logistic regression with quadratic
// terms" (TPAMI 2004, Sec. 4.2): the products let one cue gate another
// (a colour step counts where the brightness texture is quiet, a fine-scale
// gradient where the coarse one agrees), which a sum of cues cannot. On
// BSDS-500 val (4 px) it raises the best F from 0.681 to 0.689 on the same
// 24 features; the linear form stays available (FitOptions.Linear).
type Model struct {
	Version  int       `json:"version"`
	Features []string  `json:"features"`
	Mean     []float64 `json:"mean"`
	Std      []float64 `json:"std"`
	// Theta is the intercept, then one weight per feature and, when
	// Quadratic, one per product z_i z_j (i ≤ j, i outer: appendDesign's order).
	Theta     []float64 `json:"theta"`
	Quadratic bool      `json:"quadratic"`
	// LabelRadius is the tolerance (Chebyshev distance, pixels) of the soft labels.
	LabelRadius int     `json:"label_radius"`
	Lambda      float64 `json:"lambda"`
	Samples     int     `json:"samples"`
	Source      string  `json:"source,omitempty"`
}

//go:embed default_boundary.json
var defaultJSON []byte

// Default returns the embedded model (boundary/default_boundary.json), fitted
// on the BSDS-500 train split with `densify decompose fit`.
func Default() *Model {
	m, err := Parse("default_boundary.json", defaultJSON)
	if err != nil {
		panic("boundary: embedded default_boundary.json: " + err.Error()) // source file, covered by a test
	}
	return m
}

// Parse reads a model from JSON; name is used in errors.
func Parse(name string, data []byte) (*Model, error) {
	var m Model
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &m, nil
}

// Load reads a model file.
func Load(path string) (*Model, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Write writes m as indented JSON, atomically.
func (m *Model) Write(path string) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, func(w io.Writer) error { _, err := w.Write(append(data, '\n')); return err })
}

// ModelVersion is the version of the model format and feature set: 1 had
// the 12 gradient features, 2 adds the 6 contrast-normalised gradients, 3
// the scale σ = 8 (24 features) and the quadratic form.
const ModelVersion = 3

// NumWeights is the length of Theta for d features: the intercept, d
// weights and, when quadratic, d(d+1)/2 products.
func NumWeights(d int, quadratic bool) int {
	if quadratic {
		return 1 + d + d*(d+1)/2
	}
	return 1 + d
}

// Validate checks that the model matches this package's features.
func (m *Model) Validate() error {
	if m.Version == 1 || m.Version == 2 {
		return fmt.Errorf("boundary model version %d (%d features, before the scale σ = 8 and the quadratic form of version %d): refit it with `densify decompose fit`", m.Version, map[int]int{1: 12, 2: 18}[m.Version], ModelVersion)
	}
	if m.Version != ModelVersion {
		return fmt.Errorf("boundary model version %d, want %d", m.Version, ModelVersion)
	}
	if !slices.Equal(m.Features, FeatureNames) {
		return fmt.Errorf("boundary model features %v do not match %v", m.Features, FeatureNames)
	}
	d := NumFeatures
	if len(m.Mean) != d || len(m.Std) != d || len(m.Theta) != NumWeights(d, m.Quadratic) {
		return fmt.Errorf("boundary model: %d means, %d stds, %d weights for %d features (quadratic %v: want %d weights)", len(m.Mean), len(m.Std), len(m.Theta), d, m.Quadratic, NumWeights(d, m.Quadratic))
	}
	for _, v := range slices.Concat(m.Mean, m.Std, m.Theta) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("boundary model has a non-finite parameter")
		}
	}
	for _, s := range m.Std {
		if !(s > 0) {
			return fmt.Errorf("boundary model has a non-positive std %v", s)
		}
	}
	return nil
}

// Probability returns the boundary probability of every pixel of features f
// (row-major, W·H values in [0,1]).
func (m *Model) Probability(f *Features) []float32 {
	n := f.W * f.H
	p := make([]float32, n)
	d := NumFeatures
	z := make([]float64, d)
	for i := range n {
		for j := range d {
			z[j] = (float64(f.F[j][i]) - m.Mean[j]) / m.Std[j]
		}
		p[i] = float32(1 / (1 + math.Exp(-m.logit(z))))
	}
	return p
}

// logit is θ_0 + Σ_j θ_j z_j (+ Σ_{i≤j} θ_ij z_i z_j when quadratic) of the
// standardised features z.
func (m *Model) logit(z []float64) float64 {
	th := m.Theta
	eta := th[0]
	for j, v := range z {
		eta += th[1+j] * v
	}
	if m.Quadratic {
		k := 1 + len(z)
		for i, zi := range z {
			s := 0.0
			for _, zj := range z[i:] {
				s += th[k] * zj
				k++
			}
			eta += zi * s
		}
	}
	return eta
}

// appendDesign appends the design row of standardised features z: z itself
// and, when quadratic, the products z_i z_j (i ≤ j, in Theta's order).
func appendDesign(row, z []float64, quadratic bool) []float64 {
	row = append(row, z...)
	if quadratic {
		for i, zi := range z {
			for _, zj := range z[i:] {
				row = append(row, zi*zj)
			}
		}
	}
	return row
}

// Map computes the boundary probability map of img.
func (m *Model) Map(img image.Image) (w, h int, p []float32) {
	f := Compute(img)
	return f.W, f.H, m.Probability(f)
}

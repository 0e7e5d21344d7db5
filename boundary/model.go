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

// Model is the fitted logistic boundary model:
//
//	z_j = (f_j − Mean_j)/Std_j,   p(x) = σ(θ_0 + Σ_j θ_j z_j(x)),
//
// p(x) estimating the fraction of annotators that draw a boundary within
// LabelRadius pixels of x (the soft label it was fitted on).
type Model struct {
	Version  int       `json:"version"`
	Features []string  `json:"features"`
	Mean     []float64 `json:"mean"`
	Std      []float64 `json:"std"`
	Theta    []float64 `json:"theta"` // intercept, then one weight per feature
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
// the 12 gradient features, 2 adds the 6 contrast-normalised gradients.
const ModelVersion = 2

// Validate checks that the model matches this package's features.
func (m *Model) Validate() error {
	if m.Version == 1 {
		return fmt.Errorf("boundary model version 1 (12 features, before the contrast-normalised gradients of version %d): refit it with `densify decompose fit`", ModelVersion)
	}
	if m.Version != ModelVersion {
		return fmt.Errorf("boundary model version %d, want %d", m.Version, ModelVersion)
	}
	if !slices.Equal(m.Features, FeatureNames) {
		return fmt.Errorf("boundary model features %v do not match %v", m.Features, FeatureNames)
	}
	d := NumFeatures
	if len(m.Mean) != d || len(m.Std) != d || len(m.Theta) != d+1 {
		return fmt.Errorf("boundary model: %d means, %d stds, %d weights for %d features", len(m.Mean), len(m.Std), len(m.Theta), d)
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
	w := make([]float64, d)
	b := m.Theta[0]
	for j := range d {
		w[j] = m.Theta[j+1] / m.Std[j]
		b -= w[j] * m.Mean[j]
	}
	for i := range n {
		eta := b
		for j := range d {
			eta += w[j] * float64(f.F[j][i])
		}
		p[i] = float32(1 / (1 + math.Exp(-eta)))
	}
	return p
}

// Map computes the boundary probability map of img.
func (m *Model) Map(img image.Image) (w, h int, p []float32) {
	f := Compute(img)
	return f.W, f.H, m.Probability(f)
}

package uncertainty

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"

	"github.com/densify/densify/internal/atomicfile"
	"github.com/densify/densify/internal/fileerr"
	"github.com/densify/densify/internal/logistic"
)

// ErrorModel is the probability that a trajectory's label is wrong, given
// its node uncertainty and its segment's: a logistic regression
//
//	P(wrong | v) = σ(θ_0 + θ_1·γ_v + θ_2·slog(γ_v) + θ_3·[γ_v = +∞] + θ_4·log₁₀ max(μ_A, 10⁻¹²)),
//	slog(γ) = sign(γ)·log(1 + |γ|)  (γ and slog γ read 0 for γ = +∞),
//
// v in segment A, γ_v the energy of its cheapest move (Kardoost & Keuper,
// UAI 2021, Eqs. 10–14) and μ_A the segment uncertainty (the mean of
// u = σ(−γ) over A), fitted by maximum likelihood of the label errors
// (LabelErrors) on sequences with ground truth. It is the "logistic model
// on γ and μ_A" beside the temperature u_T = σ(−γ/T), which it contains
// (θ_1 = −1/T, the other weights 0): one temperature is a monotone map of γ
// alone, so it cannot tell the hard examples of UAI'21 Sec. 4.3 (u_v > μ_A,
// μ_A > φ: all have γ below about 8) apart, while slog γ bends the map
// where γ is small and a segment's μ_A says how uncertain the whole
// segment is.
type ErrorModel struct {
	Version  int      `json:"version"`
	Features []string `json:"features"`
	// Theta holds the intercept θ_0 followed by one weight per feature.
	Theta []float64 `json:"theta"`
	// Samples and Wrong count the trajectories it was fitted on.
	Samples int `json:"samples,omitempty"`
	Wrong   int `json:"wrong,omitempty"`
	// Lambda is the L2 penalty of the fit (intercept not penalised).
	Lambda float64 `json:"lambda,omitempty"`
	// Source says what the model was fitted on (free text).
	Source string `json:"source,omitempty"`
}

// ErrorModelVersion is the version of the error model format this densify
// writes and reads.
const ErrorModelVersion = 1

// ErrorFeatureNames are the features of ErrorModel, in order.
var ErrorFeatureNames = []string{"gamma", "slog_gamma", "gamma_infinite", "log10_mu"}

// MinMu is the floor of μ_A in the error model's log10_mu feature.
const MinMu = 1e-12

// ErrorFeatures returns the features of a node with energy γ in a segment
// of uncertainty μ (ErrorModel).
func ErrorFeatures(gamma, mu float64) [4]float64 {
	var f [4]float64
	if math.IsInf(gamma, 1) {
		f[2] = 1
	} else {
		f[0], f[1] = gamma, math.Copysign(math.Log1p(math.Abs(gamma)), gamma)
	}
	f[3] = math.Log10(max(mu, MinMu))
	return f
}

// PWrong is the model's probability that the label of a node with energy γ
// in a segment of uncertainty μ is wrong.
func (m *ErrorModel) PWrong(gamma, mu float64) float64 {
	return math.Exp(LogSigmoid(m.Logit(gamma, mu)))
}

// Logit is the model's log-odds that the label is wrong, θ·(1, features).
func (m *ErrorModel) Logit(gamma, mu float64) float64 {
	f := ErrorFeatures(gamma, mu)
	z := m.Theta[0]
	for j, x := range f {
		z += m.Theta[j+1] * x
	}
	return z
}

// Validate checks the version, the features and finiteness.
func (m *ErrorModel) Validate() error {
	if m.Version != ErrorModelVersion {
		return fmt.Errorf("error model version %d: this densify reads version %d", m.Version, ErrorModelVersion)
	}
	if !slices.Equal(m.Features, ErrorFeatureNames) {
		return fmt.Errorf("error model features %v, want %v", m.Features, ErrorFeatureNames)
	}
	if len(m.Theta) != len(ErrorFeatureNames)+1 {
		return fmt.Errorf("error model has %d theta values, want %d", len(m.Theta), len(ErrorFeatureNames)+1)
	}
	for i, t := range m.Theta {
		if math.IsNaN(t) || math.IsInf(t, 0) {
			return fmt.Errorf("error model theta[%d] = %v is not finite", i, t)
		}
	}
	return nil
}

// FitErrorModel fits ErrorModel by L2-regularised logistic regression
// (internal/logistic: Newton's method, λ = 1 on the weights) on the samples,
// which need both right and wrong labels.
func FitErrorModel(samples []ErrorSample, source string) (*ErrorModel, error) {
	const lambda, maxIter = 1.0, 100
	d := len(ErrorFeatureNames) + 1
	X, y := make([]float64, 0, len(samples)*d), make([]float64, len(samples))
	wrong := 0
	for i, e := range samples {
		f := ErrorFeatures(e.Gamma, e.Mu)
		X = append(X, 1)
		X = append(X, f[:]...)
		if e.Wrong {
			y[i] = 1
			wrong++
		}
	}
	if wrong == 0 || wrong == len(samples) {
		return nil, fmt.Errorf("error model: need right and wrong labels, got %d wrong of %d", wrong, len(samples))
	}
	theta, err := logistic.Fit(X, y, d, lambda, maxIter)
	if err != nil {
		return nil, fmt.Errorf("error model: %w", err)
	}
	m := &ErrorModel{Version: ErrorModelVersion, Features: slices.Clone(ErrorFeatureNames), Theta: theta,
		Samples: len(samples), Wrong: wrong, Lambda: lambda, Source: source}
	return m, m.Validate()
}

// errorModelJSON is the embedded default (DefaultErrorModel).
//
//go:embed error_model.json
var errorModelJSON []byte

// DefaultErrorModel returns the embedded error model: FitErrorModel on the
// trajectories of the twenty DAVIS 2016 development sequences, segmented
// with leave-one-sequence-out cost models at the defaults (densify sparsify
// writes it as error_model.json; its held-out calibration is in
// docs/results.md). Like DefaultTemperature it belongs to the default cost
// model, multicut and background split.
func DefaultErrorModel() *ErrorModel {
	m, err := ParseErrorModel("error_model.json", errorModelJSON)
	if err != nil {
		// the embedded file is part of the source and covered by a test
		panic("uncertainty: embedded error_model.json: " + err.Error())
	}
	return m
}

// ParseErrorModel decodes and validates a JSON error model; errors name the
// file and, for syntax errors, the line.
func ParseErrorModel(file string, data []byte) (*ErrorModel, error) {
	var m ErrorModel
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fileerr.JSON(file, data, "error model", err)
	}
	if err := m.Validate(); err != nil {
		return nil, fileerr.New(file, 0, "%v", err)
	}
	return &m, nil
}

// LoadErrorModel reads an error model written by WriteErrorModel; ""
// returns DefaultErrorModel.
func LoadErrorModel(path string) (*ErrorModel, error) {
	if path == "" {
		return DefaultErrorModel(), nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseErrorModel(path, data)
}

// WriteErrorModel writes the model as indented JSON (atomically).
func WriteErrorModel(path string, m *ErrorModel) error {
	if err := m.Validate(); err != nil {
		return err
	}
	return atomicfile.WriteJSON(path, m)
}

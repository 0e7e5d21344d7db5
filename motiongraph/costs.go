package motiongraph

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"os"

	"github.com/densify/densify/internal/atomicfile"
	"github.com/densify/densify/internal/fileerr"
	"github.com/densify/densify/internal/logit"
)

// FeatureNames are the pairwise trajectory features, in the order of the
// feature vector (see PairFeatures for their definitions).
var FeatureNames = []string{
	"log1p_motion_norm_max", // log(1 + max_t ||∂A−∂B||²/σ_t²)
	"log1p_motion_max",      // log(1 + max_t ||∂A−∂B||) in px/frame
	"log1p_spatial_mean",    // log(1 + mean_t ||A_t−B_t||) in px
	"colour_mean",           // mean_t ||rgb_A(t)−rgb_B(t)|| (rgb in [0,1]), 0 without frames
	"log_overlap",           // log(number of common frames)
	"log1p_motion_mean",     // log(1 + mean_t ||∂A−∂B||) in px/frame
	"motion_rel_max",        // max_t ||∂A−∂B|| / (1 + ||∂A|| + ||∂B||)
	// residuals after the camera motion (package camera), see pairFeatures
	"log1p_camera_residual_min",       // log(1 + min(ρ_A, ρ_B))
	"log1p_camera_residual_max",       // log(1 + max(ρ_A, ρ_B))
	"log1p_camera_residual_diff_mean", // log(1 + mean_t ||r_A−r_B||/s_t)
	"log1p_camera_residual_diff_max",  // log(1 + max_t ||r_A−r_B||/s_t)
}

// NumFeatures is the length of a pair feature vector.
var NumFeatures = len(FeatureNames)

// FeatureParams are the parameters of the feature computation. They are part
// of the CostModel because θ is only meaningful for the features it was
// fitted on.
type FeatureParams struct {
	// MotionStep is the time step T of the motion derivative
	// ∂ₜA = (A(t+T') − A(t))/T', T' = min(T, e−t) inside the common interval [s, e].
	MotionStep int `json:"motion_step"`
	// VariationNeighbours is the number of spatial neighbours (k nearest alive
	// trajectories in frame t, the trajectory itself included) whose
	// displacement variance is the local flow variation v_i(t).
	VariationNeighbours int `json:"variation_neighbours"`
	// Sigma0 is the floor of the motion normalisation in px/frame:
	// σ_t² = Sigma0² + min(v_A(t), v_B(t)).
	Sigma0 float64 `json:"sigma0"`
	// ColourRadius is the half size of the square patch averaged for the
	// colour of a trajectory point (0 = the bilinear sample only).
	ColourRadius int `json:"colour_radius"`
}

// DefaultFeatureParams are the feature parameters used when a model does not
// set them.
func DefaultFeatureParams() FeatureParams {
	return FeatureParams{MotionStep: 5, VariationNeighbours: 8, Sigma0: 0.5, ColourRadius: 1}
}

// CostModel maps pair features to cut probabilities and edge costs:
//
//	z_j = (f_j − Mean_j)/Std_j,   p_cut = σ(θ_0 + Σ_j θ_j z_j),
//	c_e = log((1 − p)/p) + log((1 − β)/β)
//
// (Kardoost & Keuper, UAI 2021, Eq. 9; Keuper, Andres, Brox, ICCV 2015).
// Positive cost = the trajectories prefer to be in the same cluster.
type CostModel struct {
	Version  int           `json:"version"`
	Features []string      `json:"features"`
	Params   FeatureParams `json:"feature_params"`
	Mean     []float64     `json:"mean"`
	Std      []float64     `json:"std"`
	// Theta holds the intercept θ_0 followed by one weight per feature.
	Theta []float64 `json:"theta"`
	// Source says what the model was fitted on (free text).
	Source string `json:"source,omitempty"`
	// Samples is the number of labelled pairs it was fitted on.
	Samples int `json:"samples,omitempty"`
	// Lambda is the L2 regularisation weight used for the fit.
	Lambda float64 `json:"lambda,omitempty"`
}

// The embedded cost models, by name.
var (
	//go:embed davis_costs.json
	davisCostsJSON []byte
	//go:embed synthetic_costs.json
	syntheticCostsJSON []byte
)

// CostModelNames are the names of the embedded cost models (the first is the
// default):
//   - "davis": fitted on real trajectories of the ten DAVIS 2016 development
//     sequences (pairs labelled same / different region by the ground truth;
//     long-range edges and camera-residual features included); its
//     leave-one-sequence-out numbers are in scripts/sparse-eval.sh's table.
//   - "synthetic": the first version's model, fitted on six synthetic
//     sequences with the first seven features.
var CostModelNames = []string{"davis", "synthetic"}

// NamedCostModel returns an embedded model by name (see CostModelNames).
func NamedCostModel(name string) (*CostModel, bool) {
	var data []byte
	switch name {
	case "davis":
		data = davisCostsJSON
	case "synthetic":
		data = syntheticCostsJSON
	default:
		return nil, false
	}
	m, err := ParseCostModel(name+"_costs.json", data)
	if err != nil {
		// The embedded files are part of the source and covered by a test.
		panic("motiongraph: embedded " + name + "_costs.json: " + err.Error())
	}
	return m, true
}

// DefaultCostModel returns the embedded default model ("davis").
func DefaultCostModel() *CostModel {
	m, _ := NamedCostModel(CostModelNames[0])
	return m
}

// CostModelVersion is the version of the cost model format this densify
// writes and reads.
const CostModelVersion = 1

// Validate checks the version, dimensions and finiteness.
//
// A model may use a prefix of FeatureNames (models fitted before features
// were added, such as the synthetic model with the first seven): Logit
// then reads only those features.
func (m *CostModel) Validate() error {
	if m.Version != CostModelVersion {
		return fmt.Errorf("model version %d: this densify reads version %d", m.Version, CostModelVersion)
	}
	d := len(m.Features)
	if d < 1 || d > NumFeatures {
		return fmt.Errorf("model has %d features, want 1 to %d (a prefix of %v)", d, NumFeatures, FeatureNames)
	}
	for i, n := range m.Features {
		if n != FeatureNames[i] {
			return fmt.Errorf("model feature %d is %q, want %q", i, n, FeatureNames[i])
		}
	}
	if len(m.Mean) != d || len(m.Std) != d || len(m.Theta) != d+1 {
		return fmt.Errorf("model needs %d means, %d stds and %d theta values, has %d, %d, %d",
			d, d, d+1, len(m.Mean), len(m.Std), len(m.Theta))
	}
	for i := 0; i < d; i++ {
		if !costFinite(m.Mean[i]) || !costFinite(m.Std[i]) || m.Std[i] <= 0 {
			return fmt.Errorf("model feature %s: mean %v, std %v (std must be finite and > 0)", m.Features[i], m.Mean[i], m.Std[i])
		}
	}
	for i, t := range m.Theta {
		if !costFinite(t) {
			return fmt.Errorf("model theta[%d] = %v is not finite", i, t)
		}
	}
	p := m.Params
	if p.MotionStep < 1 || p.VariationNeighbours < 1 || !(p.Sigma0 > 0) || !costFinite(p.Sigma0) || p.ColourRadius < 0 {
		return fmt.Errorf("model feature_params invalid: %+v (motion_step ≥ 1, variation_neighbours ≥ 1, sigma0 > 0, colour_radius ≥ 0)", p)
	}
	return nil
}

func costFinite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// ParseCostModel decodes and validates a JSON cost model; errors name file
// and, for syntax errors, the line.
func ParseCostModel(file string, data []byte) (*CostModel, error) {
	var m CostModel
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fileerr.JSON(file, data, "cost model", err)
	}
	if err := m.Validate(); err != nil {
		return nil, fileerr.New(file, 0, "cost model: %v", err)
	}
	return &m, nil
}

// LoadCostModel returns the embedded model of that name (CostModelNames)
// or reads a JSON cost model written by WriteCostModel.
func LoadCostModel(path string) (*CostModel, error) {
	if m, ok := NamedCostModel(path); ok {
		return m, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseCostModel(path, data)
}

// WriteCostModel writes the model as indented JSON (atomically).
func WriteCostModel(path string, m *CostModel) error {
	if err := m.Validate(); err != nil {
		return err
	}
	return atomicfile.WriteJSON(path, m)
}

// Logit returns θ_0 + Σ_j θ_j (f_j − Mean_j)/Std_j, the log-odds of a cut.
func (m *CostModel) Logit(f []float64) float64 {
	s := m.Theta[0]
	for j := range m.Mean {
		s += m.Theta[j+1] * (f[j] - m.Mean[j]) / m.Std[j]
	}
	return s
}

// CutProb returns the cut probability σ(Logit(f)) clamped to
// [logit.PMin, 1−logit.PMin].
func (m *CostModel) CutProb(f []float64) float64 {
	return logit.ClampProb(logit.Sigmoid(m.Logit(f)))
}

// Cost returns the edge cost c = log((1−p)/p) + log((1−β)/β) for the pair
// features f (UAI'21 Eq. 9), with p = CutProb(f).
func (m *CostModel) Cost(f []float64, beta float64) float64 {
	return logit.CostFromProb(m.CutProb(f), beta)
}

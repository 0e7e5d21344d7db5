package motiongraph

import (
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/densify/densify/internal/atomicfile"
	"github.com/densify/densify/internal/logistic"
	"github.com/densify/densify/internal/logit"
)

// PairSample is one labelled trajectory pair for fitting the cost model:
// its raw features (FeatureNames order) and whether the ground truth puts
// the two trajectories in different regions.
type PairSample struct {
	Features []float64
	Cut      bool
	Lifted   bool
	Seq      string // sequence it came from (for per-sequence reports)
}

// FitOptions control FitCosts.
type FitOptions struct {
	// Lambda is the L2 penalty on the (standardised) feature weights; the
	// intercept is not penalised. Default 1.
	Lambda float64
	// MaxIter bounds the Newton (IRLS) iterations. Default 100.
	MaxIter int
	// Params are the feature parameters the samples were computed with
	// (stored in the model). Zero value = DefaultFeatureParams().
	Params FeatureParams
	// Source is free text stored in the model.
	Source string
}

// FitCosts fits the cost model by L2-regularised logistic regression
// (Newton's method = IRLS, pure Go with gonum/mat) on labelled pairs:
//
//	max_θ Σ_i [y_i log p_i + (1 − y_i) log(1 − p_i)] − (λ/2) Σ_{j≥1} θ_j²,
//	p_i = σ(θ_0 + Σ_j θ_j z_ij),  z_ij = (f_ij − mean_j)/std_j,
//
// y_i = 1 for a cut pair. Classes are NOT reweighted: the fitted p is then a
// calibrated estimate of P(cut | features) under the pair distribution of
// the graph (reweighting classes would shift the intercept by the log prior
// ratio and break calibration; the prior belongs in β of Kardoost & Keuper,
// UAI 2021, Eq. 9).
// Features that are constant in the samples (e.g. colour without frames)
// get std 1 and weight 0. The returned calibration is in-sample.
func FitCosts(samples []PairSample, opt FitOptions) (*CostModel, *Calibration, error) {
	d := NumFeatures
	n := len(samples)
	if n < 2 {
		return nil, nil, fmt.Errorf("fit costs: need at least 2 labelled pairs, got %d", n)
	}
	nCut := 0
	for i, s := range samples {
		if len(s.Features) != d {
			return nil, nil, fmt.Errorf("fit costs: sample %d has %d features, want %d", i, len(s.Features), d)
		}
		for _, x := range s.Features {
			if !costFinite(x) {
				return nil, nil, fmt.Errorf("fit costs: sample %d has a non-finite feature", i)
			}
		}
		if s.Cut {
			nCut++
		}
	}
	if nCut == 0 || nCut == n {
		return nil, nil, fmt.Errorf("fit costs: need both cut and joined pairs (got %d cut of %d)", nCut, n)
	}
	if opt.Lambda == 0 {
		opt.Lambda = 1
	}
	if opt.Lambda < 0 || !costFinite(opt.Lambda) {
		return nil, nil, fmt.Errorf("fit costs: lambda must be ≥ 0, got %v", opt.Lambda)
	}
	if opt.MaxIter <= 0 {
		opt.MaxIter = 100
	}
	if opt.Params == (FeatureParams{}) {
		opt.Params = DefaultFeatureParams()
	}
	m := &CostModel{Version: CostModelVersion, Features: slices.Clone(FeatureNames), Params: opt.Params,
		Mean: make([]float64, d), Std: make([]float64, d), Source: opt.Source, Samples: n, Lambda: opt.Lambda}
	for _, s := range samples {
		for j, x := range s.Features {
			m.Mean[j] += x
		}
	}
	for j := range d {
		m.Mean[j] /= float64(n)
	}
	for _, s := range samples {
		for j, x := range s.Features {
			m.Std[j] += (x - m.Mean[j]) * (x - m.Mean[j])
		}
	}
	active := make([]bool, d)
	for j := range d {
		m.Std[j] = math.Sqrt(m.Std[j] / float64(n))
		if m.Std[j] > 1e-9 {
			active[j] = true
		} else {
			m.Std[j] = 1
		}
	}
	X := make([]float64, n*(d+1))
	y := make([]float64, n)
	for i, s := range samples {
		X[i*(d+1)] = 1
		for j, x := range s.Features {
			if active[j] {
				X[i*(d+1)+j+1] = (x - m.Mean[j]) / m.Std[j]
			}
		}
		if s.Cut {
			y[i] = 1
		}
	}
	theta, err := logistic.Fit(X, y, d+1, opt.Lambda, opt.MaxIter)
	if err != nil {
		return nil, nil, err
	}
	for j := range d {
		if !active[j] {
			theta[j+1] = 0
		}
	}
	m.Theta = theta
	if err := m.Validate(); err != nil {
		return nil, nil, fmt.Errorf("fit costs: %v", err)
	}
	p := make([]float64, n)
	cut := make([]bool, n)
	for i, s := range samples {
		p[i] = m.CutProb(s.Features)
		cut[i] = s.Cut
	}
	return m, Calibrate(p, cut, 10), nil
}

// Calibration is the reliability report of predicted cut probabilities.
type Calibration struct {
	Bins    []ReliabilityBin `json:"bins"`
	N       int              `json:"n"`
	CutRate float64          `json:"cut_rate"` // observed fraction of cut pairs
	Brier   float64          `json:"brier"`    // mean (p − y)²
	LogLoss float64          `json:"log_loss"` // −mean[y log p + (1−y) log(1−p)], p clamped to [logit.PMin, 1−logit.PMin]
	ECE     float64          `json:"ece"`      // Σ_b (n_b/N) |mean_pred_b − observed_b|
	AUC     float64          `json:"auc"`      // ranking quality (Mann-Whitney)
}

// ReliabilityBin is one row of the reliability table: predictions in
// [Lo, Hi) (the last bin includes 1).
type ReliabilityBin struct {
	Lo       float64 `json:"lo"`
	Hi       float64 `json:"hi"`
	Count    int     `json:"count"`
	MeanPred float64 `json:"mean_pred"`
	Observed float64 `json:"observed"` // fraction of cut pairs; 0 when Count = 0
}

// Calibrate builds the reliability table (bins equal-width bins over
// [0, 1]), Brier score, log loss, expected calibration error and AUC of the
// predicted cut probabilities p against the labels cut.
func Calibrate(p []float64, cut []bool, bins int) *Calibration {
	if bins < 1 {
		bins = 10
	}
	c := &Calibration{N: len(p), Bins: make([]ReliabilityBin, bins)}
	for b := range bins {
		c.Bins[b].Lo = float64(b) / float64(bins)
		c.Bins[b].Hi = float64(b+1) / float64(bins)
	}
	if len(p) == 0 {
		return c
	}
	pos := 0
	for i, pi := range p {
		yi := 0.0
		if cut[i] {
			yi = 1
			pos++
		}
		b := min(int(pi*float64(bins)), bins-1)
		b = max(b, 0)
		c.Bins[b].Count++
		c.Bins[b].MeanPred += pi
		c.Bins[b].Observed += yi
		c.Brier += (pi - yi) * (pi - yi)
		q := logit.ClampProb(pi)
		if cut[i] {
			c.LogLoss -= math.Log(q)
		} else {
			c.LogLoss -= math.Log(1 - q)
		}
	}
	N := float64(len(p))
	c.CutRate = float64(pos) / N
	c.Brier /= N
	c.LogLoss /= N
	for b := range c.Bins {
		bn := &c.Bins[b]
		if bn.Count > 0 {
			bn.MeanPred /= float64(bn.Count)
			bn.Observed /= float64(bn.Count)
			c.ECE += float64(bn.Count) / N * math.Abs(bn.MeanPred-bn.Observed)
		}
	}
	c.AUC = auc(p, cut, pos)
	return c
}

// auc is the Mann-Whitney estimate of P(p_cut > p_joined) (ties count ½).
func auc(p []float64, cut []bool, pos int) float64 {
	neg := len(p) - pos
	if pos == 0 || neg == 0 {
		return math.NaN()
	}
	idx := make([]int, len(p))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		if p[a] < p[b] {
			return -1
		}
		if p[a] > p[b] {
			return 1
		}
		return 0
	})
	rankSum := 0.0
	for i := 0; i < len(idx); {
		j := i
		for j < len(idx) && p[idx[j]] == p[idx[i]] {
			j++
		}
		r := float64(i+j+1) / 2 // mean 1-based rank of the tie group
		for k := i; k < j; k++ {
			if cut[idx[k]] {
				rankSum += r
			}
		}
		i = j
	}
	return (rankSum - float64(pos)*float64(pos+1)/2) / (float64(pos) * float64(neg))
}

// WriteCSV writes the reliability table: bin,lo,hi,count,mean_pred,observed.
func (c *Calibration) WriteCSV(path string) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		if _, err := fmt.Fprintln(w, "bin,lo,hi,count,mean_pred,observed"); err != nil {
			return err
		}
		for i, b := range c.Bins {
			if _, err := fmt.Fprintf(w, "%d,%.2f,%.2f,%d,%.6f,%.6f\n", i, b.Lo, b.Hi, b.Count, b.MeanPred, b.Observed); err != nil {
				return err
			}
		}
		return nil
	})
}

// WriteJSON writes the calibration report as JSON.
func (c *Calibration) WriteJSON(path string) error {
	return atomicfile.WriteJSON(path, c)
}

// Table renders the reliability table and the scores as text.
func (c *Calibration) Table() string {
	s := fmt.Sprintf("%-11s %9s %10s %10s\n", "p_cut bin", "count", "mean_pred", "observed")
	for _, b := range c.Bins {
		s += fmt.Sprintf("[%.1f,%.1f) %9d %10.4f %10.4f\n", b.Lo, b.Hi, b.Count, b.MeanPred, b.Observed)
	}
	s += fmt.Sprintf("n=%d cut_rate=%.4f brier=%.4f log_loss=%.4f ece=%.4f auc=%.4f\n", c.N, c.CutRate, c.Brier, c.LogLoss, c.ECE, c.AUC)
	return s
}

// HeldOutCalibration estimates out-of-sample calibration by leave-one-
// sequence-out: for every sequence (PairSample.Seq) a model is fitted on the
// other sequences and predicts its pairs; the pooled predictions are
// calibrated. It returns per-sequence calibrations too. Needs ≥ 2 sequences.
func HeldOutCalibration(samples []PairSample, opt FitOptions) (*Calibration, map[string]*Calibration, error) {
	all, per, _, err := HeldOut(samples, opt)
	return all, per, err
}

// HeldOut fits one model per sequence on the samples of all other sequences
// (leave-one-sequence-out) and returns the pooled and per-sequence
// calibration of each model on its held-out sequence, and the models by the
// sequence they leave out (to segment that sequence without having seen it).
func HeldOut(samples []PairSample, opt FitOptions) (*Calibration, map[string]*Calibration, map[string]*CostModel, error) {
	var seqs []string
	seen := map[string]bool{}
	for _, s := range samples {
		if !seen[s.Seq] {
			seen[s.Seq] = true
			seqs = append(seqs, s.Seq)
		}
	}
	if len(seqs) < 2 {
		return nil, nil, nil, fmt.Errorf("held-out calibration needs ≥ 2 sequences, got %d", len(seqs))
	}
	var allP []float64
	var allY []bool
	per := map[string]*Calibration{}
	models := map[string]*CostModel{}
	for _, q := range seqs {
		var train []PairSample
		for _, s := range samples {
			if s.Seq != q {
				train = append(train, s)
			}
		}
		m, _, err := FitCosts(train, opt)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("held out %s: %v", q, err)
		}
		var p []float64
		var y []bool
		for _, s := range samples {
			if s.Seq == q {
				p = append(p, m.CutProb(s.Features))
				y = append(y, s.Cut)
			}
		}
		per[q] = Calibrate(p, y, 10)
		models[q] = m
		allP = append(allP, p...)
		allY = append(allY, y...)
	}
	return Calibrate(allP, allY, 10), per, models, nil
}

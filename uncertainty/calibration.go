package uncertainty

import (
	"fmt"
	"math"
	"sort"
)

// Calibration of the node uncertainty against the errors of the labelling.
//
// Kardoost & Keuper (UAI 2021, Eq. 9–10) read u_v = σ(−γ_v) as the
// probability that node v belongs to another cluster. Against a ground
// truth, a node's label is wrong when its cluster stands for another region
// than the node's own (LabelErrors). How well u ranks the wrong nodes above
// the right ones is the area under the ROC curve (AUC), which no monotone
// rescaling changes; whether u is a probability is the calibration, which a
// temperature T changes:
//
//	u_T(v) = σ(−γ_v / T),
//
// T > 1 flattening γ's sums of dozens of edge log-odds. T is fitted by
// maximum likelihood of the errors (FitTemperature) on some sequences and
// scored on others: negative log-likelihood, Brier score and expected
// calibration error over the bins of ReliabilityEdges.

// LabelErrors marks the wrongly labelled nodes: a cluster stands for the
// ground-truth region that holds most of its nodes with a region (the
// smallest region id on ties), and a node is wrong when its region is not
// its cluster's. known is false for the nodes without a region (region < 0),
// which are neither right nor wrong.
func LabelErrors(labels, regions []int) (wrong, known []bool) {
	votes := map[int]map[int]int{}
	for v, l := range labels {
		if regions[v] < 0 {
			continue
		}
		if votes[l] == nil {
			votes[l] = map[int]int{}
		}
		votes[l][regions[v]]++
	}
	stands := map[int]int{}
	for l, vs := range votes {
		best, bestN := -1, 0
		for r, n := range vs {
			if n > bestN || (n == bestN && r < best) {
				best, bestN = r, n
			}
		}
		stands[l] = best
	}
	wrong, known = make([]bool, len(labels)), make([]bool, len(labels))
	for v, l := range labels {
		if regions[v] >= 0 {
			known[v] = true
			wrong[v] = regions[v] != stands[l]
		}
	}
	return wrong, known
}

// AUC is the probability that a wrong node scores higher than a right one,
// ties counting one half (the Mann–Whitney statistic over n_wrong·n_right
// pairs), over the known nodes; NaN when either class is empty.
func AUC(score []float64, wrong, known []bool) float64 {
	type item struct {
		s     float64
		wrong bool
	}
	var items []item
	nw, nr := 0, 0
	for v := range score {
		if !known[v] {
			continue
		}
		items = append(items, item{score[v], wrong[v]})
		if wrong[v] {
			nw++
		} else {
			nr++
		}
	}
	if nw == 0 || nr == 0 {
		return math.NaN()
	}
	sort.Slice(items, func(i, j int) bool { return items[i].s < items[j].s })
	// rank sum of the wrong nodes, tied scores sharing their mean rank
	rankSum := 0.0
	for i := 0; i < len(items); {
		j := i
		for j < len(items) && items[j].s == items[i].s {
			j++
		}
		mid := float64(i+j+1) / 2 // ranks i+1 … j
		for k := i; k < j; k++ {
			if items[k].wrong {
				rankSum += mid
			}
		}
		i = j
	}
	return (rankSum - float64(nw)*float64(nw+1)/2) / (float64(nw) * float64(nr))
}

// DefaultTemperature is the temperature T of u_T = σ(−γ/T) that the
// calibrated training variants use (train.VariantConfidence,
// train.VariantHardRight): FitTemperature on the trajectories of the twenty
// DAVIS 2016 development sequences, segmented with leave-one-sequence-out
// cost models, rounded (38.4 on all twenty; the fits that leave one sequence
// out lie between 37.1 and 39.8; docs/results.md). It belongs to the default
// cost model, multicut and background split (the graph segment writes): a
// graph with other costs needs its own fit (densify sparsify prints it).
const DefaultTemperature = 38.0

// TemperedU is u_T = σ(−γ/T) (0 for γ = +∞).
func TemperedU(gamma, T float64) float64 {
	if math.IsInf(gamma, 1) {
		return 0
	}
	return math.Exp(LogSigmoid(-gamma / T))
}

// ErrorSample is one known node: its γ, its segment's uncertainty μ_A,
// whether its label is wrong and whether it is a hard example (HardExample).
type ErrorSample struct {
	Gamma float64
	Mu    float64
	Wrong bool
	Hard  bool
}

// DefaultPhi is the default segment-uncertainty threshold φ of the hard
// examples of Kardoost & Keuper (UAI 2021, Sec. 4.3): the median μ_A of
// the segments (≥ DefaultMinSegment trajectories) of the DAVIS development
// sequences (docs/results.md), so the more uncertain half of the segments
// is eligible. densify prepare's --phi.
const DefaultPhi = 0.0005

// DefaultMinSegment is the size below which densify prepare drops a segment
// (ACCV'20's clean-up; its --min-segment), so that its trajectories are no
// training labels and no hard examples.
const DefaultMinSegment = 20

// HardExample is the rule of Kardoost & Keuper (UAI 2021, Sec. 4.3): a node
// of uncertainty u in a segment of uncertainty μ_A is a hard example when
// u > μ_A and μ_A > φ, the uncertain nodes of uncertain segments. densify
// prepare applies it to the segments it keeps, the trainer to redraw the
// hard examples for another φ, and Samples at the defaults.
func HardExample(u, mu, phi float64) bool { return u > mu && mu > phi }

// Samples are the known nodes of a labelling with their γ, their segment's
// μ_A and whether they are hard examples at the defaults (HardExample at
// DefaultPhi, in segments of at least DefaultMinSegment nodes).
func Samples(r *Result, wrong, known []bool) []ErrorSample {
	seg := map[int]Cluster{}
	for _, c := range r.Clusters {
		seg[c.Label] = c
	}
	var out []ErrorSample
	for v, g := range r.Gamma {
		if known[v] {
			c := seg[r.Labels[v]]
			out = append(out, ErrorSample{Gamma: g, Mu: c.MeanU, Wrong: wrong[v], Hard: c.Size >= DefaultMinSegment && HardExample(r.U[v], c.MeanU, DefaultPhi)})
		}
	}
	return out
}

// A Calibrator gives the log-odds z that a sample's label is wrong:
// P(wrong) = σ(z).
type Calibrator func(ErrorSample) float64

// TemperatureCalibrator is u_T = σ(−γ/T) (z = −∞ for γ = +∞).
func TemperatureCalibrator(T float64) Calibrator {
	return func(e ErrorSample) float64 { return -e.Gamma / T }
}

// Calibrator is the model's P(wrong | γ, μ_A).
func (m *ErrorModel) Calibrator() Calibrator {
	return func(e ErrorSample) float64 { return m.Logit(e.Gamma, e.Mu) }
}

// NLL is the mean negative log-likelihood of the errors under u_T,
// −mean[w log u_T + (1−w) log(1−u_T)], computed from log σ so that γ in the
// hundreds stays finite; a wrong node with γ = +∞ costs logCap.
func NLL(samples []ErrorSample, T float64) float64 {
	return NLLOf(samples, TemperatureCalibrator(T))
}

// NLLOf is the mean negative log-likelihood of the errors under the
// calibrator; a probability of 0 for what happened costs logCap = 1000.
func NLLOf(samples []ErrorSample, cal Calibrator) float64 {
	if len(samples) == 0 {
		return math.NaN()
	}
	const logCap = 1e3
	s := 0.0
	for _, e := range samples {
		z := cal(e)
		if e.Wrong {
			s -= math.Max(LogSigmoid(z), -logCap)
		} else {
			s -= math.Max(LogSigmoid(-z), -logCap)
		}
	}
	return s / float64(len(samples))
}

// Temperature bounds of FitTemperature.
const (
	MinTemperature = 1e-2
	MaxTemperature = 1e4
)

// FitTemperature returns the T in [MinTemperature, MaxTemperature] that
// minimises NLL(samples, T), by golden-section search on log T (NLL is
// smooth in log T; the search is exact to a relative 1e-6); 1 without
// samples.
func FitTemperature(samples []ErrorSample) float64 {
	if len(samples) == 0 {
		return 1
	}
	f := func(x float64) float64 { return NLL(samples, math.Exp(x)) }
	a, b := math.Log(MinTemperature), math.Log(MaxTemperature)
	g := (math.Sqrt(5) - 1) / 2
	c, d := b-g*(b-a), a+g*(b-a)
	fc, fd := f(c), f(d)
	for b-a > 1e-6 {
		if fc <= fd {
			b, d, fd = d, c, fc
			c = b - g*(b-a)
			fc = f(c)
		} else {
			a, c, fc = c, d, fd
			d = a + g*(b-a)
			fd = f(d)
		}
	}
	return math.Exp((a + b) / 2)
}

// ReliabilityEdges are the upper edges of the bins of u of the reliability
// table: u spans many orders of magnitude, most nodes lying far below 10⁻³.
var ReliabilityEdges = []float64{1e-6, 1e-3, 0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.75, 1}

// Bin is one bin of a reliability table: the nodes with u in (Lo, Hi]
// (the first bin includes 0), their mean u and their share of wrong labels.
type Bin struct {
	Lo, Hi    float64
	Nodes     int
	MeanU     float64
	WrongRate float64
}

// Reliability bins the samples by u_T (ReliabilityEdges) and returns the
// table and the expected calibration error, Σ_b (n_b/n)·|wrong rate_b −
// mean u_b|.
func Reliability(samples []ErrorSample, T float64) ([]Bin, float64) {
	return ReliabilityOf(samples, TemperatureCalibrator(T))
}

// ReliabilityOf is Reliability for the calibrator's P(wrong) = σ(z).
func ReliabilityOf(samples []ErrorSample, cal Calibrator) ([]Bin, float64) {
	bins := make([]Bin, len(ReliabilityEdges))
	lo := 0.0
	for i, hi := range ReliabilityEdges {
		bins[i].Lo, bins[i].Hi, lo = lo, hi, hi
	}
	wrongs := make([]int, len(bins))
	for _, e := range samples {
		u := math.Exp(LogSigmoid(cal(e)))
		i := sort.SearchFloat64s(ReliabilityEdges, u) // first edge ≥ u
		if i == len(bins) {
			i--
		}
		bins[i].Nodes++
		bins[i].MeanU += u
		if e.Wrong {
			wrongs[i]++
		}
	}
	ece := 0.0
	for i := range bins {
		if n := bins[i].Nodes; n > 0 {
			bins[i].MeanU /= float64(n)
			bins[i].WrongRate = float64(wrongs[i]) / float64(n)
			ece += float64(n) / float64(len(samples)) * math.Abs(bins[i].WrongRate-bins[i].MeanU)
		}
	}
	return bins, ece
}

// SequenceCalibration is the calibration of one sequence's uncertainty.
// The LOSO fields hold the temperature and the error model fitted on the
// other sequences and the scores under them (absent for a single sequence);
// AUCs are absent when the sequence has no wrong or no right node.
type SequenceCalibration struct {
	Name          string   `json:"name"`
	Nodes         int      `json:"nodes"` // nodes with a ground-truth region
	Wrong         int      `json:"wrong"`
	AUC           *float64 `json:"auc_u,omitempty"`          // of u (equivalently −γ)
	AUCLikelihood *float64 `json:"auc_likelihood,omitempty"` // of the likelihood baseline
	NLL           float64  `json:"nll"`                      // under u = σ(−γ), T = 1
	ECE           float64  `json:"ece"`
	LOSOT         *float64 `json:"loso_temperature,omitempty"`
	LOSONLL       *float64 `json:"loso_nll,omitempty"`
	LOSOECE       *float64 `json:"loso_ece,omitempty"`
	// the error model fitted on the other sequences (ErrorModel): the AUC
	// of its P(wrong | γ, μ_A), its NLL and ECE
	ModelAUC *float64 `json:"loso_model_auc,omitempty"`
	ModelNLL *float64 `json:"loso_model_nll,omitempty"`
	ModelECE *float64 `json:"loso_model_ece,omitempty"`
	// Hard examples (HardExample) and how many of them are wrong; of
	// these, the ones the held-out error model calls right with
	// probability ≥ RightCut (what hard-right amplifies at its default)
	// and how many of those are wrong.
	Hard           int `json:"hard"`
	HardWrong      int `json:"hard_wrong"`
	HardRight      int `json:"loso_hard_right,omitempty"`
	HardRightWrong int `json:"loso_hard_right_wrong,omitempty"`
	// Bins are the reliability tables behind ECE, LOSOECE and ModelECE.
	Bins, LOSOBins, ModelBins []Bin `json:"-"`
}

// RightCut is the probability of a right label at which Calibrate counts a
// hard example as right (train.DefaultMinRight).
const RightCut = 0.9

// CalibrationSummary is the calibration of a set of sequences: each
// sequence scored at T = 1 and at the temperature and error model fitted on
// the others, and the temperature and error model fitted on all of them.
type CalibrationSummary struct {
	Definition  string                `json:"definition"`
	Temperature float64               `json:"temperature"` // fitted on every sequence
	ErrorModel  *ErrorModel           `json:"error_model,omitempty"`
	Sequences   []SequenceCalibration `json:"sequences"`
}

// calibrationDefinition states what summary.json's calibration measures.
const calibrationDefinition = "a node is wrong when its cluster stands for another ground-truth region than its own " +
	"(the region of most of the cluster's nodes); u_T = σ(−γ/T); nll, ece: at T = 1; loso_*: at the temperature " +
	"and the error model P(wrong | γ, μ_A) fitted on the other sequences; temperature, error_model: fitted on all; " +
	"hard: u > μ_A, μ_A > 0.0005 in segments of ≥ 20 nodes; loso_hard_right: hard with P(right) ≥ 0.9"

// Calibrate scores each sequence's samples at T = 1 and, with several
// sequences, at the temperature and the error model fitted on all the
// others (an error model needs right and wrong labels among them).
func Calibrate(names []string, samples [][]ErrorSample, aucs, aucsLik []float64) CalibrationSummary {
	sum := CalibrationSummary{Definition: calibrationDefinition}
	var all []ErrorSample
	for _, s := range samples {
		all = append(all, s...)
	}
	sum.Temperature = FitTemperature(all)
	if len(samples) > 1 {
		sum.ErrorModel, _ = FitErrorModel(all, fmt.Sprintf("%d sequences", len(samples)))
	}
	for i, s := range samples {
		c := SequenceCalibration{Name: names[i], Nodes: len(s), AUC: finite(aucs[i]), AUCLikelihood: finite(aucsLik[i]), NLL: NLL(s, 1)}
		for _, e := range s {
			if e.Wrong {
				c.Wrong++
			}
			if e.Hard {
				c.Hard++
				if e.Wrong {
					c.HardWrong++
				}
			}
		}
		c.Bins, c.ECE = Reliability(s, 1)
		if len(samples) > 1 {
			var others []ErrorSample
			for j, o := range samples {
				if j != i {
					others = append(others, o...)
				}
			}
			T := FitTemperature(others)
			var ece float64
			c.LOSOBins, ece = Reliability(s, T)
			c.LOSOT, c.LOSONLL, c.LOSOECE = &T, finite(NLL(s, T)), &ece
			if m, err := FitErrorModel(others, ""); err == nil {
				c.scoreModel(s, m)
			}
		}
		sum.Sequences = append(sum.Sequences, c)
	}
	return sum
}

// scoreModel fills the error model's fields of c from its samples s.
func (c *SequenceCalibration) scoreModel(s []ErrorSample, m *ErrorModel) {
	cal := m.Calibrator()
	z := make([]float64, len(s))
	wrong, known := make([]bool, len(s)), make([]bool, len(s))
	for i, e := range s {
		z[i], wrong[i], known[i] = cal(e), e.Wrong, true
		if e.Hard && 1-math.Exp(LogSigmoid(z[i])) >= RightCut {
			c.HardRight++
			if e.Wrong {
				c.HardRightWrong++
			}
		}
	}
	var ece float64
	c.ModelBins, ece = ReliabilityOf(s, cal)
	c.ModelAUC, c.ModelNLL, c.ModelECE = finite(AUC(z, wrong, known)), finite(NLLOf(s, cal)), &ece
}

// finite returns &x, or nil for NaN and ±∞ (which JSON cannot hold).
func finite(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

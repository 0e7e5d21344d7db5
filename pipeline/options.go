// Package pipeline orchestrates the whole densify chain for one sequence or
// a dataset:
//
//	track → segment → uncertainty (+ sparsification, heat maps) → prepare
//	→ train → predict → eval (sparse and dense)
//
// Every stage reads and writes files in a per-sequence work folder (see
// Layout), records a stamp (.stamps/<stage>.json: parameters, seconds,
// summary) once all its outputs are written, and is skipped when its stamp
// and outputs exist, its parameters are unchanged and nothing it reads is
// newer than the stamp. A killed run therefore resumes where it stopped;
// Options.Force redoes everything. Every file is written atomically
// (internal/atomicfile, or a temporary folder renamed into place).
//
// The stages call the packages that implement them: trajectory (tracking on
// optical flow, through Options.FlowTracker), motiongraph (graph, costs,
// multicut via motiongraph.Segment), uncertainty (Kardoost & Keuper, UAI
// 2021, Eqs. 10–14, sparsification), trainset (ACCV'20 training data with
// UAI'21 hard examples), the dense network (Options.Densifier) and eval (FBMS
// MoSegEval protocol). The two parts that need native libraries, OpenCV's
// optical flow and the libtorch U-Net, are injected by the composition root
// (cmd/densify hands over video.Tracker and its U-Net densifier), so this package
// and its tests link neither OpenCV nor libtorch.
package pipeline

import (
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/densify/densify/eval"
	"github.com/densify/densify/internal/logit"
	"github.com/densify/densify/motiongraph"
	"github.com/densify/densify/refine"
	"github.com/densify/densify/trainset"
	"github.com/densify/densify/trajectory"
	"github.com/densify/densify/uncertainty"
)

// Variant names a training variant of the run (folder names model-<v>,
// masks-<v>; further seeds model-<v>-seed<N>): VariantWeighted weights the
// hard examples of the prepared set × its factor on top of the class balance
// (the U-Net densifier trains train.VariantHard), VariantUniform uses the
// class balance only (the ablation baseline, UAI'21 Table 1 "w/o";
// train.VariantUniform), VariantConfidence weights every label by the
// calibrated confidence 1 − 2u_T of its trajectory (train.VariantConfidence),
// VariantPrune drops the labels of the most uncertain trajectories
// (train.VariantPrune), VariantHardRight weights the hard examples whose
// labels are probably right (train.VariantHardRight), and
// VariantOracle trains uniform weights on the same trajectories labelled from
// the ground truth (trainset.PrepareOracleFiles; sequences without ground
// truth skip it): the dense J a perfect segmentation would give.
type Variant string

const (
	VariantWeighted   Variant = "weighted"
	VariantUniform    Variant = "uniform"
	VariantConfidence Variant = "confidence"
	VariantPrune      Variant = "prune"
	VariantHardRight  Variant = "hard-right"
	VariantOracle     Variant = "oracle"
)

// DefaultVariant is the variant `densify run` trains when none is asked
// for. It is uniform because on the ten DAVIS 2016 dev sequences the hard
// examples of Kardoost & Keuper (UAI 2021), mostly mislabelled there, lowered
// J where the rule selects any and the confidence variant matched uniform.
// `densify ablate` trains all three.
const DefaultVariant = VariantUniform

// Variants lists the known variants.
var Variants = []Variant{VariantWeighted, VariantUniform, VariantConfidence, VariantPrune, VariantHardRight, VariantOracle}

// WeightedWith is the weighted variant with the hard-example factor (> 0)
// and φ (≥ 0) replacing the prepared set's (0 and −1: the set's):
// "weighted-f<factor>-phi<φ>", each part only when given. The ablation's
// sweeps train these on the same prepared set.
func WeightedWith(factor, phi float64) Variant {
	v := string(VariantWeighted)
	if factor > 0 {
		v += "-f" + strconv.FormatFloat(factor, 'g', -1, 64)
	}
	if phi >= 0 {
		v += "-phi" + strconv.FormatFloat(phi, 'g', -1, 64)
	}
	return Variant(v)
}

var weightedRE = regexp.MustCompile(`^weighted(?:-f([0-9.eE+-]+?))?(?:-phi([0-9.eE+-]+))?$`)

// HardParams returns the factor and φ of a weighted variant (0 and −1: the
// prepared set's; ok false for other variants).
func (v Variant) HardParams() (factor, phi float64, ok bool) {
	m := weightedRE.FindStringSubmatch(string(v))
	if m == nil {
		return 0, -1, false
	}
	factor, phi = 0, -1
	var err error
	if m[1] != "" {
		if factor, err = strconv.ParseFloat(m[1], 64); err != nil || !(factor > 0 && factor <= 1e6) {
			return 0, -1, false
		}
	}
	if m[2] != "" {
		if phi, err = strconv.ParseFloat(m[2], 64); err != nil || !(phi >= 0 && phi <= 1) {
			return 0, -1, false
		}
	}
	return factor, phi, true
}

// ParseVariant returns the variant named s: one of Variants or a weighted
// variant with its own factor and φ (WeightedWith).
func ParseVariant(s string) (Variant, error) {
	for _, v := range Variants {
		if string(v) == s {
			return v, nil
		}
	}
	if _, _, ok := Variant(s).HardParams(); ok {
		return Variant(s), nil
	}
	names := make([]string, len(Variants))
	for i, v := range Variants {
		names[i] = string(v)
	}
	return "", fmt.Errorf("unknown variant %q (%s, or weighted-f<factor>-phi<φ> with factor in (0, 1e6] and φ in [0, 1])", s, strings.Join(names, ", "))
}

// TrainVariant is the loss weighting the densifier trains v with (the names
// of train.Variant): hard, uniform, confidence, prune or hard-right.
func (v Variant) TrainVariant() string {
	if _, _, ok := v.HardParams(); ok {
		return "hard"
	}
	switch v {
	case VariantConfidence, VariantPrune, VariantHardRight:
		return string(v)
	default: // uniform, oracle
		return "uniform"
	}
}

// RunName names the k-th seed's model of v (k = 0: the first seed, the
// variant's name; then <v>-seed<k+1>).
func RunName(v Variant, k int) string {
	if k == 0 {
		return string(v)
	}
	return fmt.Sprintf("%s-seed%d", v, k+1)
}

// Options holds the knobs of every stage.
type Options struct {
	// Dataset selection.
	Split     string   // FBMS59 "Trainingset"/"Testset" (DAVIS: "train"/"val"); "" = all
	Sequences []string // keep only these sequence names; nil = all
	Shard     Shard    // process only this part of the selection (zero: all); see Shard

	// TracksFor, when set and returning a non-empty path, gives a Tracks
	// file used instead of running the tracker for that sequence (the
	// tracking stage copies it to tracks.dat).
	TracksFor func(seq string) string

	// Track: the tracker's options, the optical-flow method (recorded in
	// the stamp) and the implementation (nil: sequences without TracksFor
	// fail with "no tracker").
	Tracker     trajectory.TrackerOptions
	Flow        string
	FlowTracker trajectory.SequenceTracker

	// Segment: graph (K, radius, lifted edges, β), cost model, solver.
	Segment motiongraph.SegmentOptions
	// CostModels, when not nil, gives every sequence its own cost model in
	// place of Segment.Model, by sequence name: leave-one-sequence-out
	// evaluation, where a sequence is segmented with the model fitted on
	// the others. Every selected sequence must have one.
	CostModels map[string]*motiongraph.CostModel
	// CostModelSource names where Segment.Model came from (a file, or the
	// folder of CostModels, whose <sequence>.json it records), for
	// segment.json; empty: the embedded default.
	CostModelSource string

	// Uncertainty: heat maps of every HeatmapEvery-th frame (labelled frames
	// when there is ground truth); sparsification curves when there is.
	HeatmapEvery int
	Sparsify     uncertainty.SparsifyOptions

	// Prepare. With PrimaryObjectAuto, Prepare.PrimaryObject is decided
	// per sequence: on for the sequences of single-object datasets
	// (dataset.SequenceInfo.SingleObject: DAVIS 2016, which annotates the
	// primary object only), off for the others (FBMS59, which annotates
	// every moving object).
	Prepare           trainset.Options
	PrimaryObjectAuto bool

	// Train / predict: the densifier (nil: the dense stages fail with "no
	// densifier") and its settings.
	Densifier Densifier
	Train     TrainOptions
	// StartingWeights, when not nil, is a checkpoint held in memory (the
	// embedded starting weights, models.StartingWeights) that the first
	// training of every sequence starts from: the run writes it to
	// WORK/starting-weights/<Name>.ckpt and sets Train.Init to that file.
	StartingWeights *StartingWeights

	// Seeds is the number of models trained per variant, with seeds
	// Train.Seed, Train.Seed+1, … (0 or 1: one; the ablation's statistics
	// need several).
	Seeds int

	// Eval of sparse tracks and dense masks.
	Eval eval.Options

	// Force redoes every stage even when its outputs are up to date.
	Force bool
	// Log receives one line per stage (nil = os.Stderr).
	Log io.Writer
	// Progress receives progress output of long stages (nil = os.Stderr).
	Progress io.Writer
}

// TrainOptions are the densification settings shared by train and predict.
// Zero values mean the trainer's defaults.
type TrainOptions struct {
	Preset string `json:"preset"` // U-Net preset (models/): unet-cpu, unet-paper
	Epochs int    `json:"epochs"` // training epochs
	// StepBudget caps the epochs at the whole ones within this many steps
	// per sequence (train.Config.StepBudget; nil = the trainer's default,
	// 0 = no cap).
	StepBudget *int    `json:"step_budget,omitempty"`
	LR         float64 `json:"lr"` // Adam learning rate
	// Schedule is the learning rate over the steps (train.Schedule:
	// "constant", the default when empty, or "cosine").
	Schedule string `json:"schedule,omitempty"`
	// Average, when > 1, predicts with the mean of the weights of the last
	// Average epochs (train.Config.Average; DefaultOptions: 5, as
	// train.DefaultAverage); 0 or 1: the last weights.
	Average   int     `json:"average,omitempty"`
	BatchSize int     `json:"batch_size"` // frames per step
	Scale     float64 `json:"scale"`      // input scale (0 = auto: train.AutoScale)
	Seed      int64   `json:"seed"`       // random seed (same seed, same masks on CPU)
	Threads   int     `json:"threads"`    // intra-op threads (0 = all cores)
	Device    string  `json:"device"`     // "cpu", "cuda" or "auto"
	NoFlip    bool    `json:"no_flip"`    // no random horizontal flips
	Overlays  bool    `json:"overlays"`   // predict also writes overlay/NNNNN.png
	ProbMaps  bool    `json:"prob_maps"`  // predict also writes prob/NNNNN.png
	// PriorShift: predict undoes the prior shift of class-balanced
	// training (train.PredictOptions.PriorShift; off by default: on the
	// DAVIS dev sequences it raised J with ground-truth labels and lowered it
	// with the segmentation's).
	PriorShift bool `json:"prior_shift,omitempty"`
	// Refine names the refinement of predicted masks (RefineMethods), which
	// takes back the halo the network paints around an object (package
	// refine): "graphcut" (the default of run and predict: a minimum cut of
	// the network's probabilities, colour models and contrast, pure Go),
	// "grabcut" (OpenCV's GrabCut on a trimap from the mask) or "none".
	// Empty means none, as in folders made before it.
	Refine string `json:"refine,omitempty"`
	// Cut holds the settings of the "graphcut" refinement (nil =
	// refine.DefaultCutOptions(); CutOrDefault).
	Cut *refine.CutOptions `json:"cut,omitempty"`
	// Temporal is the radius K of the temporal fusion of predicted
	// probability maps along optical flow (package refine; 0 = off; the
	// default of run and predict is refine.DefaultTemporalRadius).
	Temporal int `json:"temporal,omitempty"`
	// ComposeFlows chains the fusion's flows between frames more than one
	// apart from those between neighbours (refine.TemporalOptions.Compose).
	ComposeFlows bool `json:"compose_flows,omitempty"`
	// Mirror averages each frame's prediction with its mirror image's
	// (train.PredictOptions.Mirror; on by default in run and predict).
	Mirror bool `json:"mirror,omitempty"`
	// Rounds is the number of self-training rounds after the first
	// training (0 = none; DefaultRounds in DefaultOptions): round r trains from round r−1's weights on the
	// prepared set plus the confident pixels of round r−1's refined masks
	// (trainset.PseudoLabels with Pseudo; train.Config.Pseudo with
	// PseudoWeight), then predicts again. The masks of the last round are
	// the result; every round's are kept and scored.
	Rounds int `json:"rounds,omitempty"`
	// Pseudo selects the confident pixels (nil =
	// trainset.DefaultPseudoOptions).
	Pseudo *trainset.PseudoOptions `json:"pseudo,omitempty"`
	// PseudoWeight is λ of train.Config.PseudoWeight (0 = its default).
	PseudoWeight float64 `json:"pseudo_weight,omitempty"`
	// CRFWeight is train.Config.CRFWeight, the weight of the relaxed Potts
	// loss over every pixel, in the first training (0 = off).
	CRFWeight float64 `json:"crf_weight,omitempty"`
	// RoundCRFWeight is the same weight in the self-training rounds (0 =
	// off, the default: docs/results.md, "The CRF loss in the round only,
	// with the averaged weights").
	RoundCRFWeight float64 `json:"round_crf_weight,omitempty"`
	// Init, when set, is the checkpoint the first training of every
	// sequence starts from instead of a random initialisation: a network
	// trained on the prepared sets of other videos (densify train --joint),
	// whose labels, like every label here, come from the segmentation, not
	// from an annotation. The rounds start from the round before's model as
	// always. The file is an input of the first training (a changed
	// checkpoint retrains). Empty: random initialisation, the default of
	// DefaultOptions; the commands run and ablate start from the embedded
	// starting weights (Options.StartingWeights).
	Init string `json:"init,omitempty"`
}

// StartingWeights names a checkpoint held in memory (see
// Options.StartingWeights).
type StartingWeights struct {
	Name string // the file's name in WORK/starting-weights, without .ckpt
	Data []byte
}

// StartingWeightsDir is the folder of the work folder that holds
// Options.StartingWeights.
const StartingWeightsDir = "starting-weights"

// DefaultRounds is the default of TrainOptions.Rounds: one self-training
// round, which raised the mean dense J of the twenty DAVIS 2016
// development sequences (docs/results.md, "Self-training rounds").
const DefaultRounds = 1

// DefaultRoundsFromStartingWeights is the command's default of
// TrainOptions.Rounds when the first training starts from starting weights
// (TrainOptions.Init): none, as a round after such a training lowered the
// mean dense J of the twenty development sequences (docs/results.md,
// "Starting weights trained on the twenty").
const DefaultRoundsFromStartingWeights = 0

// MaxRounds bounds TrainOptions.Rounds.
const MaxRounds = 20

// PseudoOrDefault is Pseudo, or trainset.DefaultPseudoOptions when nil.
func (t TrainOptions) PseudoOrDefault() trainset.PseudoOptions {
	if t.Pseudo != nil {
		return *t.Pseudo
	}
	return trainset.DefaultPseudoOptions()
}

// CutOrDefault is Cut, or refine.DefaultCutOptions() when nil.
func (t TrainOptions) CutOrDefault() refine.CutOptions {
	if t.Cut != nil {
		return *t.Cut
	}
	return refine.DefaultCutOptions()
}

// RefineMethods are the values of TrainOptions.Refine.
var RefineMethods = []string{"graphcut", "grabcut", "none"}

// CheckRefine refuses a refinement name that is not in RefineMethods ("" is
// none).
func CheckRefine(method string) error {
	if method != "" && !slices.Contains(RefineMethods, method) {
		return fmt.Errorf("predict: unknown refinement %q (%s or %s)", method, strings.Join(RefineMethods[:len(RefineMethods)-1], ", "), RefineMethods[len(RefineMethods)-1])
	}
	return nil
}

// DefaultFlow is the default optical-flow method, video.DefaultMethod (this
// package does not import video; cmd/densify's tests check they agree).
const DefaultFlow = "dis"

// DefaultOptions are the defaults of `densify run`: the defaults of every
// stage's own command.
func DefaultOptions() Options {
	return Options{
		Tracker:           trajectory.DefaultTrackerOptions(),
		Flow:              DefaultFlow,
		Segment:           motiongraph.DefaultSegmentOptions(),
		HeatmapEvery:      10,
		Sparsify:          uncertainty.SparsifyOptions{Beta: 0.5, Step: 0.05, Max: 0.9, Seeds: 10},
		Prepare:           trainset.DefaultOptions(),
		PrimaryObjectAuto: true,
		Train:             TrainOptions{Preset: "unet-cpu", Epochs: 30, LR: 1e-3, Average: 5, BatchSize: 2, Seed: 1, Device: "cpu", Overlays: true, Refine: "graphcut", Temporal: refine.DefaultTemporalRadius, ComposeFlows: true, Mirror: true, Rounds: DefaultRounds},
	}
}

func (o *Options) log() io.Writer {
	if o.Log != nil {
		return o.Log
	}
	return os.Stderr
}

func (o *Options) progress() io.Writer {
	if o.Progress != nil {
		return o.Progress
	}
	return os.Stderr
}

// Validate checks every stage's settings before any work (the same checks
// the stage commands make): the tracker's, the graph and solver's (inside
// motiongraph.Segment, which runs late, so the solver and β here), the heat
// map interval in [1, 1000000], sparsification, preparation, evaluation and
// the training ranges of train.Config.Validate (epochs in [1, 100000],
// learning rate in (0, 1], batch in [1, 4096], scale in [0, 4], threads in
// [0, 4096]; zero epochs, rate and batch mean the trainer's defaults).
func (o *Options) Validate() error {
	if err := o.Tracker.Validate(); err != nil {
		return err
	}
	if s := o.Segment.Solver; s != "" && s != "gaec" && s != "klj" {
		return fmt.Errorf("segment: unknown solver %q (gaec or klj)", s)
	}
	if err := logit.CheckBeta(o.Segment.Graph.Beta); err != nil {
		return err
	}
	if o.Segment.MinClusterSize < 0 {
		return fmt.Errorf("segment: min cluster size must be ≥ 0, got %d", o.Segment.MinClusterSize)
	}
	if o.Seeds < 0 || o.Seeds > 1000 {
		return fmt.Errorf("train: seeds must be in [1, 1000] (0 = 1), got %d", o.Seeds)
	}
	if o.Seeds > 1 && o.Train.Seed > math.MaxInt64-int64(o.Seeds-1) {
		// the k-th model uses --seed + k, which must not wrap around
		return fmt.Errorf("train: --seed %d with --seeds %d: the last model's seed %d + %d exceeds %d", o.Train.Seed, o.Seeds, o.Train.Seed, o.Seeds-1, int64(math.MaxInt64))
	}
	if o.HeatmapEvery < 1 || o.HeatmapEvery > 1000000 {
		return fmt.Errorf("heat maps: every must be in [1, 1000000], got %d", o.HeatmapEvery)
	}
	if err := o.Sparsify.Validate(); err != nil {
		return err
	}
	if err := o.Prepare.Validate(); err != nil {
		return err
	}
	if err := o.Eval.Validate(); err != nil {
		return err
	}
	t := o.Train
	switch {
	case t.Epochs < 0 || t.Epochs > 100000:
		return fmt.Errorf("train: epochs must be in [1, 100000] (0 = default), got %d", t.Epochs)
	case t.StepBudget != nil && (*t.StepBudget < 0 || *t.StepBudget > 100000000):
		return fmt.Errorf("train: step budget must be in [0, 100000000] steps per sequence (0 = no cap), got %d", *t.StepBudget)
	case !(t.LR >= 0 && t.LR <= 1):
		return fmt.Errorf("train: learning rate must be in (0, 1] (0 = default), got %v", t.LR)
	case t.Schedule != "" && t.Schedule != "constant" && t.Schedule != "cosine":
		return fmt.Errorf("train: unknown learning-rate schedule %q (constant, cosine)", t.Schedule)
	case t.Average < 0 || t.Average > 100000:
		return fmt.Errorf("train: averaged epochs must be in [0, 100000] (0 or 1 = the last weights), got %d", t.Average)
	case t.BatchSize < 0 || t.BatchSize > 4096:
		return fmt.Errorf("train: batch size must be in [1, 4096] (0 = default), got %d", t.BatchSize)
	case !(t.Scale >= 0 && t.Scale <= 4):
		return fmt.Errorf("train: scale must be in (0, 4] (0 = auto), got %v", t.Scale)
	case t.Threads < 0 || t.Threads > 4096:
		return fmt.Errorf("train: threads must be in [0, 4096] (0 = all cores), got %d", t.Threads)
	case t.Temporal < 0 || t.Temporal > refine.MaxTemporalRadius:
		return fmt.Errorf("predict: temporal radius must be in [0, %d] frames (0 = off), got %d", refine.MaxTemporalRadius, t.Temporal)
	case t.Rounds < 0 || t.Rounds > MaxRounds:
		return fmt.Errorf("train: self-training rounds must be in [0, %d] (0 = none), got %d", MaxRounds, t.Rounds)
	case !(t.PseudoWeight >= 0 && t.PseudoWeight <= 1e6):
		return fmt.Errorf("train: self-training weight must be in (0, 1e6] (0 = default), got %v", t.PseudoWeight)
	case !(t.CRFWeight >= 0 && t.CRFWeight <= 1e6):
		return fmt.Errorf("train: CRF loss weight must be in [0, 1e6] (0 = off), got %v", t.CRFWeight)
	case !(t.RoundCRFWeight >= 0 && t.RoundCRFWeight <= 1e6):
		return fmt.Errorf("train: the rounds' CRF loss weight must be in [0, 1e6] (0 = off), got %v", t.RoundCRFWeight)
	}
	if err := t.PseudoOrDefault().Validate(); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	if err := t.CutOrDefault().Validate(); err != nil {
		return fmt.Errorf("predict: %w", err)
	}
	return CheckRefine(t.Refine)
}

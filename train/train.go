// Package train trains the densification U-Net (package unet) on prepared
// sparse training sets (package trainset) and predicts dense masks with it:
// Kardoost, Ho, Ochs, Keuper, "Self-supervised sparse to dense motion
// segmentation", ACCV 2020, with the hard-example weights of Kardoost &
// Keuper, UAI 2021, Sec. 4.3.
//
// Training minimises the weighted loss of weightedLoss (labelled pixels only,
// Σ w ℓ / Σ w), plus Config.CRFWeight times the relaxed Potts loss of
// crfLoss over every pixel when it is > 0, with Adam (adam.go). One model is trained per sequence (ACCV'20)
// unless Config.Joint asks for one model over all sets.
//
// Files written to the output folder of one model:
//
//	model.ckpt                 the latest complete epoch (unet checkpoint format)
//	epochs/epoch-NNN.ckpt      the model after epoch NNN (1-based); every epoch, or the last Config.KeepEpochs
//	epochs/last.adam           Adam moments and step count after the last complete epoch
//	train_log.csv              epoch,step,loss,seconds (one row per optimisation step)
//	train.json                 Summary
//
// Every file is written atomically; a killed run resumes (Config.Resume) from
// the last complete epoch and continues exactly as an uninterrupted run: the
// weights, batch-norm statistics and Adam moments are restored, and the data
// order and flips of epoch e come from a generator seeded with (Seed, e) only.
// Every output of one run is a pure function of the inputs, the Config and
// libtorch's CPU kernels at the chosen thread count.
package train

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/densify/densify/internal/atomicfile"
	"github.com/densify/densify/internal/progress"
	"github.com/densify/densify/models"
	"github.com/densify/densify/trainset"
	"github.com/densify/densify/uncertainty"
	"github.com/densify/densify/unet"
	"github.com/sugarme/gotch"
	"github.com/sugarme/gotch/ts"
)

// Config controls a training run; DefaultConfig gives the defaults.
type Config struct {
	// Preset names the architecture in models/ ("unet-cpu", "unet-paper");
	// Model, when set, is used instead (tests, custom widths). The number of
	// output channels always comes from the data: 1 for binary sets, K for
	// multi-label sets with K classes.
	Preset string
	Model  *unet.Config
	// Edges overrides the preset's Sobel edge channel when not nil.
	Edges *bool
	// Epochs is the number of passes over all labelled frames.
	Epochs int
	// StepBudget, when > 0, caps the training at the whole epochs that fit
	// into StepBudget optimisation steps per training set (at least one
	// epoch; see EffectiveEpochs): a time budget per sequence that does
	// not grow with its length. 0 = Epochs, uncapped.
	StepBudget int
	// LR is Adam's learning rate (the peak of Schedule).
	LR float64
	// Schedule is the learning rate over the steps (ScheduleConstant when
	// empty; see LRAt).
	Schedule Schedule
	// Batch is the number of frames per step (frames of different sizes never
	// share a batch).
	Batch int
	// Scale resizes frames before training (0 = auto: AutoScale).
	Scale float64
	// Variant composes the loss weights from the prepared base weights and
	// hard-example mask ("" = VariantHard).
	Variant Variant
	// HardFactor, when > 0, replaces the set's hard-example factor and
	// HardPhi, when set, redraws the hard examples for that φ from the
	// set's per-pixel u and μ_A (u > μ_A ∧ μ_A > φ; format ≥ 3); nil keeps
	// the set's mask. Both only matter for VariantHard (the ablation's
	// factor and φ sweeps).
	HardFactor float64
	HardPhi    *float64
	// Temperature is T of the calibrated uncertainty u_T = σ(−γ/T) that
	// VariantConfidence and VariantHardRight read (0 =
	// uncertainty.DefaultTemperature; 1 = the uncalibrated u of UAI'21 Eq. 13).
	Temperature float64
	// Prune is the fraction q of the most uncertain trajectories whose
	// labels VariantPrune drops, in [0, 1) (0 = DefaultPrune).
	Prune float64
	// MinRight is the calibrated probability of being right, 1 −
	// P(wrong | γ, μ_A) under ErrorModel, that a hard example needs to keep
	// its factor under VariantHardRight, in (0, 1] (0 = DefaultMinRight).
	MinRight float64
	// ErrorModel is the JSON error model (uncertainty.ErrorModel, written by
	// densify sparsify) whose P(wrong | γ, μ_A) VariantHardRight reads (""
	// = uncertainty.DefaultErrorModel).
	ErrorModel string
	// NoFlip disables random horizontal flips.
	NoFlip bool
	// Seed drives weight initialisation, data order and flips.
	Seed int64
	// Threads is libtorch's intra-op thread count (≤ 0: all cores).
	Threads int
	// Device is "cpu", "cuda" or "auto".
	Device string
	// Average, when > 1, makes model.ckpt the mean of the weights (and
	// batch-norm statistics) of the last Average epochs' checkpoints
	// (unet.AverageCheckpoints) instead of the last epoch's; it does not
	// change the training, so a finished training resumed with another
	// Average only rewrites model.ckpt. 0 or 1: the last weights.
	Average int
	// KeepEpochs, when > 0, keeps in epochs/ only the checkpoints of the
	// last max(KeepEpochs, Average) complete epochs: what resuming a killed
	// run and the average of model.ckpt read. 0 keeps every epoch (the
	// default: per-epoch evaluation and a later --resume with a larger
	// --average read them). One checkpoint of the unet-cpu preset at the
	// DAVIS working scale is about 4 MB, a default training writes up to
	// DefaultEpochs of them.
	KeepEpochs int
	// Resume continues from the last complete epoch in the output folder.
	Resume bool
	// Pseudo, when not empty, adds the labels of a self-training round to
	// the sets: the i-th folder holds the masks and prob/ maps that the
	// previous round predicted for the frames of the i-th set
	// (trainset.ReadPseudoLabels with PseudoOptions). A pixel the set
	// labels keeps its label; the pseudo-labelled pixels of each class
	// share PseudoWeight times the total weight of that class's labels in
	// the set (so the sparse labels' class balance carries over).
	Pseudo        []string
	PseudoOptions trainset.PseudoOptions
	// PseudoWeight is λ above (0 = DefaultPseudoWeight).
	PseudoWeight float64
	// CRFWeight, when > 0, adds CRFWeight times the relaxed Potts loss of
	// crfLoss (Tang et al., ECCV 2018) over all pixels to the labelled
	// pixels' loss; train_log.csv's loss is then their sum. 0: the
	// labelled pixels' loss alone.
	CRFWeight float64
	// Init, when set, starts from this checkpoint's weights (the previous
	// round's model) instead of a random initialisation; Adam starts
	// afresh.
	Init string
	// Joint trains one model over all sets instead of one per set.
	Joint bool
	// OnStep, if not nil, is called after every optimisation step (the
	// pipeline's hook; tests use it to interrupt a run).
	OnStep func(epoch, step int, loss float64)
}

// DefaultConfig: unet-cpu, DefaultEpochs within DefaultStepBudget steps
// per set, Adam with lr 1e-3, batch 2, automatic scale, seed 1, CPU, all
// cores, hard examples weighted, model.ckpt the mean of the last
// DefaultAverage epochs' weights.
func DefaultConfig() Config {
	return Config{Preset: "unet-cpu", Epochs: DefaultEpochs, StepBudget: DefaultStepBudget, LR: 1e-3, Batch: 2, Seed: 1, Device: "cpu", Variant: VariantHard, Average: DefaultAverage}
}

// DefaultAverage is the number of last epochs whose weights model.ckpt
// averages by default (Config.Average; stochastic weight averaging at a
// constant rate, Izmailov et al., UAI 2018): with 600 steps, 15 epochs of
// an 80-frame sequence, the last third of the training. On the twenty
// DAVIS development sequences it brought two seeds' masks closer at the
// same mean J (docs/results.md).
const DefaultAverage = 5

// DefaultStepBudget is 600 steps per training set: 15 epochs of an 80-frame
// sequence at batch 2. A step of two 256×144 frames (DAVIS at the automatic
// scale 0.3) takes about 0.16 s on 2 cores, so a sequence trains in under
// two minutes however long it is (about four at ½, AutoScale's scale for
// small objects); longer ones get fewer epochs (cows, 104 frames: 11).
const DefaultStepBudget = 600

// CPUWorkingSide is the longer side, in pixels, to which the automatic scale
// brings frames on CPU: DAVIS's 854 px at 0.3 (256×144).
const CPUWorkingSide = 256.0

// ObjectWorkingSide is the size, in pixels at the working scale, that the
// automatic CPU scale gives the labelled object when CPUWorkingSide leaves
// it smaller: three cells of the deepest level of a depth-4 U-Net (stride
// 16), so that the network sees a small object's parts and not one blob.
const ObjectWorkingSide = 48.0

// AutoScale is the input scale of Scale 0 for frames of w×h whose labelled
// object measures object pixels across (objectExtent; 0 = unknown): 1 on
// CUDA; on CPU
//
//	s = min(½, max(CPUWorkingSide / max(w, h), ObjectWorkingSide / object))
//
// DAVIS trains at 0.3 (256×144) unless its object is under 160 px across,
// and at ½ when it is under 96 px; FBMS59's 640×480 at 0.4 or more;
// smaller frames at ½. On the twenty DAVIS development sequences, with the
// embedded starting weights, 0.3 raised the mean dense J over ¼, and the
// object's size raised it again, lifting the small objects (bmx-trees past
// 55) at up to three times their training time (docs/results.md).
func AutoScale(cuda bool, w, h int, object float64) float64 {
	if cuda {
		return 1
	}
	s := 0.5
	if long := max(w, h); long > 0 {
		s = CPUWorkingSide / float64(long)
	}
	if object > 0 {
		s = max(s, ObjectWorkingSide/object)
	}
	return min(0.5, s)
}

// DefaultEpochs is the most epochs a default training runs: 30, so every
// sequence of at least 40 frames uses the whole step budget (a 50-frame
// sequence 24 epochs). ACCV'20 trains 15 epochs; 30 lets the DAVIS
// sequences shorter than 80 frames, which 15 epochs leave at 300–450
// steps, use the whole budget, which raised their J on the dev sequences.
const DefaultEpochs = 30

// EffectiveEpochs is the number of epochs a training of sets sets with
// perEpoch steps per epoch runs: Epochs, or with a StepBudget the whole
// epochs within StepBudget·sets steps, at least one.
func (c Config) EffectiveEpochs(perEpoch, sets int) int {
	if c.StepBudget <= 0 || perEpoch <= 0 {
		return c.Epochs
	}
	return max(1, min(c.Epochs, c.StepBudget*max(sets, 1)/perEpoch))
}

// Options is the part of the configuration that determines the result; it is
// stored in every checkpoint and must match when resuming.
type Options struct {
	Model unet.Config `json:"model"`
	Sets  []string    `json:"sets"`
	Mode  string      `json:"mode"`
	LR    float64     `json:"lr"`
	// Schedule is empty for ScheduleConstant, so that checkpoints written
	// before schedules existed resume.
	Schedule Schedule `json:"schedule,omitempty"`
	Batch    int      `json:"batch"`
	Scale    float64  `json:"scale"`
	Variant  Variant  `json:"variant"`
	Factor   float64  `json:"hard_factor,omitempty"`
	Phi      *float64 `json:"hard_phi,omitempty"`
	// the calibrated variants' knobs (Config.Temperature, Prune, MinRight)
	Temperature float64 `json:"temperature,omitempty"`
	Prune       float64 `json:"prune,omitempty"`
	MinRight    float64 `json:"min_right,omitempty"`
	// the error model that VariantHardRight read (Config.ErrorModel)
	ErrorModel *uncertainty.ErrorModel `json:"error_model,omitempty"`
	Flip       bool                    `json:"flip"`
	Seed       int64                   `json:"seed"`
	// the self-training round's labels and start (Config.Pseudo, Init)
	Pseudo        []string                `json:"pseudo,omitempty"`
	PseudoOptions *trainset.PseudoOptions `json:"pseudo_options,omitempty"`
	PseudoWeight  float64                 `json:"pseudo_weight,omitempty"`
	Init          string                  `json:"init,omitempty"`
	CRFWeight     float64                 `json:"crf_weight,omitempty"`
}

// CheckpointInfo is the "extra" record of the checkpoints written by Run.
type CheckpointInfo struct {
	Epoch   int     `json:"epoch"` // complete epochs
	Step    int     `json:"step"`  // optimisation steps so far
	Seconds float64 `json:"seconds"`
	Options Options `json:"options"`
	// PriorShift is trainData.PriorShift of the training data: predict
	// divides the odds of class c against the background by it.
	PriorShift []float64 `json:"prior_shift,omitempty"`
	// AveragedEpochs lists the epochs whose weights model.ckpt averages
	// (Config.Average); empty for the last epoch's weights.
	AveragedEpochs []int `json:"averaged_epochs,omitempty"`
}

// Summary describes a finished training (train.json).
type Summary struct {
	Out        string  `json:"out"`
	Checkpoint string  `json:"checkpoint"`
	Options    Options `json:"options"`
	Params     int64   `json:"params"`
	Device     string  `json:"device"`
	Threads    int     `json:"threads"`
	Epochs     int     `json:"epochs"`
	Steps      int     `json:"steps"`
	Frames     int     `json:"frames"`
	Labelled   int     `json:"labelled_pixels"`
	Hard       int     `json:"hard_pixels"`
	Pseudo     int     `json:"pseudo_pixels,omitempty"` // self-training labels at training resolution
	// Pruned is, for VariantPrune, per class the labelled pixels of the
	// prepared sets (at their resolution) and those whose labels it drops.
	Pruned    []ClassPruned `json:"pruned,omitempty"`
	Width     int           `json:"train_width"`
	Height    int           `json:"train_height"`
	FinalLoss float64       `json:"final_loss"` // mean loss of the last epoch
	EpochLoss []float64     `json:"epoch_loss"`
	Seconds   float64       `json:"seconds"`
	ResumedAt int           `json:"resumed_at_epoch,omitempty"`
	Averaged  []int         `json:"averaged_epochs,omitempty"` // epochs model.ckpt averages (Config.Average)
	// Object is the size of the labelled object (objectExtent) from which
	// the automatic scale was chosen, in pixels at the sets' resolution.
	Object float64    `json:"object_px,omitempty"`
	Models []*Summary `json:"models,omitempty"` // one per set when not Joint
}

// Ranges of the numeric settings (Config.Validate). The learning rate of
// Adam is a step size in weight units: beyond 1 every step overshoots and
// the loss diverges to NaN in a few steps.
const (
	MaxEpochs     = 100000
	MaxStepBudget = 100000000
	MaxLR         = 1.0
	MaxBatch      = 4096
	MaxScale      = 4.0
	MaxThreads    = 4096
	MaxCRFWeight  = 1e6
)

// Validate checks every setting before anything is read or written:
// epochs in [1, MaxEpochs], step budget in [0, MaxStepBudget], learning
// rate in (0, MaxLR], batch in [1, MaxBatch], scale in [0, MaxScale]
// (0 = auto), threads in [0, MaxThreads] (0 = all cores), a known preset
// (unless Model is set) and device.
func (c Config) Validate() error { return c.validate() }

func (c *Config) validate() error {
	switch {
	case c.Epochs < 1 || c.Epochs > MaxEpochs:
		return fmt.Errorf("train: epochs must be in [1, %d], got %d", MaxEpochs, c.Epochs)
	case c.StepBudget < 0 || c.StepBudget > MaxStepBudget:
		return fmt.Errorf("train: step budget must be in [0, %d] steps per set (0 = no cap), got %d", MaxStepBudget, c.StepBudget)
	case !(c.LR > 0 && c.LR <= MaxLR):
		return fmt.Errorf("train: learning rate must be in (0, %g], got %v", MaxLR, c.LR)
	case c.Batch < 1 || c.Batch > MaxBatch:
		return fmt.Errorf("train: batch size must be in [1, %d], got %d", MaxBatch, c.Batch)
	case !(c.Scale >= 0 && c.Scale <= MaxScale):
		return fmt.Errorf("train: scale must be in (0, %g] (0 = auto), got %v", MaxScale, c.Scale)
	case c.Threads < 0 || c.Threads > MaxThreads:
		return fmt.Errorf("train: threads must be in [0, %d] (0 = all cores), got %d", MaxThreads, c.Threads)
	case c.Average < 0 || c.Average > MaxEpochs:
		return fmt.Errorf("train: averaged epochs must be in [0, %d] (0 or 1 = the last weights), got %d", MaxEpochs, c.Average)
	case c.KeepEpochs < 0 || c.KeepEpochs > MaxEpochs:
		return fmt.Errorf("train: kept epochs must be in [0, %d] (0 = every epoch), got %d", MaxEpochs, c.KeepEpochs)
	case !(c.CRFWeight >= 0 && c.CRFWeight <= MaxCRFWeight):
		return fmt.Errorf("train: CRF loss weight must be in [0, %g], got %v", MaxCRFWeight, c.CRFWeight)
	}
	if c.Model == nil {
		if _, err := models.Lookup(c.Preset); err != nil {
			return fmt.Errorf("train: %w", err)
		}
	}
	switch strings.ToLower(c.Device) {
	case "", "cpu", "cuda", "gpu", "auto":
	default:
		return fmt.Errorf("train: unknown device %q (cpu, cuda or auto)", c.Device)
	}
	if c.Variant == "" {
		c.Variant = VariantHard
	}
	if _, err := ParseVariant(string(c.Variant)); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	if _, err := ParseSchedule(string(c.Schedule)); err != nil {
		return fmt.Errorf("train: %w", err)
	}
	if !(c.HardFactor >= 0 && c.HardFactor <= 1e6) {
		return fmt.Errorf("train: hard-example factor must be in (0, 1e6] (0 = the set's), got %v", c.HardFactor)
	}
	if c.HardPhi != nil && !(*c.HardPhi >= 0 && *c.HardPhi <= 1) {
		return fmt.Errorf("train: φ must be in [0, 1], got %v", *c.HardPhi)
	}
	switch {
	case !(c.Temperature >= 0 && c.Temperature <= uncertainty.MaxTemperature):
		return fmt.Errorf("train: temperature must be in (0, %g] (0 = %g), got %v", uncertainty.MaxTemperature, uncertainty.DefaultTemperature, c.Temperature)
	case !(c.Prune >= 0 && c.Prune < 1):
		return fmt.Errorf("train: pruned fraction must be in [0, 1) (0 = %g), got %v", DefaultPrune, c.Prune)
	case !(c.MinRight >= 0 && c.MinRight <= 1):
		return fmt.Errorf("train: minimum probability of a right label must be in (0, 1] (0 = %g), got %v", DefaultMinRight, c.MinRight)
	}
	// the defaults of the variant's own knobs, so that train.json records
	// what was used (the other variants record none)
	if c.Temperature == 0 && c.Variant == VariantConfidence {
		c.Temperature = uncertainty.DefaultTemperature
	}
	if c.Prune == 0 && c.Variant == VariantPrune {
		c.Prune = DefaultPrune
	}
	if c.MinRight == 0 && c.Variant == VariantHardRight {
		c.MinRight = DefaultMinRight
	}
	if len(c.Pseudo) > 0 {
		if err := c.PseudoOptions.Validate(); err != nil {
			return fmt.Errorf("train: %w", err)
		}
		if !(c.PseudoWeight >= 0 && c.PseudoWeight <= 1e6) {
			return fmt.Errorf("train: self-training weight must be in (0, 1e6] (0 = %g), got %v", DefaultPseudoWeight, c.PseudoWeight)
		}
		if c.PseudoWeight == 0 {
			c.PseudoWeight = DefaultPseudoWeight
		}
	}
	return nil
}

// DefaultPseudoWeight is λ of Config.PseudoWeight: a self-training round's
// labels of each class weigh as much, in all, as the set's own labels of
// that class.
const DefaultPseudoWeight = 1.0

// DefaultPrune is the default fraction of VariantPrune: 0.05, the first
// step of the sparsification curves of the twenty DAVIS 2016 development
// sequences, which removes a third of the mean VI (0.309 → 0.207 nats;
// the next 5 % remove 0.044 more; docs/results.md). Not yet chosen on
// dense J.
const DefaultPrune = 0.05

// DefaultMinRight is the default of Config.MinRight: a hard example keeps
// its factor where its label is right with probability ≥ 0.9 under the
// error model (uncertainty.RightCut, at which densify sparsify counts them).
// Not yet chosen on dense J.
const DefaultMinRight = uncertainty.RightCut

// weighting is what loadSets needs of the configuration.
func (c Config) weighting() weighting {
	w := weighting{Variant: c.Variant, Factor: c.HardFactor, Phi: -1, Temperature: c.Temperature, Prune: c.Prune, MinRight: c.MinRight,
		Pseudo: c.Pseudo, PseudoOptions: c.PseudoOptions, PseudoWeight: c.PseudoWeight}
	if c.HardPhi != nil {
		w.Phi = *c.HardPhi
	}
	return w
}

// SetName names the model of a training set: the set's folder name, or the
// sequence name for sets in the pipeline layout (<work>/<seq>/prepared).
func SetName(set string) string {
	set = filepath.Clean(set)
	if name := filepath.Base(set); name != "prepared" {
		return name
	}
	return filepath.Base(filepath.Dir(set))
}

// Run trains on the prepared sets and writes to out: one model in out when
// cfg.Joint or a single set is given, otherwise one model per set in
// out/<set folder name>. Progress goes to progress (nil: none). ctx cancels
// between steps; completed epochs stay on disk for Resume.
func Run(ctx context.Context, cfg Config, sets []string, out string, progress io.Writer) (*Summary, error) {
	if len(sets) == 0 {
		return nil, errors.New("train: no training set given")
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if progress == nil {
		progress = io.Discard
	}
	// The whole training on one OS thread (see unet.LockThread).
	defer unet.LockThread()()
	defer unet.TrimBlockCache() // cached blocks of this shape go back to the system
	if err := unet.SetThreads(cfg.Threads); err != nil {
		return nil, err
	}
	if len(cfg.Pseudo) > 0 && len(cfg.Pseudo) != len(sets) {
		return nil, fmt.Errorf("train: %d self-training label folders for %d sets; give one per set", len(cfg.Pseudo), len(sets))
	}
	if cfg.Joint || len(sets) == 1 {
		return trainOne(ctx, cfg, sets, out, progress)
	}
	top := &Summary{Out: out}
	seen := map[string]bool{}
	names := make([]string, len(sets))
	for i, set := range sets {
		names[i] = SetName(set)
		if seen[names[i]] {
			return nil, fmt.Errorf("train: two sets are named %q; their models would share %s", names[i], filepath.Join(out, names[i]))
		}
		seen[names[i]] = true
	}
	for i, set := range sets {
		name := names[i]
		fmt.Fprintf(progress, "training %s\n", name)
		c := cfg
		if len(cfg.Pseudo) > 0 {
			c.Pseudo = cfg.Pseudo[i : i+1]
		}
		s, err := trainOne(ctx, c, []string{set}, filepath.Join(out, name), progress)
		if err != nil {
			return nil, err
		}
		top.Models = append(top.Models, s)
		top.Seconds += s.Seconds
		top.Steps += s.Steps
		top.Frames += s.Frames
		top.Epochs = max(top.Epochs, s.Epochs)
		top.Options.Sets = append(top.Options.Sets, set)
	}
	if err := writeJSON(filepath.Join(out, "train.json"), top); err != nil {
		return nil, err
	}
	return top, nil
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return atomicfile.WriteBytes(path, append(b, '\n'))
}

func absAll(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		if a, err := filepath.Abs(p); err == nil {
			out[i] = a
		} else {
			out[i] = p
		}
	}
	return out
}

// modelConfig resolves the architecture for data with the given output channels.
func modelConfig(cfg Config, classes int) (unet.Config, error) {
	var mc unet.Config
	if cfg.Model != nil {
		mc = *cfg.Model
	} else {
		name := cfg.Preset
		if name == "" {
			name = "unet-cpu"
		}
		var err error
		if mc, err = unet.Preset(name); err != nil {
			return mc, err
		}
	}
	if cfg.Edges != nil {
		mc.Edges = *cfg.Edges
	}
	mc.Classes = classes
	return mc, mc.Validate()
}

type logRow struct {
	Epoch, Step int
	Loss        float64
	Seconds     float64
}

func trainOne(ctx context.Context, cfg Config, sets []string, out string, progressW io.Writer) (*Summary, error) {
	dev, err := unet.ParseDevice(cfg.Device)
	if err != nil {
		return nil, err
	}
	scale, object := cfg.Scale, 0.0
	if scale == 0 {
		w, h, err := largestFrame(sets)
		if err != nil {
			return nil, err
		}
		if !dev.IsCuda() {
			if object, err = objectExtent(sets); err != nil {
				return nil, err
			}
		}
		scale = AutoScale(dev.IsCuda(), w, h, object)
		sw, sh := scaledSize(w, h, scale)
		why := ""
		if object > 0 {
			why = fmt.Sprintf(" (the labelled object measures %.0f px across)", object)
		}
		fmt.Fprintf(progressW, "automatic scale %.3g: %d×%d frames train at %d×%d%s\n", scale, w, h, sw, sh, why)
	}
	wt := cfg.weighting()
	if cfg.Variant == VariantHardRight {
		if wt.ErrorModel, err = uncertainty.LoadErrorModel(cfg.ErrorModel); err != nil {
			return nil, fmt.Errorf("train: %w", err)
		}
	}
	data, err := loadSets(sets, scale, wt)
	if err != nil {
		return nil, err
	}
	mc, err := modelConfig(cfg, data.Classes)
	if err != nil {
		return nil, err
	}
	for _, s := range data.Samples {
		if min(s.W, s.H) < mc.MinSize() {
			return nil, fmt.Errorf("train: frames are %dx%d at scale %g, smaller than the %d px that depth %d needs; use a larger --scale", s.W, s.H, scale, mc.MinSize(), mc.Depth)
		}
	}
	opts := Options{Model: mc, Sets: absAll(sets), Mode: data.Mode, LR: cfg.LR, Schedule: cfg.Schedule.recorded(), Batch: cfg.Batch, Scale: scale,
		Variant: cfg.Variant, Factor: cfg.HardFactor, Temperature: cfg.Temperature, Prune: cfg.Prune, MinRight: cfg.MinRight,
		ErrorModel: wt.ErrorModel, Flip: !cfg.NoFlip, Seed: cfg.Seed, CRFWeight: cfg.CRFWeight}
	if len(cfg.Pseudo) > 0 {
		po := cfg.PseudoOptions
		opts.Pseudo, opts.PseudoOptions, opts.PseudoWeight = absAll(cfg.Pseudo), &po, cfg.PseudoWeight
	}
	if cfg.Init != "" {
		opts.Init = absAll([]string{cfg.Init})[0]
	}
	if cfg.HardPhi != nil {
		phi := *cfg.HardPhi
		opts.Phi = &phi
	}

	unet.ManualSeed(cfg.Seed)
	model, err := unet.New(mc, dev)
	if err != nil {
		return nil, err
	}
	if mc.Edges {
		if err := setEdges(data.Samples); err != nil {
			return nil, err
		}
	}
	opt, err := newAdam(model, cfg.LR)
	if err != nil {
		return nil, err
	}
	defer opt.Close()

	epochDir := filepath.Join(out, "epochs")
	adamPath := filepath.Join(epochDir, "last.adam")
	start, step, seconds := 0, 0, 0.0
	var rows []logRow
	if cfg.Resume {
		info, ok, err := resume(model, opt, epochDir, adamPath, opts)
		if err != nil {
			return nil, err
		}
		if ok {
			start, step, seconds = info.Epoch, info.Step, info.Seconds
			if rows, err = readLog(filepath.Join(out, "train_log.csv"), start); err != nil {
				return nil, err
			}
			fmt.Fprintf(progressW, "resuming %s after epoch %d (step %d)\n", out, start, step)
		}
	}
	if cfg.Init != "" && start == 0 {
		if _, err := model.Load(cfg.Init); err != nil {
			return nil, fmt.Errorf("train: the starting weights: %w", err)
		}
		fmt.Fprintf(progressW, "starting from the weights of %s\n", cfg.Init)
	}
	if err := os.MkdirAll(epochDir, 0o755); err != nil {
		return nil, err
	}

	perEpoch := len(epochBatches(data.Samples, cfg.Batch, cfg.Seed, 0, false))
	cfg.Epochs = cfg.EffectiveEpochs(perEpoch, len(sets))
	bar := progress.New(progressW, perEpoch*max(cfg.Epochs-start, 0), fmt.Sprintf("epoch %d/%d", start+1, cfg.Epochs))
	sum := &Summary{Out: out, Checkpoint: filepath.Join(out, "model.ckpt"), Options: opts, Params: model.NumParams(),
		Device: deviceName(dev), Threads: unet.Threads(), Epochs: cfg.Epochs, Frames: len(data.Samples),
		Labelled: data.Labelled, Hard: data.Hard, Pseudo: data.Pseudo, Width: data.Samples[0].W, Height: data.Samples[0].H, ResumedAt: start, Object: object,
		Pruned: data.pruned()}
	// Epoch losses of resumed epochs come from the log.
	for e := 1; e <= start; e++ {
		sum.EpochLoss = append(sum.EpochLoss, meanLoss(rows, e))
	}
	began := time.Now()
	var buf batch // reused by every step
	for epoch := start; epoch < cfg.Epochs; epoch++ {
		batches := epochBatches(data.Samples, cfg.Batch, cfg.Seed, epoch, !cfg.NoFlip)
		var total float64
		for _, bt := range batches {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("train: interrupted in epoch %d (%v); epochs 1..%d are saved in %s, continue with --resume", epoch+1, err, epoch, out)
			}
			opt.LR = cfg.Schedule.LRAt(cfg.LR, step, perEpoch*cfg.Epochs)
			loss, err := trainStep(model, opt, buf.fill(bt.samples, bt.flip), data.Classes, cfg.CRFWeight)
			if err != nil {
				return nil, fmt.Errorf("train: epoch %d, step %d: %w", epoch+1, step+1, err)
			}
			if math.IsNaN(loss) || math.IsInf(loss, 0) {
				return nil, fmt.Errorf("train: loss became %v in epoch %d, step %d; lower --lr", loss, epoch+1, step+1)
			}
			step++
			total += loss
			rows = append(rows, logRow{epoch + 1, step, loss, seconds + time.Since(began).Seconds()})
			bar.Describe(fmt.Sprintf("epoch %d/%d loss %.4f", epoch+1, cfg.Epochs, loss))
			bar.Add(1)
			if cfg.OnStep != nil {
				cfg.OnStep(epoch+1, step, loss)
			}
		}
		sum.EpochLoss = append(sum.EpochLoss, total/float64(len(batches)))
		info := CheckpointInfo{Epoch: epoch + 1, Step: step, Seconds: seconds + time.Since(began).Seconds(), Options: opts,
			PriorShift: data.PriorShift()}
		if err := saveEpoch(model, opt, out, epochDir, adamPath, info, rows); err != nil {
			return nil, err
		}
		if err := dropEpochs(epochDir, epoch+1, cfg.keptEpochs()); err != nil {
			return nil, err
		}
	}
	bar.Finish()
	if cfg.Average > 1 || start >= cfg.Epochs { // else model.ckpt holds the last epoch's weights already
		if sum.Averaged, err = finalWeights(out, epochDir, cfg.Epochs, cfg.Average); err != nil {
			return nil, err
		}
	}
	sum.Steps = step
	sum.Seconds = seconds + time.Since(began).Seconds()
	sum.FinalLoss = sum.EpochLoss[len(sum.EpochLoss)-1]
	if err := writeJSON(filepath.Join(out, "train.json"), sum); err != nil {
		return nil, err
	}
	return sum, nil
}

// largestFrame is the frame size of the set with the longest side.
func largestFrame(sets []string) (w, h int, err error) {
	for _, dir := range sets {
		m, err := trainset.ReadManifest(dir)
		if err != nil {
			return 0, 0, fmt.Errorf("%s: %w", dir, err)
		}
		if max(m.Width, m.Height) > max(w, h) {
			w, h = m.Width, m.Height
		}
	}
	return w, h, nil
}

// objectExtent is the size of the labelled object of the sets, in pixels at
// their own resolution: over every frame with at least minObjectPixels
// pixels labelled object (any class but background 0), the geometric mean
// √(w·h) of the box between the 5th and 95th percentiles of their x and of
// their y, and the median of that over the frames; 0 when no frame has
// that many (a set of background only, which loadSets refuses anyway). The
// percentiles keep a few stray labels from widening the box; in a set of
// several objects the box spans them all.
func objectExtent(sets []string) (float64, error) {
	var sizes []float64
	for _, dir := range sets {
		m, err := trainset.ReadManifest(dir)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", dir, err)
		}
		W, H := m.Width, m.Height
		for _, mf := range m.Frames {
			a, p, err := readFrameArray(dir, mf.Labels, W, H)
			if err != nil {
				return 0, err
			}
			if a.Int16 == nil {
				return 0, fmt.Errorf("%s: labels must be int16", p)
			}
			var xs, ys []int
			for i, l := range a.Int16 {
				if l > 0 {
					xs, ys = append(xs, i%W), append(ys, i/W)
				}
			}
			if len(xs) < minObjectPixels {
				continue
			}
			sizes = append(sizes, math.Sqrt(float64(percentileSpan(xs)*percentileSpan(ys))))
		}
	}
	if len(sizes) == 0 {
		return 0, nil
	}
	slices.Sort(sizes)
	n := len(sizes)
	return (sizes[(n-1)/2] + sizes[n/2]) / 2, nil
}

// minObjectPixels is the fewest object labels a frame needs for
// objectExtent to measure the object in it.
const minObjectPixels = 5

// percentileSpan is the distance between the 5th and the 95th percentile of
// v (nearest rank, v sorted in place), at least 1.
func percentileSpan(v []int) int {
	slices.Sort(v)
	n := len(v)
	return max(1, v[(95*n-1)/100]-v[(5*n)/100])
}

// finalWeights writes model.ckpt from the checkpoints of epochs: the mean of
// the last average of them (average > 1), or the last one's weights, with
// the last epoch's record and the averaged epochs added; it returns those
// epochs (nil for the last weights).
func finalWeights(out, epochDir string, epochs, average int) ([]int, error) {
	last := epochCkpt(epochDir, epochs)
	h, err := unet.ReadCheckpointHeader(last)
	if err != nil {
		return nil, err
	}
	var info CheckpointInfo
	if err := json.Unmarshal(h.Extra, &info); err != nil {
		return nil, fmt.Errorf("%s: %w", last, err)
	}
	var paths []string
	var used []int
	for e := max(1, epochs-max(average, 1)+1); e <= epochs; e++ {
		p := epochCkpt(epochDir, e)
		if _, err := os.Stat(p); errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("train: averaging the last %d epochs needs %s, which this training did not keep (--keep-epochs); train again into another --out", average, p)
		}
		paths = append(paths, p)
		used = append(used, e)
	}
	if len(used) == 1 {
		used = nil
	}
	info.AveragedEpochs = used
	return used, unet.AverageCheckpoints(paths, filepath.Join(out, "model.ckpt"), info)
}

// keptEpochs is how many of the latest epoch checkpoints stay on disk
// (0: all of them; see Config.KeepEpochs).
func (c Config) keptEpochs() int {
	if c.KeepEpochs == 0 {
		return 0
	}
	return max(c.KeepEpochs, c.Average, 1)
}

// dropEpochs removes the checkpoints of epochs 1..last−keep from dir (none
// when keep is 0). It runs after saveEpoch has written epoch last's
// checkpoint and the optimiser state naming it, so what resume reads is
// never among them.
func dropEpochs(dir string, last, keep int) error {
	if keep == 0 {
		return nil
	}
	for e := last - keep; e >= 1; e-- {
		err := os.Remove(epochCkpt(dir, e))
		if errors.Is(err, os.ErrNotExist) {
			break // earlier ones went with an earlier epoch
		}
		if err != nil {
			return fmt.Errorf("train: %w", err)
		}
	}
	return nil
}

func meanLoss(rows []logRow, epoch int) float64 {
	var s float64
	n := 0
	for _, r := range rows {
		if r.Epoch == epoch {
			s += r.Loss
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return s / float64(n)
}

func epochCkpt(dir string, epoch int) string {
	return filepath.Join(dir, fmt.Sprintf("epoch-%03d.ckpt", epoch))
}

// saveEpoch writes, in this order, the epoch's checkpoint, the optimiser state
// (which names the epoch: it is what resume trusts), model.ckpt and the log.
func saveEpoch(model *unet.Model, opt *adam, out, epochDir, adamPath string, info CheckpointInfo, rows []logRow) error {
	if err := model.Save(epochCkpt(epochDir, info.Epoch), info); err != nil {
		return err
	}
	if err := opt.save(adamPath, info); err != nil {
		return err
	}
	if err := model.Save(filepath.Join(out, "model.ckpt"), info); err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(out, "train_log.csv"), func(w io.Writer) error {
		cw := csv.NewWriter(w)
		_ = cw.Write([]string{"epoch", "step", "loss", "seconds"})
		for _, r := range rows {
			_ = cw.Write([]string{strconv.Itoa(r.Epoch), strconv.Itoa(r.Step),
				strconv.FormatFloat(r.Loss, 'g', -1, 64), strconv.FormatFloat(r.Seconds, 'f', 3, 64)})
		}
		cw.Flush()
		return cw.Error()
	})
}

// resume restores the state after the last complete epoch. ok is false when
// the folder holds no saved epoch (a fresh start).
func resume(model *unet.Model, opt *adam, epochDir, adamPath string, want Options) (info CheckpointInfo, ok bool, err error) {
	if _, err := os.Stat(adamPath); errors.Is(err, os.ErrNotExist) {
		return info, false, nil
	}
	if h, err := unet.ReadCheckpointHeader(filepath.Join(filepath.Dir(epochDir), "model.ckpt")); err == nil && !sameArch(h.Config, want.Model) {
		return info, false, fmt.Errorf("resume: %s holds a model of preset %v, but this run asks for %v; use the same --preset or another --out", filepath.Dir(epochDir), h.Config, want.Model)
	}
	extra, err := opt.load(adamPath)
	if err != nil {
		return info, false, err
	}
	if err := json.Unmarshal(extra, &info); err != nil {
		return info, false, fmt.Errorf("%s: %v", adamPath, err)
	}
	ck := epochCkpt(epochDir, info.Epoch)
	mextra, err := model.Load(ck)
	if err != nil {
		return info, false, fmt.Errorf("resume: %w", err)
	}
	var minfo CheckpointInfo
	if err := json.Unmarshal(mextra, &minfo); err != nil {
		return info, false, fmt.Errorf("%s: %v", ck, err)
	}
	if minfo.Epoch != info.Epoch || minfo.Step != info.Step {
		return info, false, fmt.Errorf("%s is epoch %d step %d, but %s is epoch %d step %d", ck, minfo.Epoch, minfo.Step, adamPath, info.Epoch, info.Step)
	}
	a, _ := json.Marshal(info.Options)
	b, _ := json.Marshal(want)
	if string(a) != string(b) {
		return info, false, fmt.Errorf("resume: %s was trained with %s, but this run asks for %s; use the same options or another --out", ck, a, b)
	}
	return info, true, nil
}

// readLog reads the rows of train_log.csv up to epoch (a missing file: none).
func readLog(path string, epoch int) ([]logRow, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	var rows []logRow
	for i, r := range recs {
		if i == 0 {
			continue
		}
		if len(r) != 4 {
			return nil, fmt.Errorf("%s:%d: want 4 fields", path, i+1)
		}
		e, err1 := strconv.Atoi(r[0])
		s, err2 := strconv.Atoi(r[1])
		l, err3 := strconv.ParseFloat(r[2], 64)
		t, err4 := strconv.ParseFloat(r[3], 64)
		if err := errors.Join(err1, err2, err3, err4); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, i+1, err)
		}
		// (the summary JSON takes the loss from here: it must be finite)
		if e < 0 || s < 0 || math.IsNaN(l) || math.IsInf(l, 0) || !(t >= 0) || math.IsInf(t, 0) {
			return nil, fmt.Errorf("%s:%d: epoch %s, step %s, loss %s, seconds %s: want counts ≥ 0 and finite numbers (seconds ≥ 0); the log is damaged: train again without --resume, or into another --out", path, i+1, r[0], r[1], r[2], r[3])
		}
		if e <= epoch {
			rows = append(rows, logRow{e, s, l, t})
		}
	}
	return rows, nil
}

type batchPlan struct {
	samples []*sample
	flip    []bool
}

// epochBatches orders the samples of epoch e (0-based) with a generator
// seeded by (seed, e) alone, draws a flip per sample, and groups consecutive
// samples of one size into batches of at most size n.
func epochBatches(samples []*sample, n int, seed int64, e int, flip bool) []batchPlan {
	rng := rand.New(rand.NewPCG(uint64(seed), uint64(e)))
	perm := rng.Perm(len(samples))
	type key struct{ w, h int }
	open := map[key]*batchPlan{}
	var order []key
	var out []batchPlan
	for _, i := range perm {
		s := samples[i]
		f := flip && rng.IntN(2) == 1
		k := key{s.W, s.H}
		b := open[k]
		if b == nil {
			b = &batchPlan{}
			open[k] = b
			order = append(order, k)
		}
		b.samples = append(b.samples, s)
		b.flip = append(b.flip, f)
		if len(b.samples) == n {
			out = append(out, *b)
			delete(open, k)
		}
	}
	for _, k := range order {
		if b := open[k]; b != nil {
			out = append(out, *b)
			delete(open, k)
		}
	}
	return out
}

// trainStep runs forward, the weighted loss (plus crf times crfLoss when
// crf > 0), backward and one Adam update.
func trainStep(model *unet.Model, opt *adam, b *batch, classes int, crf float64) (float64, error) {
	if err := opt.zeroGrad(); err != nil {
		return 0, err
	}
	var loss float64
	err := unet.Run(func(s *unet.Scope) error {
		// Grad mode is thread-local; see unet.New for why it may be off here.
		if _, err := ts.GradSetEnabled(true); err != nil {
			return fmt.Errorf("libtorch: %w", err)
		}
		x, y, w, err := batchTensors(s, b, model.Device)
		if err != nil {
			return err
		}
		var ws []*ts.Tensor
		if crf > 0 {
			if ws, err = crfWeights(s, x); err != nil {
				return err
			}
		}
		logits, err := model.Forward(s, x, true)
		if err != nil {
			return err
		}
		s.Free(x) // read only by the forward pass (its first convolution; the edge map and concatenation for 3 channels) and crfWeights; autograd keeps nothing of it
		l, err := weightedLoss(s, logits, y, w, b.SumW, classes)
		if err != nil {
			return err
		}
		if crf > 0 {
			r, err := crfLoss(s, logits, ws, classes)
			if err != nil {
				return err
			}
			l = s.T(l.Add(s.T(r.MulScalar(s.Float(crf), false)), false))
		}
		check(l.Backward())
		v, err := unet.Float32s(l)
		if err != nil {
			return err
		}
		loss = float64(v[0])
		return nil
	})
	if err != nil {
		return 0, err
	}
	return loss, opt.step()
}

func batchTensors(s *unet.Scope, b *batch, dev gotch.Device) (x, y, w *ts.Tensor, err error) {
	N, H, W := int64(b.N), int64(b.H), int64(b.W)
	if x, err = unet.Tensor(s, b.X, []int64{N, int64(b.C), H, W}, dev); err != nil {
		return
	}
	if y, err = unet.Tensor(s, b.Target, []int64{N, 1, H, W}, dev); err != nil {
		return
	}
	w, err = unet.Tensor(s, b.Weight, []int64{N, 1, H, W}, dev)
	return
}

func sameArch(a, b unet.Config) bool {
	a.Description, b.Description = "", ""
	return a == b
}

func deviceName(d gotch.Device) string {
	if d.IsCuda() {
		return "cuda"
	}
	return "cpu"
}

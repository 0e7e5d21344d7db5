package main

import (
	"slices"
	"strings"

	"github.com/densify/densify/pipeline"
	"github.com/densify/densify/train"
	"github.com/densify/densify/trainset"
	"github.com/spf13/pflag"
)

// bindCalibratedFlags binds the knobs of the calibrated training variants
// (confidence, prune, hard-right) to c.
func bindCalibratedFlags(fl *pflag.FlagSet, c *train.Config) {
	fl.Float64Var(&c.Temperature, "temperature", c.Temperature, "T of the calibrated uncertainty u_T = σ(−γ/T) of confidence (fitted by densify sparsify; 1 = UAI'21's u)")
	fl.Float64Var(&c.Prune, "prune", c.Prune, "fraction of the most uncertain trajectories whose labels prune drops")
	fl.Float64Var(&c.MinRight, "min-right", c.MinRight, "probability of a right label, under --error-model, that hard-right needs to weight a hard example")
	fl.StringVar(&c.ErrorModel, "error-model", "", "hard-right: error model P(wrong | γ, μ_A) (error_model.json of densify sparsify; default: the embedded one, fitted on the twenty DAVIS 2016 development sequences)")
}

// setHardOverrides: with --set folders, train's --factor and --phi replace
// the sets' own factor and φ (the hard examples are redrawn from the sets'
// per-pixel u and μ_A); a DATASET is prepared with them instead.
func setHardOverrides(fl *pflag.FlagSet, o *trainOptions) {
	if fl.Changed("factor") {
		o.Config.HardFactor = o.Upstream.opt.Prepare.Factor
	}
	if fl.Changed("phi") {
		phi := o.Upstream.opt.Prepare.Phi
		o.Config.HardPhi = &phi
	}
}

// variantsFlag binds a list of pipeline variants (pflag.Value).
type variantsFlag struct{ v *[]pipeline.Variant }

func (f variantsFlag) String() string {
	if f.v == nil {
		return ""
	}
	s := make([]string, len(*f.v))
	for i, v := range *f.v {
		s[i] = string(v)
	}
	return strings.Join(s, ",")
}

func (f variantsFlag) Set(s string) error {
	var out []pipeline.Variant
	for _, name := range strings.Split(s, ",") {
		v, err := pipeline.ParseVariant(strings.TrimSpace(name))
		if err != nil {
			return err
		}
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	*f.v = out
	return nil
}

func (f variantsFlag) Type() string { return "variants" }

// bindSelfTrainingFlags binds the self-training round of train to c: the
// masks folders (--pseudo), the selection of their confident pixels, their
// weight and the starting checkpoint (--init).
func bindSelfTrainingFlags(fl *pflag.FlagSet, c *train.Config) {
	fl.StringArrayVar(&c.Pseudo, "pseudo", nil, "self-training: a folder of masks with prob/ maps (densify predict --prob) for the frames of each --set, in order (repeatable)")
	bindPseudoFlags(fl, &c.PseudoOptions)
	fl.Float64Var(&c.PseudoWeight, "pseudo-weight", train.DefaultPseudoWeight, pseudoWeightUsage)
	fl.StringVar(&c.Init, "init", "", "start from this checkpoint's weights (a self-training round: the previous model.ckpt) instead of a random initialisation")
}

// bindPseudoFlags binds the selection of a round's pseudo-labels
// (--pseudo-confidence, --pseudo-band, --pseudo-keep-cut) to o, starting
// from trainset.DefaultPseudoOptions: train and the pipeline commands share
// them.
func bindPseudoFlags(fl *pflag.FlagSet, o *trainset.PseudoOptions) {
	*o = trainset.DefaultPseudoOptions()
	fl.Float64Var(&o.Confidence, "pseudo-confidence", o.Confidence, pseudoConfidenceUsage)
	fl.Float64Var(&o.Band, "pseudo-band", o.Band, pseudoBandUsage)
	fl.BoolVar(&o.KeepCut, "pseudo-keep-cut", o.KeepCut, pseudoKeepCutUsage)
}

const (
	pseudoConfidenceUsage = "self-training: a mask pixel is a label where its foreground probability is ≥ this (foreground) or ≤ 1 − this (background); 0: every mask pixel outside the band, whatever its probability"
	pseudoBandUsage       = "self-training: mask pixels within this many pixels of the mask's boundary stay unlabelled"
	pseudoKeepCutUsage    = "self-training: also a label where the refinement overruled the network (a mask pixel whose probability is on the other side of ½), so only the pixels both call unsure stay unlabelled"
	pseudoWeightUsage     = "self-training: each class's mask labels weigh, in all, this many times the sparse labels of that class"
)

// bindScheduleFlags binds the learning-rate schedule, the weight averaging
// and the kept epoch checkpoints of train to c.
func bindScheduleFlags(fl *pflag.FlagSet, c *train.Config) {
	fl.Var(scheduleFlag{&c.Schedule}, "schedule", scheduleUsage)
	fl.IntVar(&c.Average, "average", c.Average, averageUsage)
	fl.IntVar(&c.KeepEpochs, "keep-epochs", c.KeepEpochs, keepEpochsUsage)
	fl.Float64Var(&c.CRFWeight, "crf-weight", c.CRFWeight, crfWeightUsage)
}

const crfWeightUsage = "weight of the relaxed Potts (CRF) loss over every pixel, labelled or not, beside the labels' loss (Tang et al., ECCV 2018): the masks follow the colour edges where the labels leave them free (0 = off)"

const keepEpochsUsage = "keep only the checkpoints of the last K epochs in epochs/ (at least --average of them; about 4 MB each at the automatic scale): enough to resume a killed run (0 = every epoch, which per-epoch evaluation and a later --resume with a larger --average read)"

const averageUsage = "model.ckpt = the mean of the weights of the last K epochs (SWA, Izmailov et al., UAI 2018; 0 or 1 = the last weights); with --resume on a finished training it only rewrites model.ckpt"

const scheduleUsage = "learning rate over the steps: constant, or cosine (annealed from --lr to 0 over the budget; Loshchilov & Hutter, ICLR 2017)"

// scheduleFlag binds a train.Schedule (pflag.Value).
type scheduleFlag struct{ s *train.Schedule }

func (f scheduleFlag) String() string {
	if f.s == nil || *f.s == "" {
		return string(train.ScheduleConstant)
	}
	return string(*f.s)
}

func (f scheduleFlag) Set(v string) error {
	s, err := train.ParseSchedule(v)
	if err != nil {
		return err
	}
	*f.s = s
	return nil
}

func (f scheduleFlag) Type() string { return "schedule" }

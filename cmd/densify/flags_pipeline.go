package main

import (
	"strconv"

	"github.com/densify/densify/pipeline"
	"github.com/densify/densify/refine"
	"github.com/densify/densify/train"
	"github.com/densify/densify/trainset"
	"github.com/spf13/pflag"
)

// runInitUsage is the help of run's and ablate's --init.
const runInitUsage = "the weights every sequence's first training starts from: a network trained on other videos' prepared sets " +
	"(densify train --joint --set …), whose labels come from their segmentation, not from an annotation. " +
	"auto = the preset's embedded starting weights (unet-cpu: davis, trained on twenty DAVIS 2016 sequences), or a random initialisation for a preset without; " +
	"none = a random initialisation; a name = those embedded weights; else a checkpoint file of the preset. " +
	"The rounds start from the round before's model as always"

// runRoundsUsage is the help of run's and ablate's --rounds.
const runRoundsUsage = "self-training rounds after the first training: each trains from the round before's weights on the sparse labels plus the confident pixels of its refined masks, then predicts again " +
	"(when not given: 0 from starting weights, the default, and 1 from a random initialisation)"

// pipelineFlags binds the knobs of every stage (run, ablate; train DATASET
// binds the upstream ones).
type pipelineFlags struct {
	opt                    pipeline.Options
	out, tracks, flow      string
	model                  string
	graph                  graphFlags
	beta, threshold        float64
	noOverlay, quiet       bool
	sequences              []string
	shard                  string
	evalFrames, minCluster int
	backgroundSplit        float64
	stepBudget             int
	pseudo                 trainset.PseudoOptions
	cut                    refine.CutOptions // --refine graphcut's settings
	init                   string            // --init: auto, none, embedded starting weights' name or a checkpoint
	roundsSet              func() bool       // whether --rounds was given
}

func (p *pipelineFlags) bind(f *pflag.FlagSet) {
	p.bindUpstream(f)
	f.StringVar(&p.out, "out", "", "work folder (per-sequence outputs, report.md, report.json)")
	f.StringVar(&p.tracks, "tracks", "", "use this Tracks file instead of running the tracker (single sequence only)")
	t := &p.opt.Train
	f.StringVar(&t.Preset, "preset", t.Preset, "U-Net preset: unet-cpu or unet-paper")
	f.IntVar(&t.Epochs, "epochs", t.Epochs, epochsUsage)
	f.IntVar(&p.stepBudget, "step-budget", train.DefaultStepBudget, stepBudgetUsage)
	f.Float64Var(&t.LR, "lr", t.LR, "Adam learning rate")
	f.StringVar(&t.Schedule, "schedule", t.Schedule, scheduleUsage)
	f.IntVar(&t.Average, "average", t.Average, averageUsage)
	f.IntVar(&t.BatchSize, "batch", t.BatchSize, "frames per training step")
	f.Float64Var(&t.Scale, "scale", t.Scale, "input scale of the U-Net (0 = auto: on CPU frames brought to a longer side of 256 px (DAVIS: 0.3), larger while the labelled object measures under 48 px, at most ½; 1 on CUDA)")
	f.Int64Var(&t.Seed, "seed", t.Seed, "random seed (weights, data order, flips)")
	f.IntVar(&p.opt.Seeds, "seeds", 1, "models per variant, with seeds --seed, --seed+1, …")
	f.IntVar(&t.Threads, "threads", t.Threads, "libtorch intra-op threads (0 = all cores)")
	f.StringVar(&t.Device, "device", t.Device, "cpu, cuda or auto")
	f.BoolVar(&t.NoFlip, "no-flip", t.NoFlip, "no random horizontal flips")
	f.BoolVar(&t.ProbMaps, "prob", t.ProbMaps, "also write probability maps")
	f.BoolVar(&t.PriorShift, "prior-shift", false, "predict with the prior shift of class-balanced training undone (odds of the object divided by its mean class weight)")
	f.StringVar(&t.Refine, "refine", t.Refine, refineUsage)
	p.cut = refine.DefaultCutOptions()
	cutFlags(f, &p.cut)
	f.IntVar(&t.Temporal, "temporal", t.Temporal, temporalUsage)
	f.BoolVar(&t.ComposeFlows, "compose-flows", t.ComposeFlows, composeFlowsUsage)
	f.BoolVar(&t.Mirror, "mirror", t.Mirror, mirrorUsage)
	f.StringVar(&p.init, "init", initAuto, runInitUsage)
	f.IntVar(&t.Rounds, "rounds", t.Rounds, runRoundsUsage)
	f.Lookup("rounds").DefValue = strconv.Itoa(pipeline.DefaultRoundsFromStartingWeights) // with --init auto
	p.roundsSet = func() bool { return f.Changed("rounds") }
	bindPseudoFlags(f, &p.pseudo)
	f.Float64Var(&t.PseudoWeight, "pseudo-weight", train.DefaultPseudoWeight, pseudoWeightUsage)
	f.Float64Var(&t.CRFWeight, "crf-weight", t.CRFWeight, "in the first training, "+crfWeightUsage)
	f.Float64Var(&t.RoundCRFWeight, "round-crf-weight", t.RoundCRFWeight, "the weight of the relaxed Potts (CRF) loss in the self-training rounds (--crf-weight: the first training's)")
	f.BoolVar(&p.noOverlay, "no-overlay", false, "do not write per-frame overlay previews")
}

// bindUpstream binds the flags of the stages before training (dataset
// selection, track, segment, uncertainty, prepare, eval).
func (p *pipelineFlags) bindUpstream(f *pflag.FlagSet) {
	p.opt = pipeline.DefaultOptions()
	o := &p.opt
	f.StringVar(&o.Split, "split", "", "dataset split to use: Trainingset or Testset (FBMS59), train or val (DAVIS); default all")
	f.StringSliceVar(&p.sequences, "sequences", nil, "only these sequences (comma-separated names)")
	f.StringVar(&p.shard, "shard", "", "process part i of n of the selected sequences (sorted names, round robin): i/n with 0 ≤ i < n, "+
		"auto (a task of a Slurm job array: SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT) or auto/n (i = SLURM_ARRAY_TASK_ID of an array 0…n−1, "+
		"or JOB_COMPLETION_INDEX of a Kubernetes Indexed Job); "+
		"without it the environment is ignored")
	f.BoolVar(&o.Force, "force", false, "redo every stage even when its outputs are up to date")
	f.IntVar(&o.Tracker.Spacing, "spacing", o.Tracker.Spacing, "tracker grid spacing (px)")
	f.StringVar(&p.flow, "flow", o.Flow, "optical flow: farneback or dis")
	f.StringVar(&o.Segment.Solver, "solver", o.Segment.Solver, "multicut solver: gaec or klj")
	f.Float64Var(&p.beta, "beta", 0.5, "prior cut probability β of the edge costs (Kardoost & Keuper, UAI 2021, Eq. 9)")
	f.IntVar(&p.minCluster, "min-cluster", o.Segment.MinClusterSize, "merge clusters of fewer trajectories into their best neighbour (0 = off)")
	f.Float64Var(&p.backgroundSplit, "background-split", o.Segment.BackgroundSplit, "re-segment background clusters with costs lowered by this logit shift; parts the camera does not explain become clusters (0 = off)")
	f.StringVar(&p.model, "cost-model", "", "cost model JSON, or a folder of <sequence>.json, one per sequence (leave-one-sequence-out: each sequence segmented with the model fitted on the others, as scripts/sparse-eval.sh writes to WORK/folds) (default: the embedded model)")
	p.graph.bind(f)
	f.IntVar(&o.HeatmapEvery, "heatmap-every", o.HeatmapEvery, "heat map of every N-th frame (labelled frames when there is ground truth)")
	f.IntVar(&o.Sparsify.Seeds, "sparsify-seeds", o.Sparsify.Seeds, "random orderings averaged in the sparsification baseline")
	bindPrepareFlags(f, &o.Prepare, &o.PrimaryObjectAuto)
	f.Float64Var(&p.threshold, "threshold", 0.75, "F above which an assigned region counts as an extracted object")
	f.IntVar(&p.evalFrames, "eval-frames", 0, "evaluated length E (0 = frames of the tracks; masks: all)")
	f.BoolVar(&p.quiet, "quiet", false, "no per-stage lines on stderr")
}

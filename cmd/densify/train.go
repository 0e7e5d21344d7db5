package main

import (
	"fmt"
	"path/filepath"

	"github.com/densify/densify/pipeline"
	"github.com/densify/densify/train"
	"github.com/spf13/cobra"
)

type trainOptions struct {
	IO             *IOStreams
	Factory        *Factory
	Sets           []string
	Out            string
	Config         train.Config
	Edges, Uniform bool
	Upstream       pipelineFlags
}

const epochsUsage = "training epochs at most (fewer where --step-budget binds)"

const stepBudgetUsage = "at most this many optimisation steps per sequence, in whole epochs (at least one): about a minute and a half on 2 cores at the automatic scale however long the sequence, about four for a small object at ½ (0 = all --epochs)"

func NewCmdTrain(f *Factory) *cobra.Command {
	o := &trainOptions{IO: f.IO, Factory: f, Config: train.DefaultConfig()}
	cmd := &cobra.Command{
		Use:   "train [DATASET] [--set DIR ...] --out DIR",
		Short: "Train the densification U-Net on prepared sets, or directly on an FBMS59 / DAVIS 2016 folder",
		Long: `train fits the U-Net of Kardoost et al. (ACCV 2020) to the sparse labels of one or more
prepared training sets (densify prepare). The loss covers labelled pixels only: weighted
BCE with logits (binary sets) or weighted cross entropy (multi-label sets), normalised as
Σ w ℓ / Σ w, the weights composed by --variant from the set's base weights (class
balance) and hard-example mask: hard (× the set's factor at hard examples, the default;
--factor and --phi replace the set's factor and φ)
uniform (class balance only, the ablation baseline; also --uniform), confidence
(class balance × max(0, 1 − 2u_T): the calibrated uncertainty u_T = σ(−γ/T) as label
noise, T = --temperature), prune (the labels of the --prune most uncertain trajectories
dropped) or hard-right (the hard examples × the factor only where their label is right with
probability ≥ --min-right under --error-model, a logistic model on γ and the segment's μ_A).
Optimiser: Adam.

With several --set folders one model is trained per set in <out>/<set name> (ACCV'20),
or one model over all of them with --joint. Each model folder gets model.ckpt (last
complete epoch), epochs/epoch-NNN.ckpt (every epoch, or the last --keep-epochs), train_log.csv (epoch,step,loss,seconds) and
train.json. Ctrl-C or a kill stops between steps; --resume continues from the last
complete epoch and ends with exactly the weights of an uninterrupted run. The same
seed on CPU gives the same model.

A self-training round (densify run --rounds) adds the confident pixels of a prediction to
each set: --pseudo names, per --set, a folder that densify predict --prob wrote (see the
--pseudo-* flags); the set's own labels keep precedence. --init starts from a checkpoint's
weights (the previous round's model.ckpt) with a fresh optimiser.

DATASET (instead of --set) is an FBMS59 folder (Trainingset/<seq>, Testset/<seq>; pick
one with --split), a DAVIS 2016 folder (JPEGImages/480p, Annotations/480p), a folder of
sequences such as densify synth writes, or one sequence. The missing upstream steps
(track → segment → uncertainty → prepare) run first, in <out>/work/<seq> as densify run
lays them out, and are skipped when up to date; the flags of those steps are accepted
here too (see densify run --help). With --shard (see densify run --help) only that part of
the dataset's sequences is prepared and trained, one model per sequence in <out>/<seq>.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("edges") {
				o.Config.Edges = &o.Edges
			}
			if len(args) == 0 {
				setHardOverrides(cmd.Flags(), o)
			}
			return runTrain(o, args)
		},
	}
	cmd.Example = trainExample
	fl, c := cmd.Flags(), &o.Config
	fl.StringArrayVar(&o.Sets, "set", nil, "prepared training-set folder (repeatable)")
	fl.StringVar(&o.Out, "out", "", "output folder")
	fl.BoolVar(&o.Edges, "edges", true, "Sobel edge input channel (default: as the preset says)")
	fl.StringVar(&c.Preset, "preset", c.Preset, "U-Net preset in models/: unet-cpu or unet-paper")
	fl.IntVar(&c.Epochs, "epochs", c.Epochs, epochsUsage)
	fl.IntVar(&c.StepBudget, "step-budget", c.StepBudget, stepBudgetUsage)
	fl.Float64Var(&c.LR, "lr", c.LR, "Adam learning rate")
	bindScheduleFlags(fl, c)
	fl.IntVar(&c.Batch, "batch", c.Batch, "frames per optimisation step")
	fl.Float64Var(&c.Scale, "scale", c.Scale, "input scale (0 = auto: on CPU frames brought to a longer side of 256 px (DAVIS: 0.3), larger while the labelled object measures under 48 px, at most ½; 1 on CUDA); sparse labels are mapped, not resampled")
	fl.Var(variantFlag{&c.Variant}, "variant", "loss weighting: hard (hard examples × the set's factor), uniform (class balance only), confidence (class balance × (1 − 2u_T)), prune (most uncertain labels dropped) or hard-right (probably right hard examples × the factor)")
	bindCalibratedFlags(fl, c)
	fl.BoolVar(&o.Uniform, "uniform", false, "same as --variant uniform (the ablation baseline)")
	fl.BoolVar(&c.NoFlip, "no-flip", c.NoFlip, "no random horizontal flips")
	fl.Int64Var(&c.Seed, "seed", c.Seed, "random seed (weights, data order, flips)")
	fl.IntVar(&c.Threads, "threads", c.Threads, "libtorch CPU threads (0 = all cores)")
	fl.StringVar(&c.Device, "device", c.Device, "cpu, cuda or auto")
	fl.BoolVar(&c.Resume, "resume", c.Resume, "continue from the last complete epoch in --out")
	fl.BoolVar(&c.Joint, "joint", c.Joint, "one model over all --set folders instead of one per set")
	bindSelfTrainingFlags(fl, c)
	o.Upstream.bindUpstream(fl)
	return cmd
}

func runTrain(o *trainOptions, args []string) error {
	if o.Out == "" || (len(o.Sets) == 0) == (len(args) == 0) {
		return fmt.Errorf("train needs --out and either a DATASET folder or --set folders (not both)")
	}
	if o.Uniform {
		o.Config.Variant = train.VariantUniform
	}
	if len(args) == 1 {
		opt, err := o.Upstream.upstreamOptions(o.Factory, args[0])
		if err != nil {
			return err
		}
		if opt.Shard.Active() && o.Config.Joint {
			return fmt.Errorf("train: --joint trains one model over all sequences; it cannot be split into --shard parts")
		}
		// The sequences' work folders stay locked through training.
		prepared, seqs, locks, err := pipeline.PrepareDatasetLocked(args[0], filepath.Join(o.Out, "work"), opt)
		defer locks.Release()
		if err != nil {
			return err
		}
		fmt.Fprintf(o.IO.ErrOut, "train: %d prepared sequences from %s\n", len(seqs), args[0])
		o.Sets = prepared
		if opt.Shard.Active() {
			return trainShard(o)
		}
	}
	ctx, stop := signalContext()
	defer stop()
	s, err := train.Run(ctx, o.Config, o.Sets, o.Out, o.IO.ErrOut)
	if err != nil {
		return err
	}
	printTrained(o, s)
	return nil
}

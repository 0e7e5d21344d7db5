package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/densify/densify/pipeline"
	"github.com/densify/densify/train"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

var trainCmd = &cobra.Command{
	Use:   "train [DATASET] [--set DIR ...] --out DIR",
	Short: "Train the densification U-Net on prepared sets, or directly on an FBMS59 / DAVIS 2016 folder",
	Long: `train fits the U-Net of Kardoost et al. (ACCV 2020) to the sparse labels of one or more
prepared training sets (densify prepare). The loss covers labelled pixels only: weighted
BCE with logits (binary sets) or weighted cross entropy (multi-label sets), normalised as
Σ w ℓ / Σ w with the weights of the set (class balance × hard-example factor); --uniform
drops the hard-example factor (the ablation baseline). Optimiser: Adam.

With several --set folders one model is trained per set in <out>/<set name> (ACCV'20),
or one model over all of them with --joint. Each model folder gets model.ckpt (last
complete epoch), epochs/epoch-NNN.ckpt, train_log.csv (epoch,step,loss,seconds) and
train.json. Ctrl-C or a kill stops between steps; --resume continues from the last
complete epoch and ends with exactly the weights of an uninterrupted run. The same
seed on CPU gives the same model.

DATASET (instead of --set) is an FBMS59 folder (Trainingset/<seq>, Testset/<seq>; pick
one with --split), a DAVIS 2016 folder (JPEGImages/480p, Annotations/480p), a folder of
sequences such as densify synth writes, or one sequence. The missing upstream steps
(track → segment → uncertainty → prepare) run first, in <out>/work/<seq> as densify run
lays them out, and are skipped when up to date; the flags of those steps are accepted
here too (see densify run --help).`,
	Args: cobra.MaximumNArgs(1),
	RunE: func(cmd *cobra.Command, args []string) error {
		f := cmd.Flags()
		sets, _ := f.GetStringArray("set")
		out, _ := f.GetString("out")
		if out == "" || (len(sets) == 0) == (len(args) == 0) {
			return fmt.Errorf("train needs --out and either a DATASET folder or --set folders (not both)")
		}
		if len(args) == 1 {
			opt, err := trainUpstream.upstreamOptions(args[0])
			if err != nil {
				return err
			}
			prepared, seqs, err := pipeline.PrepareDataset(args[0], filepath.Join(out, "work"), opt)
			if err != nil {
				return err
			}
			fmt.Fprintf(os.Stderr, "train: %d prepared sequences from %s\n", len(seqs), args[0])
			sets = prepared
		}
		cfg := trainConfig
		if u, _ := f.GetBool("uniform"); u {
			cfg.Variant = train.VariantUniform
		}
		if f.Changed("edges") {
			e, _ := f.GetBool("edges")
			cfg.Edges = &e
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		s, err := train.Run(ctx, cfg, sets, out, os.Stderr)
		if err != nil {
			return err
		}
		for _, m := range append([]*train.Summary{s}, s.Models...) {
			if m.Checkpoint == "" {
				continue
			}
			fmt.Printf("%s: %d epochs, %d steps, final loss %.4f, %.1f s, %d parameters → %s\n",
				m.Out, m.Epochs, m.Steps, m.FinalLoss, m.Seconds, m.Params, m.Checkpoint)
		}
		return nil
	},
}

var (
	trainConfig   = train.DefaultConfig()
	trainUpstream pipelineFlags
)

// addTrainFlags binds the training options to f (shared with commands that train).
func addTrainFlags(f *pflag.FlagSet, c *train.Config) {
	f.StringVar(&c.Preset, "preset", c.Preset, "U-Net preset in models/: unet-cpu or unet-paper")
	f.IntVar(&c.Epochs, "epochs", c.Epochs, "training epochs")
	f.Float64Var(&c.LR, "lr", c.LR, "Adam learning rate")
	f.IntVar(&c.Batch, "batch", c.Batch, "frames per optimisation step")
	f.Float64Var(&c.Scale, "scale", c.Scale, "input scale (0 = auto: 0.5 on CPU, 1 on CUDA); sparse labels are mapped, not resampled")
	f.Var(variantFlag{&c.Variant}, "variant", "loss weighting: hard (hard examples × the set's factor) or uniform (class balance only; ablation baseline)")
	f.BoolVar(&c.NoFlip, "no-flip", c.NoFlip, "no random horizontal flips")
	f.Int64Var(&c.Seed, "seed", c.Seed, "random seed (weights, data order, flips)")
	f.IntVar(&c.Threads, "threads", c.Threads, "libtorch CPU threads (0 = all cores)")
	f.StringVar(&c.Device, "device", c.Device, "cpu, cuda or auto")
	f.BoolVar(&c.Resume, "resume", c.Resume, "continue from the last complete epoch in --out")
	f.BoolVar(&c.Joint, "joint", c.Joint, "one model over all --set folders instead of one per set")
}

func init() {
	f := trainCmd.Flags()
	f.StringArray("set", nil, "prepared training-set folder (repeatable)")
	f.String("out", "", "output folder")
	f.Bool("edges", true, "Sobel edge input channel (default: as the preset says)")
	f.Bool("uniform", false, "same as --variant uniform")
	addTrainFlags(f, &trainConfig)
	trainUpstream.bindUpstream(trainCmd)
	rootCmd.AddCommand(trainCmd)
}

// variantFlag binds a train.Variant (pflag.Value).
type variantFlag struct{ v *train.Variant }

func (f variantFlag) String() string {
	if f.v == nil {
		return ""
	}
	return string(*f.v)
}
func (f variantFlag) Set(s string) (err error) { *f.v, err = train.ParseVariant(s); return err }
func (f variantFlag) Type() string             { return "variant" }

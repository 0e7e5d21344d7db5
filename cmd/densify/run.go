package main

import (
	"slices"

	"github.com/densify/densify/pipeline"
	"github.com/spf13/cobra"
)

type runOptions struct {
	IO      *IOStreams
	Factory *Factory
	Flags   pipelineFlags
	Uniform bool
	Variant []pipeline.Variant
	Oracle  bool
}

func NewCmdRun(f *Factory) *cobra.Command {
	o := &runOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:   "run <sequence folder | dataset root> --out WORK",
		Short: "The whole chain: track → segment → uncertainty → prepare → train → predict → eval, with a report",
		Long: `run takes one sequence (a folder of frames, FBMS layout with optional GroundTruth/) or a dataset
root (FBMS59 with Trainingset/Testset, DAVIS 2016 with JPEGImages/480p and Annotations/480p, or a
folder of sequences such as densify synth writes) and runs, per sequence, in WORK/<seq>:

  track        tracks.dat
  segment      segment/{graph.txt,labels.txt,<seq>Tracks<N>.dat,segment.json}
  uncertainty  uncertainty/{uncertainty.csv,clusters.csv,heatmaps/,sparsify/}
  eval-sparse  eval/sparse.json                       (with ground truth)
  prepare      prepared/ (training set: labels, weights, manifest)
  train        model-uniform/ (model-<variant>/ for each --variant)
  predict      masks-uniform/ and preview-uniform.png
  eval-dense   eval/dense-uniform.json                (with ground truth)

then writes WORK/report.md and WORK/report.json (sparse P/R/F, trajectories, dense P/R/F/IoU,
timings, links to the sparsification plot, heat maps and mask previews).

Each stage is skipped when its outputs exist, its parameters are unchanged and no input is newer
(WORK/<seq>/.stamps/<stage>.json), so an interrupted run resumes where it stopped (a killed
training continues from its last epoch); --force redoes everything.`,
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error { return runRun(o, args[0]) },
	}
	cmd.Example = runExample
	o.Flags.bind(cmd.Flags())
	o.Variant = []pipeline.Variant{pipeline.DefaultVariant}
	cmd.Flags().Var(variantsFlag{&o.Variant}, "variant", "training variant(s): weighted (hard examples), uniform, confidence (1 − 2u_T), prune (most uncertain labels dropped), hard-right (probably right hard examples), oracle (ground-truth labels)")
	cmd.Flags().BoolVar(&o.Uniform, "uniform", false, "same as --variant uniform (the default)")
	cmd.Flags().BoolVar(&o.Oracle, "oracle", false, "also train on ground-truth labels of the same trajectories (sequences with ground truth)")
	return cmd
}

func runRun(o *runOptions, root string) error {
	opt, err := o.Flags.options(o.Factory, root)
	if err != nil {
		return err
	}
	vs := o.Variant
	if o.Uniform {
		vs = []pipeline.Variant{pipeline.VariantUniform}
	}
	if o.Oracle && !slices.Contains(vs, pipeline.VariantOracle) {
		vs = append(vs, pipeline.VariantOracle)
	}
	ctx, stop := signalContext()
	defer stop()
	rep, err := pipeline.Run(ctx, root, o.Flags.out, opt, vs...)
	if rep != nil {
		rep.WriteSummary(o.IO.Out)
	}
	return err
}

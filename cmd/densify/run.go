package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/densify/densify/motiongraph"
	"github.com/densify/densify/pipeline"
	"github.com/densify/densify/video"
	"github.com/spf13/cobra"
)

// pipelineFlags binds the knobs of every stage (shared by run and ablate).
type pipelineFlags struct {
	opt                    pipeline.Options
	out, tracks, flow      string
	model                  string
	graph                  costsGraphFlags
	beta, threshold        float64
	noOverlay, quiet       bool
	sequences              []string
	evalFrames, minCluster int
}

func (p *pipelineFlags) bind(cmd *cobra.Command) {
	p.bindUpstream(cmd)
	f := cmd.Flags()
	f.StringVar(&p.out, "out", "", "work folder (per-sequence outputs, report.md, report.json)")
	f.StringVar(&p.tracks, "tracks", "", "use this Tracks file instead of running the tracker (single sequence only)")
	// train / predict
	t := &p.opt.Train
	f.StringVar(&t.Preset, "preset", t.Preset, "U-Net preset: unet-cpu or unet-paper")
	f.IntVar(&t.Epochs, "epochs", t.Epochs, "training epochs")
	f.Float64Var(&t.LR, "lr", t.LR, "Adam learning rate")
	f.IntVar(&t.BatchSize, "batch", t.BatchSize, "frames per training step")
	f.Float64Var(&t.Scale, "scale", t.Scale, "input scale of the U-Net (0 = auto: 0.5 on CPU, 1 on CUDA)")
	f.Int64Var(&t.Seed, "seed", t.Seed, "random seed (weights, data order, flips)")
	f.IntVar(&t.Threads, "threads", t.Threads, "libtorch intra-op threads (0 = all cores)")
	f.StringVar(&t.Device, "device", t.Device, "cpu, cuda or auto")
	f.BoolVar(&t.NoFlip, "no-flip", t.NoFlip, "no random horizontal flips")
	f.BoolVar(&t.ProbMaps, "prob", t.ProbMaps, "also write probability maps")
	f.BoolVar(&p.noOverlay, "no-overlay", false, "do not write per-frame overlay previews")
}

// bindUpstream binds the flags of the stages before training (dataset
// selection, track, segment, uncertainty, prepare, eval); densify train uses
// it for dataset folders next to its own training flags.
func (p *pipelineFlags) bindUpstream(cmd *cobra.Command) {
	p.opt = pipeline.DefaultOptions()
	o := &p.opt
	f := cmd.Flags()
	f.StringVar(&o.Split, "split", "", "dataset split to use: Trainingset or Testset (FBMS59), train or val (DAVIS); default all")
	f.StringSliceVar(&p.sequences, "sequences", nil, "only these sequences (comma-separated names)")
	f.BoolVar(&o.Force, "force", false, "redo every stage even when its outputs are up to date")
	// track
	f.IntVar(&o.Tracker.Spacing, "spacing", o.Tracker.Spacing, "tracker grid spacing (px)")
	f.StringVar(&p.flow, "flow", string(o.Flow), "optical flow: farneback or dis")
	// segment
	f.StringVar(&o.Segment.Solver, "solver", o.Segment.Solver, "multicut solver: gaec or klj")
	f.Float64Var(&p.beta, "beta", 0.5, "prior cut probability β of the edge costs (seed Eq. 9)")
	f.IntVar(&p.minCluster, "min-cluster", o.Segment.MinClusterSize, "merge clusters of fewer trajectories into their best neighbour (0 = off)")
	f.StringVar(&p.model, "cost-model", "", "cost model JSON (default: the embedded model)")
	addCostsGraphFlags(cmd, &p.graph)
	// uncertainty
	f.IntVar(&o.HeatmapEvery, "heatmap-every", o.HeatmapEvery, "heat map of every N-th frame (labelled frames when there is ground truth)")
	f.IntVar(&o.Sparsify.Seeds, "sparsify-seeds", o.Sparsify.Seeds, "random orderings averaged in the sparsification baseline")
	// prepare
	addPrepareFlags(f, &o.Prepare)
	// eval
	f.Float64Var(&p.threshold, "threshold", 0.75, "F above which an assigned region counts as an extracted object")
	f.IntVar(&p.evalFrames, "eval-frames", 0, "evaluated length E (0 = frames of the tracks; masks: all)")
	f.BoolVar(&p.quiet, "quiet", false, "no per-stage lines on stderr")
}

// options validates the flags and returns the pipeline options.
func (p *pipelineFlags) options(root string) (pipeline.Options, error) {
	if p.out == "" {
		return p.opt, errors.New("--out is required")
	}
	o, err := p.upstreamOptions(root)
	o.Train.Overlays = !p.noOverlay
	return o, err
}

// upstreamOptions validates the flags bound by bindUpstream (and --tracks).
func (p *pipelineFlags) upstreamOptions(root string) (pipeline.Options, error) {
	o := p.opt
	m, err := video.ParseMethod(p.flow)
	if err != nil {
		return o, err
	}
	o.Flow, o.FlowTracker = string(m), video.Tracker{}
	o.Densifier = unetDensifier{}
	if err := o.Tracker.Validate(); err != nil {
		return o, err
	}
	if err := motiongraph.CheckBeta(p.beta); err != nil {
		return o, err
	}
	o.Segment.Graph = p.graph.params(p.beta)
	o.Segment.MinClusterSize = p.minCluster
	if p.model != "" {
		if o.Segment.Model, err = motiongraph.LoadCostModel(p.model); err != nil {
			return o, err
		}
	}
	o.Sparsify.Beta = p.beta
	if !(p.threshold > 0 && p.threshold < 1) {
		return o, fmt.Errorf("--threshold %g must lie in (0,1)", p.threshold)
	}
	o.Eval.Threshold, o.Eval.EvalFrames = p.threshold, p.evalFrames
	o.Sequences = p.sequences
	if p.quiet {
		o.Log = io.Discard
	}
	if p.tracks != "" {
		seqs, err := pipeline.SelectSequences(root, o)
		if err != nil {
			return o, err
		}
		if len(seqs) != 1 {
			return o, fmt.Errorf("--tracks gives the trajectories of one sequence, but %s has %d", root, len(seqs))
		}
		if _, err := os.Stat(p.tracks); err != nil {
			return o, err
		}
		tr := p.tracks
		o.TracksFor = func(string) string { return tr }
	}
	return o, nil
}

func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

var runFlags pipelineFlags
var runUniform bool

var runCmd = &cobra.Command{
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
  train        model-weighted/ (model-uniform/ with --uniform)
  predict      masks-weighted/ and preview-weighted.png
  eval-dense   eval/dense-weighted.json               (with ground truth)

then writes WORK/report.md and WORK/report.json (sparse P/R/F, trajectories, dense P/R/F/IoU,
timings, links to the sparsification plot, heat maps and mask previews).

Each stage is skipped when its outputs exist, its parameters are unchanged and no input is newer
(WORK/<seq>/.stamps/<stage>.json), so an interrupted run resumes where it stopped (a killed
training continues from its last epoch); --force redoes everything.`,
	Args: cobra.ExactArgs(1),
	RunE: func(cmd *cobra.Command, args []string) error {
		opt, err := runFlags.options(args[0])
		if err != nil {
			return err
		}
		v := pipeline.VariantWeighted
		if runUniform {
			v = pipeline.VariantUniform
		}
		ctx, stop := signalContext()
		defer stop()
		rep, err := pipeline.Run(ctx, args[0], runFlags.out, opt, v)
		if rep != nil {
			printRunSummary(cmd.OutOrStdout(), rep)
		}
		return err
	},
}

func printRunSummary(w io.Writer, rep *pipeline.Report) {
	p := func(s *pipeline.Scores, f func(*pipeline.Scores) float64) string {
		if s == nil {
			return "     –"
		}
		return fmt.Sprintf("%6.2f", 100*f(s))
	}
	P := func(s *pipeline.Scores) float64 { return s.Precision }
	R := func(s *pipeline.Scores) float64 { return s.Recall }
	F := func(s *pipeline.Scores) float64 { return s.F }
	I := func(s *pipeline.Scores) float64 { return s.IoU }
	fmt.Fprintf(w, "%-20s %7s %8s %6s", "sequence", "tracks", "clusters", "sp.F")
	for _, v := range rep.Variants {
		fmt.Fprintf(w, " | %-8s %6s %6s %6s %6s", v, "P", "R", "F", "IoU")
	}
	fmt.Fprintf(w, " | %7s\n", "time(s)")
	for _, s := range rep.Sequences {
		name := s.Name
		if s.Error != "" {
			name += " FAILED"
		}
		fmt.Fprintf(w, "%-20s %7d %8d %6s", name, s.Trajectories, s.Clusters, p(s.Sparse, F))
		for _, v := range rep.Variants {
			var sc *pipeline.Scores
			if d := s.Dense[v]; d != nil {
				sc = d.Scores
			}
			fmt.Fprintf(w, " | %-8s %6s %6s %6s %6s", "", p(sc, P), p(sc, R), p(sc, F), p(sc, I))
		}
		fmt.Fprintf(w, " | %7.1f\n", s.Seconds())
	}
	if len(rep.Sequences) > 1 {
		var sp *pipeline.Scores
		if rep.Sparse != nil {
			sp = &pipeline.Scores{F: rep.Sparse.F}
		}
		fmt.Fprintf(w, "%-20s %7s %8s %6s", "mean", "", "", p(sp, F))
		for _, v := range rep.Variants {
			var sc *pipeline.Scores
			if m := rep.Dense[v]; m != nil {
				sc = &pipeline.Scores{Precision: m.Precision, Recall: m.Recall, F: m.F, IoU: m.IoU}
			}
			fmt.Fprintf(w, " | %-8s %6s %6s %6s %6s", "", p(sc, P), p(sc, R), p(sc, F), p(sc, I))
		}
		fmt.Fprintln(w, " |")
	}
	fmt.Fprintf(w, "report: %s/report.md (%.1fs)\n", rep.Work, rep.Seconds)
}

func init() {
	runFlags.bind(runCmd)
	runCmd.Flags().BoolVar(&runUniform, "uniform", false, "train without the uncertainty weights (the ablation baseline)")
	rootCmd.AddCommand(runCmd)
}

package main

import (
	"fmt"

	"github.com/densify/densify/boundary"
	"github.com/densify/densify/decompose"
	"github.com/spf13/cobra"
)

type decomposeOptions struct {
	IO                       *IOStreams
	Image, GT, Images, GTDir string
	Out, Model               string
	Limit, Workers           int
	Graph                    bool
	Opt                      decompose.Options
}

func NewCmdDecompose(f *Factory) *cobra.Command {
	o := &decomposeOptions{IO: f.IO, Opt: decompose.DefaultOptions()}
	o.Opt.Sparsify.Stride = 2
	cmd := &cobra.Command{
		Use:   "decompose (--image IMG [--gt GT.mat] | --images DIR [--gt-dir DIR]) --out DIR",
		Short: "Image decomposition: lifted multicut on pixels, per-pixel uncertainty, BSDS-500 sparsification (UAI'21 Sec. 4.4)",
		Long: `decompose computes a boundary probability map (logistic model on multi-scale gradients,
fitted on BSDS-500 train; --model for another), builds the pixel graph (E: 4 or 8 neighbours;
F: --lifted offsets per pixel up to --radius), takes a pair's cut probability as the largest
boundary probability on the line between the pixels, costs c = logit(1−p) + log((1−β)/β),
solves with GAEC then KLj and computes u = σ(−γ) per pixel. --image writes labels.png,
boundary.png, uncertainty.png/.npy, labels.npy and boundary.npy (the segments and the boundary
map, from which decompose.Load recomputes the measures without solving again), removal.png,
summary.json (and graph.txt with --graph);
--gt adds region scores (VI, PRI, covering), sparsify.csv, vi.png, ri.png and vi_auc per
ordering. A split (--images, --gt-dir) writes one folder per image plus curves, plots and
summary.md; it resumes.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return runDecompose(o) },
	}
	cmd.Example = decomposeExample
	fl, g := cmd.Flags(), &o.Opt.Graph
	for _, s := range []struct {
		p          *string
		name, help string
	}{{&o.Image, "image", "one image (JPEG or PNG)"}, {&o.GT, "gt", "BSDS ground truth .mat of --image"},
		{&o.Images, "images", "a split folder of images"}, {&o.GTDir, "gt-dir", "ground-truth folder of --images (<id>.mat)"},
		{&o.Out, "out", "output folder"}, {&o.Model, "model", "boundary model JSON (default: the embedded one)"}} {
		fl.StringVar(s.p, s.name, "", s.help)
	}
	fl.IntVar(&o.Limit, "limit", 0, "split: first N images only (0 = all)")
	fl.IntVar(&o.Workers, "workers", 1, "split: images decomposed at the same time, each on one core with its own memory (~0.5 GiB for 481×321); the results do not depend on it")
	fl.BoolVar(&o.Graph, "graph", false, "also write graph.txt")
	fl.IntVar(&g.Neighbours, "neighbours", g.Neighbours, "regular edges: 4 or 8 neighbours")
	fl.IntVar(&g.Lifted, "lifted", g.Lifted, "lifted offsets per pixel")
	fl.Float64Var(&g.Radius, "radius", g.Radius, "largest lifted edge length τ (pixels)")
	fl.Float64Var(&g.Beta, "beta", g.Beta, "cut prior β (Kardoost & Keuper, UAI 2021, Eq. 9)")
	fl.IntVar(&g.MinSize, "min-size", g.MinSize, "absorb segments of fewer pixels (0: the solver's result)")
	fl.IntVar(&o.Opt.KLjFullSweep, "full-sweep", o.Opt.KLjFullSweep, "KLj's second phase: pairs of segments with at most this many pixels together run their sequence to the end, as do every split and every pair of two segments of at least 200 pixels each (-1: no second phase, faster and worse; see densify multicut)")
	fl.IntVar(&o.Opt.KLjGroupMoves, "group-moves", o.Opt.KLjGroupMoves, "KLj's connected group moves of at most this many pixels (-1: none; see densify multicut)")
	fl.BoolVar(&o.Opt.KLjMultilevel, "multilevel", o.Opt.KLjMultilevel, "KLj's multilevel refinement after the node-level search (off by default for pixel graphs: 2–3× KLj's time; see densify multicut --levels)")
	fl.StringVar(&o.Opt.GammaCosts, "gamma-costs", o.Opt.GammaCosts, "edge weights of the uncertainty γ: logit (β-free: UAI'21's normalised product of edge probabilities) or prior (the solver's costs)")
	fl.IntVar(&o.Opt.Sparsify.Stride, "stride", o.Opt.Sparsify.Stride, "sparsification ranks every stride-th pixel in x and y")
	cmd.AddCommand(newCmdDecomposeFit(f))
	return cmd
}

func runDecompose(o *decomposeOptions) error {
	if err := o.Opt.Graph.Validate(); err != nil {
		return err
	}
	if _, err := decompose.GammaCostsOf(o.Opt.GammaCosts); err != nil {
		return err
	}
	if err := refuseZeroCounts("decompose", []countFlag{{"full-sweep", o.Opt.KLjFullSweep}, {"group-moves", o.Opt.KLjGroupMoves}}); err != nil {
		return err
	}
	if o.Model != "" {
		m, err := boundary.Load(o.Model)
		if err != nil {
			return err
		}
		o.Opt.Model = m
	}
	w := o.IO.Out
	switch {
	case o.Out == "" || (o.Image == "") == (o.Images == ""):
		return fmt.Errorf("decompose needs --out and one of --image, --images")
	case o.Image != "":
		s, err := decompose.RunImage(decompose.ImageOptions{Image: o.Image, GT: o.GT, Out: o.Out, WriteGraph: o.Graph, Options: o.Opt})
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%s: %d×%d, %d segments, %d regular + %d lifted edges, energy %.1f (GAEC %.1f), %.1f s\n",
			s.Image, s.Width, s.Height, s.Segments, s.Regular, s.Lifted, s.Energy, s.EnergyGAEC, s.Timing.Total)
		if ev := s.Evaluation; ev != nil {
			fmt.Fprintf(w, "VI %.3f  PRI %.3f  covering %.3f  (%d annotators)\nVI-AUC  proposed %.4f  likelihood %.4f  random %.4f  proposed-layered %.4f  proposed-segment %.4f  oracle %.4f\n",
				ev.Regions.VI, ev.Regions.PRI, ev.Regions.Covering, ev.Annotators, ev.VIAUC["proposed"], ev.VIAUC["likelihood"], ev.VIAUC["random"],
				ev.VIAUC["proposed-layered"], ev.VIAUC["proposed-segment"], ev.VIAUC[decompose.Oracle])
		}
		fmt.Fprintf(w, "outputs → %s\n", o.Out)
		return nil
	}
	s, err := decompose.RunDataset(decompose.DatasetOptions{Images: o.Images, GTDir: o.GTDir, Out: o.Out, Limit: o.Limit, Workers: o.Workers, Log: o.IO.ErrOut, Options: o.Opt})
	if err != nil {
		return err
	}
	fmt.Fprint(w, decompose.Markdown(s))
	return nil
}

func newCmdDecomposeFit(f *Factory) *cobra.Command {
	o := boundary.RefitOptions{}
	o.Fit.PerImage, o.Fit.Lambda, o.Tolerance = 3000, 1, 4
	cmd := &cobra.Command{
		Use:   "fit --train-images DIR --train-gt DIR [--val-images DIR --val-gt DIR] --out MODEL.json",
		Short: "Refit the boundary model of decompose on a BSDS split (the embedded default was made this way)",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if o.TrainImages == "" || o.TrainGT == "" || o.Out == "" {
				return fmt.Errorf("fit needs --train-images, --train-gt and --out")
			}
			o.Fit.Progress = func(done, total int, id string) { fmt.Fprintf(f.IO.ErrOut, "fit: %d/%d %s\n", done, total, id) }
			rep, err := boundary.Refit(o)
			if err != nil {
				return err
			}
			fmt.Fprintf(f.IO.Out, "fitted on %d images (%d pixels) → %s\n", rep.Train, rep.Model.Samples, o.Out)
			if b := rep.Best; rep.Val > 0 {
				fmt.Fprintf(f.IO.Out, "val (%d images, tolerance %g px): best F %.3f (P %.3f, R %.3f) at threshold %.2f\n", rep.Val, rep.Tolerance, b.F, b.P, b.R, b.Threshold)
			}
			return nil
		},
	}
	cmd.Example = decomposeFitExample
	fl := cmd.Flags()
	for _, s := range []struct {
		p    *string
		name string
	}{{&o.TrainImages, "train-images"}, {&o.TrainGT, "train-gt"}, {&o.ValImages, "val-images"}, {&o.ValGT, "val-gt"}, {&o.Out, "out"}} {
		fl.StringVar(s.p, s.name, "", s.name+" folder (out: model JSON file)")
	}
	fl.Float64Var(&o.Tolerance, "tolerance", o.Tolerance, "boundary matching tolerance on val (pixels)")
	fl.IntVar(&o.Fit.PerImage, "per-image", o.Fit.PerImage, "pixels sampled per train image")
	fl.BoolVar(&o.Fit.Linear, "linear", false, "fit the linear logistic model instead of the quadratic one (products of the features)")
	fl.Float64Var(&o.Fit.Lambda, "lambda", o.Fit.Lambda, "L2 penalty")
	return cmd
}

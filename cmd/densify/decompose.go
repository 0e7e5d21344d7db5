package main

import (
	"fmt"
	"os"

	"github.com/densify/densify/boundary"
	"github.com/densify/densify/decompose"
	"github.com/spf13/cobra"
)

var decomposeCmd = &cobra.Command{
	Use:   "decompose (--image IMG [--gt GT.mat] | --images DIR [--gt-dir DIR]) --out DIR",
	Short: "Image decomposition: lifted multicut on pixels, per-pixel uncertainty, BSDS-500 sparsification (UAI'21 Sec. 4.4)",
	Long: `decompose computes a boundary probability map (logistic model on multi-scale
brightness/colour/texture gradients, fitted on BSDS-500 train; --model to use
another), builds the pixel graph (E: 4- or 8-neighbours; F: --lifted offsets per
pixel up to --radius), takes the cut probability of a pair as the largest boundary
probability on the straight line between the pixels, costs c = logit(1−p) +
log((1−β)/β), solves with GAEC then KLj, absorbs segments below --min-size (default 0:
the solver's labelling, as the seed) and
computes u = σ(−γ) per pixel.

One image (--image) writes labels.png, boundary.png, uncertainty.png/.npy,
removal.png (what each ordering removes first), summary.json and, with --graph,
graph.txt. With --gt (BSDS .mat) it adds region scores (VI, PRI, covering
against every annotator), sparsify.csv, vi.png, ri.png and vi_auc per ordering
(proposed, likelihood, random) in summary.json.

A split (--images DIR, --gt-dir DIR) writes one folder per image and images.csv,
curves.csv, vi.png, ri.png, summary.json, summary.md; it resumes.`,
	Args: cobra.NoArgs,
	RunE: func(cmd *cobra.Command, _ []string) error {
		f := cmd.Flags()
		str := func(n string) string { s, _ := f.GetString(n); return s }
		opt := decompose.DefaultOptions()
		opt.Graph.Neighbours, _ = f.GetInt("neighbours")
		opt.Graph.Lifted, _ = f.GetInt("lifted")
		opt.Graph.Radius, _ = f.GetFloat64("radius")
		opt.Graph.Beta, _ = f.GetFloat64("beta")
		opt.Graph.MinSize, _ = f.GetInt("min-size")
		opt.Sparsify.Stride, _ = f.GetInt("stride")
		if err := opt.Graph.Validate(); err != nil {
			return err
		}
		if p := str("model"); p != "" {
			m, err := boundary.Load(p)
			if err != nil {
				return err
			}
			opt.Model = m
		}
		out := str("out")
		switch {
		case out == "":
			return fmt.Errorf("decompose needs --out")
		case str("image") != "" && str("images") != "":
			return fmt.Errorf("give --image or --images, not both")
		case str("image") != "":
			wg, _ := f.GetBool("graph")
			s, err := decompose.RunImage(decompose.ImageOptions{Image: str("image"), GT: str("gt"), Out: out, WriteGraph: wg, Options: opt})
			if err != nil {
				return err
			}
			fmt.Printf("%s: %d×%d, %d segments, %d regular + %d lifted edges, energy %.1f (GAEC %.1f), %.1f s\n",
				s.Image, s.Width, s.Height, s.Segments, s.Regular, s.Lifted, s.Energy, s.EnergyGAEC, s.Timing.Total)
			if ev := s.Evaluation; ev != nil {
				fmt.Printf("VI %.3f  PRI %.3f  covering %.3f  (%d annotators)\n", ev.Regions.VI, ev.Regions.PRI, ev.Regions.Covering, ev.Annotators)
				fmt.Printf("VI-AUC  proposed %.4f  likelihood %.4f  random %.4f\n", ev.VIAUC["proposed"], ev.VIAUC["likelihood"], ev.VIAUC["random"])
			}
			fmt.Printf("outputs → %s\n", out)
		case str("images") != "":
			limit, _ := f.GetInt("limit")
			s, err := decompose.RunDataset(decompose.DatasetOptions{Images: str("images"), GTDir: str("gt-dir"), Out: out, Limit: limit, Log: os.Stderr, Options: opt})
			if err != nil {
				return err
			}
			fmt.Print(decompose.Markdown(s))
		default:
			return fmt.Errorf("decompose needs --image or --images")
		}
		return nil
	},
}

var decomposeFitCmd = &cobra.Command{
	Use:   "fit --train-images DIR --train-gt DIR [--val-images DIR --val-gt DIR] --out MODEL.json",
	Short: "Refit the boundary model of decompose on a BSDS split (the embedded default was made this way)",
	Args:  cobra.NoArgs,
	RunE: func(cmd *cobra.Command, _ []string) error {
		f := cmd.Flags()
		str := func(n string) string { s, _ := f.GetString(n); return s }
		o := boundary.RefitOptions{TrainImages: str("train-images"), TrainGT: str("train-gt"), ValImages: str("val-images"), ValGT: str("val-gt"), Out: str("out")}
		o.Tolerance, _ = f.GetFloat64("tolerance")
		o.Fit.PerImage, _ = f.GetInt("per-image")
		o.Fit.Lambda, _ = f.GetFloat64("lambda")
		o.Fit.Progress = func(done, total int, id string) { fmt.Fprintf(os.Stderr, "fit: %d/%d %s\n", done, total, id) }
		if o.TrainImages == "" || o.Out == "" {
			return fmt.Errorf("fit needs --train-images, --train-gt and --out")
		}
		rep, err := boundary.Refit(o)
		if err != nil {
			return err
		}
		fmt.Printf("fitted on %d images (%d pixels) → %s\n", rep.Train, rep.Model.Samples, o.Out)
		if rep.Val > 0 {
			b := rep.Best
			fmt.Printf("val (%d images, tolerance %g px): best F %.3f (P %.3f, R %.3f) at threshold %.2f\n", rep.Val, rep.Tolerance, b.F, b.P, b.R, b.Threshold)
		}
		return nil
	},
}

func init() {
	f := decomposeCmd.Flags()
	d := decompose.DefaultOptions()
	f.String("image", "", "one image (JPEG or PNG)")
	f.String("gt", "", "BSDS ground truth .mat of --image (adds scores and sparsification)")
	f.String("images", "", "a split folder of images (dataset form)")
	f.String("gt-dir", "", "ground-truth folder of --images (<id>.mat)")
	f.Int("limit", 0, "dataset form: first N images only (0 = all)")
	f.String("out", "", "output folder")
	f.Bool("graph", false, "also write graph.txt (multicut graph file)")
	f.String("model", "", "boundary model JSON (default: the embedded one)")
	f.Int("neighbours", d.Graph.Neighbours, "regular edges: 4 or 8 neighbours")
	f.Int("lifted", d.Graph.Lifted, "lifted offsets per pixel")
	f.Float64("radius", d.Graph.Radius, "largest lifted edge length τ (pixels)")
	f.Float64("beta", d.Graph.Beta, "cut prior β (seed Eq. 9)")
	f.Int("min-size", d.Graph.MinSize, "absorb segments of fewer pixels (0: keep the solver's result)")
	f.Int("stride", 2, "sparsification ranks every stride-th pixel in x and y")
	ff := decomposeFitCmd.Flags()
	for _, n := range []string{"train-images", "train-gt", "val-images", "val-gt", "out"} {
		ff.String(n, "", n+" folder (out: model JSON file)")
	}
	ff.Float64("tolerance", 4, "boundary matching tolerance on val (pixels)")
	ff.Int("per-image", 3000, "pixels sampled per train image")
	ff.Float64("lambda", 1, "L2 penalty")
	decomposeCmd.AddCommand(decomposeFitCmd)
	rootCmd.AddCommand(decomposeCmd)
}

package main

import (
	"fmt"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/internal/progress"
	"github.com/densify/densify/refine"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

type refineOptions struct {
	IO                *IOStreams
	Frames, Prob, Out string
	Threads           int
	Cut               refine.CutOptions
}

func NewCmdRefine(f *Factory) *cobra.Command {
	o := &refineOptions{IO: f.IO, Cut: refine.DefaultCutOptions()}
	cmd := &cobra.Command{
		Use:   "refine --frames DIR --prob DIR --out DIR",
		Short: "Refine saved probability maps with the graph cut, without running the network again",
		Long: `refine runs the graph cut of densify predict --refine graphcut (package refine: a minimum
cut of −λ_n log P, the colour mixtures of object and background and a contrast-sensitive
Potts term, within a band around the thresholded map) on probability maps that densify
predict --prob wrote (prob/NNNNN.png, probability × 255, the fused maps when --temporal
fused them), with the frames they belong to, and writes <out>/00000.png, 00001.png, …
(0/255 grey masks, frame order). With the default settings the masks are those of the
prediction up to the maps' quantisation to 1/255; the flags change the settings, so the
refinement can be studied on a network's maps in seconds per sequence. --out is replaced as
a whole once every frame is refined.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return runRefine(o) },
	}
	cmd.Example = refineExample
	fl, c := cmd.Flags(), &o.Cut
	fl.StringVar(&o.Frames, "frames", "", "frames folder (FBMS or DAVIS naming)")
	fl.StringVar(&o.Prob, "prob", "", "the probability maps: the prob/ folder of densify predict --prob")
	fl.StringVar(&o.Out, "out", "", "output folder for the masks (replaced as a whole)")
	cutFlags(fl, c)
	fl.IntVar(&o.Threads, "threads", 0, "frames cut at the same time (0 = all cores)")
	return cmd
}

// cutFlags registers the graph cut's settings (refine.CutOptions) on fl,
// with c's values as the defaults: densify refine, predict, run and ablate
// share them.
func cutFlags(fl *pflag.FlagSet, c *refine.CutOptions) {
	fl.Float64Var(&c.Net, "net-weight", c.Net, "mask refinement: λ_n, the weight of the network's −log P")
	fl.Float64Var(&c.Colour, "colour-weight", c.Colour, "mask refinement: λ_c, the weight of the colour mixtures' −log p")
	fl.Float64Var(&c.Smooth, "smooth", c.Smooth, "mask refinement: γ, the weight of the contrast-sensitive Potts term")
	fl.IntVar(&c.Components, "components", c.Components, "mask refinement: Gaussians per colour mixture")
	fl.IntVar(&c.Iterations, "cuts", c.Iterations, "mask refinement: cuts, the mixtures refitted on each cut's labels before the next")
	fl.Float64Var(&c.Confident, "confident", c.Confident, "mask refinement: colour samples are P above this for the object, below 1 − this for the background")
	fl.Float64Var(&c.Band, "band", c.Band, "mask refinement: pixels farther than this fraction of the frame's diagonal from the thresholded map are background; the background mixture is fitted within it")
	fl.Float64Var(&c.Scale, "cut-scale", c.Scale, "mask refinement: the energy is built on the frame resized by this factor")
	fl.Float64Var(&c.DenseCRF, "dense-crf", c.DenseCRF, "mask refinement: w, the weight in nats of a fully connected CRF's appearance term, run on the probabilities before the cut (0: none)")
	fl.Float64Var(&c.LogitShift, "logit-shift", c.LogitShift, "mask refinement: b, added to the network's log-odds before the refinement, P' = σ(logit P + b) (> 0 grows the masks)")
}

func runRefine(o *refineOptions) error {
	if o.Frames == "" || o.Prob == "" || o.Out == "" {
		return fmt.Errorf("refine needs --frames, --prob and --out")
	}
	frames, err := dataset.ListFrames(o.Frames)
	if err != nil {
		return err
	}
	st, err := refine.CutFolder(frames, o.Prob, o.Out, o.Cut, o.Threads, progress.Func(o.IO.ErrOut, "refine"))
	if err != nil {
		return err
	}
	fmt.Fprintf(o.IO.Out, "%d masks → %s (%d frames cut; foreground %d → %d px)\n", st.Frames, o.Out, st.Refined, st.Before, st.After)
	return nil
}

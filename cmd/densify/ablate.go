package main

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"

	"github.com/densify/densify/pipeline"
	"github.com/spf13/cobra"
)

type ablateOptions struct {
	IO       *IOStreams
	Factory  *Factory
	Flags    pipelineFlags
	Variants []pipeline.Variant
	Oracle   bool
	Factors  []float64
	Phis     []float64
}

func NewCmdAblate(f *Factory) *cobra.Command {
	o := &ablateOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:   "ablate <sequence folder | dataset root> --out WORK",
		Short: "U-Net training with and without uncertainty, per sequence and seed, scored on dense masks (Kardoost & Keuper, UAI 2021, Table 1)",
		Long: `ablate runs the chain of densify run (same flags, same work layout) and trains, per sequence,
one U-Net per variant and seed on the same prepared training set with the same budget:
"uniform" (class balance only), "weighted" (hard examples of uncertain segments × --factor, UAI'21
Sec. 4.3), "confidence" (every label weighted by 1 − 2u_T, the calibrated uncertainty as label
noise) and "prune" (the labels of the 5 % most uncertain trajectories dropped); --variants can add
"hard-right" (the hard examples × --factor only where their label is right with probability
≥ 0.9 under the embedded error model, a logistic model on γ and the segment's μ_A), and --oracle adds "oracle" (uniform on ground-truth labels of the same trajectories). Every variant is trained
with --seeds seeds (default 3). The upstream stages (track, segment, uncertainty, prepare) are
computed once and shared; every model predicts dense masks, which are scored with the FBMS protocol
and DAVIS J. Writes WORK/ablation.md and WORK/ablation.csv: F and J per variant (mean ± sd over the
seeds; also J away from object parts thinner than 5 px and the DAVIS 2016 benchmark's J where the scores have them), the means over sequences, and every variant against uniform: the mean paired ΔF, on how
many sequences it helps, and whether the difference exceeds the spread across seeds. Sequences
without ground truth have no scores.

--factors and --phis sweep the hard-example rule: one weighted model per factor and φ
(weighted-f<factor>-phi<φ>), on the same prepared set (the hard examples are redrawn from its
per-pixel uncertainties for every φ).`,
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error { return runAblate(o, args[0]) },
	}
	cmd.Example = ablateExample
	o.Flags.bind(cmd.Flags())
	o.Flags.opt.Seeds = 3
	cmd.Flags().Lookup("seeds").DefValue = "3"
	o.Variants = append([]pipeline.Variant(nil), pipeline.DefaultAblationVariants...)
	cmd.Flags().Var(variantsFlag{&o.Variants}, "variants", "variants to train (uniform, the baseline, is always added)")
	cmd.Flags().BoolVar(&o.Oracle, "oracle", false, "also train on ground-truth labels of the same trajectories")
	cmd.Flags().Float64SliceVar(&o.Factors, "factors", nil, "sweep: hard-example factors (comma-separated), each a weighted variant")
	cmd.Flags().Float64SliceVar(&o.Phis, "phis", nil, "sweep: thresholds φ (comma-separated), each a weighted variant")
	return cmd
}

func runAblate(o *ablateOptions, root string) error {
	opt, err := o.Flags.options(o.Factory, root)
	if err != nil {
		return err
	}
	ctx, stop := signalContext()
	defer stop()
	vs, err := sweepVariants(o.Variants, o.Factors, o.Phis)
	if err != nil {
		return err
	}
	if o.Oracle && !slices.Contains(vs, pipeline.VariantOracle) {
		vs = append(vs, pipeline.VariantOracle)
	}
	a, rep, err := pipeline.Ablate(ctx, root, o.Flags.out, opt, vs...)
	return printResults(o.IO.Out, o.Flags.out, rep, a, err)
}

// printResults prints the run summary and the ablation table of work (either
// may be nil) and returns err, or the first write error when err is nil.
func printResults(w io.Writer, work string, rep *pipeline.Report, a *pipeline.Ablation, err error) error {
	if rep != nil {
		rep.WriteSummary(w)
	}
	if a != nil {
		fmt.Fprintln(w)
		if werr := a.Markdown(w); werr != nil && err == nil {
			err = werr
		}
		fmt.Fprintf(w, "ablation: %s, %s\n", filepath.Join(work, "ablation.md"), filepath.Join(work, "ablation.csv"))
	}
	return err
}

// sweepVariants adds a weighted variant for every factor × φ of the sweeps
// (one list may be empty: the prepared set's value).
func sweepVariants(vs []pipeline.Variant, factors, phis []float64) ([]pipeline.Variant, error) {
	out := append([]pipeline.Variant(nil), vs...)
	for _, f := range factors {
		if !(f > 0 && f <= 1e6) {
			return nil, fmt.Errorf("--factors: %v is not in (0, 1e6]", f)
		}
	}
	for _, p := range phis {
		if !(p >= 0 && p <= 1) {
			return nil, fmt.Errorf("--phis: %v is not in [0, 1]", p)
		}
	}
	if len(factors) == 0 && len(phis) == 0 {
		return out, nil
	}
	if len(factors) == 0 {
		factors = []float64{0}
	}
	if len(phis) == 0 {
		phis = []float64{-1}
	}
	for _, f := range factors {
		for _, p := range phis {
			if v := pipeline.WeightedWith(f, p); !slices.Contains(out, v) {
				out = append(out, v)
			}
		}
	}
	return out, nil
}

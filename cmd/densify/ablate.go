package main

import (
	"fmt"
	"path/filepath"

	"github.com/densify/densify/pipeline"
	"github.com/spf13/cobra"
)

type ablateOptions struct {
	IO      *IOStreams
	Factory *Factory
	Flags   pipelineFlags
}

func NewCmdAblate(f *Factory) *cobra.Command {
	o := &ablateOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:   "ablate <sequence folder | dataset root> --out WORK",
		Short: "Uniform vs uncertainty-weighted U-Net training per sequence, scored on dense masks (seed Table 1)",
		Long: `ablate runs the chain of densify run (same flags, same work layout) and trains, per sequence,
two U-Nets on the same prepared training set with the same seed and budget: "uniform" (class
balance only, the hard-example weights ignored) and "weighted" (hard examples of uncertain segments
× --factor, UAI'21 Sec. 4.3). The upstream stages (track, segment, uncertainty, prepare) are computed
once and shared; both models predict dense masks, which are scored with the FBMS protocol.
Writes WORK/ablation.md and WORK/ablation.csv (P, R, F per variant and the mean over sequences)
besides the run report. Sequences without ground truth have no scores.`,
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error { return runAblate(o, args[0]) },
	}
	o.Flags.bind(cmd.Flags())
	return cmd
}

func runAblate(o *ablateOptions, root string) error {
	opt, err := o.Flags.options(o.Factory, root)
	if err != nil {
		return err
	}
	ctx, stop := signalContext()
	defer stop()
	a, rep, err := pipeline.Ablate(ctx, root, o.Flags.out, opt)
	w := o.IO.Out
	if rep != nil {
		rep.WriteSummary(w)
	}
	if a != nil {
		fmt.Fprintln(w)
		if werr := a.Markdown(w); werr != nil && err == nil {
			err = werr
		}
		fmt.Fprintf(w, "ablation: %s, %s\n", filepath.Join(o.Flags.out, "ablation.md"), filepath.Join(o.Flags.out, "ablation.csv"))
	}
	return err
}

package main

import (
	"fmt"
	"path/filepath"

	"github.com/densify/densify/pipeline"
	"github.com/spf13/cobra"
)

var ablateFlags pipelineFlags

var ablateCmd = &cobra.Command{
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
	RunE: func(cmd *cobra.Command, args []string) error {
		opt, err := ablateFlags.options(args[0])
		if err != nil {
			return err
		}
		ctx, stop := signalContext()
		defer stop()
		a, rep, err := pipeline.Ablate(ctx, args[0], ablateFlags.out, opt)
		if rep != nil {
			printRunSummary(cmd.OutOrStdout(), rep)
		}
		if a != nil {
			fmt.Fprintln(cmd.OutOrStdout())
			if werr := a.Markdown(cmd.OutOrStdout()); werr != nil && err == nil {
				err = werr
			}
			fmt.Fprintf(cmd.OutOrStdout(), "ablation: %s, %s\n", filepath.Join(ablateFlags.out, "ablation.md"), filepath.Join(ablateFlags.out, "ablation.csv"))
		}
		return err
	},
}

func init() {
	ablateFlags.bind(ablateCmd)
	rootCmd.AddCommand(ablateCmd)
}

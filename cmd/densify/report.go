package main

import (
	"github.com/densify/densify/pipeline"
	"github.com/spf13/cobra"
)

type reportOptions struct {
	IO *IOStreams
}

func NewCmdReport(f *Factory) *cobra.Command {
	o := &reportOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "report WORK",
		Short: "Rebuild the dataset report of a run or ablate work folder from its per-sequence results (after the shards of a job array)",
		Long: `report reads WORK/plan.json (the selection of the latest run or ablate started in WORK, all
shards together) and WORK/<seq>/result.json of every sequence in it (each written when a run
finishes the sequence, also when it fails), and writes WORK/report.md and WORK/report.json, and
WORK/ablation.md and WORK/ablation.csv when the plan is densify ablate's. It computes
nothing again: the report is built by the same function densify run uses at its end, so a report
merged from shards equals the report of one run over the same sequences (timings aside: the
report's time is the summed stage time of the sequences).

Sequences without result.json (not run yet, still running, or killed) are listed as missing,
sequences whose run failed as failed; the means leave both out, the report is written all the
same, and the exit status is non-zero.`,
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error { return runReport(o, args[0]) },
	}
	cmd.Example = reportExample
	return cmd
}

func runReport(o *reportOptions, work string) error {
	rep, a, err := pipeline.Merge(work, o.IO.ErrOut)
	return printResults(o.IO.Out, work, rep, a, err)
}

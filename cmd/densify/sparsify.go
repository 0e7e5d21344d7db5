package main

import (
	"fmt"

	"github.com/densify/densify/uncertainty"
	"github.com/spf13/cobra"
)

type sparsifyOptions struct {
	IO                                 *IOStreams
	Graphs, Labels, Tracks, GTs, Names []string
	Dataset, Out                       string
	Sparsify                           uncertainty.SparsifyOptions
}

func NewCmdSparsify(f *Factory) *cobra.Command {
	o := &sparsifyOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "sparsify --graph G --labels L --tracks T.dat --gt GT --out DIR",
		Short: "Sparsification curves: VI and RI as the most uncertain trajectories are removed (UAI'21 Figs. 3–4)",
		Long: `sparsify ranks the trajectories by uncertainty (proposed γ measure, likelihood
baseline, random: mean of --seeds seeds), removes 0%, step, 2·step, … up to --max of
them (most uncertain first; ties by node id) and computes the variation of
information (nats) and the Rand index between the predicted clusters and the
ground-truth regions of the remaining ones. A trajectory's ground-truth region is
its majority region over the labelled frames; trajectories in no labelled frame
are left out. Writes DIR/curves.csv, DIR/vi.png, DIR/ri.png and DIR/summary.json
(areas under the curves, trapezoid rule over the removed fraction).

It also calibrates u against the label errors: a trajectory is wrong when its cluster
stands for another ground-truth region than its own (the region of most of the
cluster's trajectories). Per sequence: the AUC of u and of the likelihood baseline for
finding the wrong ones, and the expected calibration error of u = σ(−γ) and of
u_T = σ(−γ/T), T fitted on the other sequences by maximum likelihood; the reliability
tables go to DIR/calibration.csv, the numbers to summary.json's "calibration".

Several sequences (repeat --graph/--labels/--tracks/--gt in the same order, or
--dataset LIST with lines "name graph labels tracks gt") also give the mean curves.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return runSparsify(o) },
	}
	cmd.Example = sparsifyExample
	fl, s := cmd.Flags(), &o.Sparsify
	fl.StringArrayVar(&o.Graphs, "graph", nil, "graph instance file (repeat for several sequences)")
	fl.StringArrayVar(&o.Labels, "labels", nil, "labels file (predicted clusters)")
	fl.StringArrayVar(&o.Tracks, "tracks", nil, "Tracks*.dat, one trajectory per node")
	fl.StringArrayVar(&o.GTs, "gt", nil, "ground truth: Def.dat or DAVIS annotation folder")
	fl.StringArrayVar(&o.Names, "name", nil, "sequence name (default: the Tracks file name)")
	fl.StringVar(&o.Dataset, "dataset", "", "list file: one line 'name graph labels tracks gt' per sequence")
	fl.StringVar(&o.Out, "out", "", "output folder (replaced as a whole: new, empty, or an earlier sparsify's)")
	fl.Float64Var(&s.Step, "step", 0.05, "removal step (fraction of trajectories)")
	fl.Float64Var(&s.Max, "max", 0.9, "largest removed fraction")
	fl.IntVar(&s.Seeds, "seeds", 10, "random orderings averaged for the random baseline")
	fl.Float64Var(&s.Beta, "beta", 0.5, "cut prior β the costs were built with")
	return cmd
}

func runSparsify(o *sparsifyOptions) error {
	if o.Out == "" {
		return fmt.Errorf("sparsify needs --out")
	}
	ins, err := uncertainty.ZipInputs(o.Graphs, o.Labels, o.Tracks, o.GTs, o.Names)
	if err != nil {
		return err
	}
	if o.Dataset != "" {
		list, err := uncertainty.ReadSequenceList(o.Dataset)
		if err != nil {
			return err
		}
		ins = append(list, ins...)
	}
	if len(ins) == 0 {
		return fmt.Errorf("sparsify needs --graph, --labels, --tracks and --gt, or --dataset")
	}
	sum, err := uncertainty.SparsifyAll(ins, o.Out, o.Sparsify, o.IO.ErrOut)
	if err != nil {
		return err
	}
	sum.WriteTable(o.IO.Out)
	sum.WriteCalibrationTable(o.IO.Out)
	fmt.Fprintf(o.IO.Out, "VI in nats; curves, plots, calibration.csv and summary.json → %s\n", o.Out)
	return nil
}

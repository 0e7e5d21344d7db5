package main

import (
	"fmt"
	"os"

	"github.com/densify/densify/uncertainty"
	"github.com/spf13/cobra"
)

var sparsifyCmd = &cobra.Command{
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

Several sequences (repeat --graph/--labels/--tracks/--gt in the same order, or
--dataset LIST with lines "name graph labels tracks gt") also give the mean curves.`,
	Args: cobra.NoArgs,
	RunE: func(cmd *cobra.Command, _ []string) error {
		f := cmd.Flags()
		graphs, _ := f.GetStringArray("graph")
		labels, _ := f.GetStringArray("labels")
		tracks, _ := f.GetStringArray("tracks")
		gts, _ := f.GetStringArray("gt")
		names, _ := f.GetStringArray("name")
		list, _ := f.GetString("dataset")
		out, _ := f.GetString("out")
		var opt uncertainty.SparsifyOptions
		opt.Beta, _ = f.GetFloat64("beta")
		opt.Step, _ = f.GetFloat64("step")
		opt.Max, _ = f.GetFloat64("max")
		opt.Seeds, _ = f.GetInt("seeds")
		if out == "" {
			return fmt.Errorf("sparsify needs --out")
		}
		var ins []uncertainty.SequenceInput
		if list != "" {
			var err error
			if ins, err = uncertainty.ReadSequenceList(list); err != nil {
				return err
			}
		}
		n := len(graphs)
		if len(labels) != n || len(tracks) != n || len(gts) != n || (len(names) != 0 && len(names) != n) {
			return fmt.Errorf("give --graph, --labels, --tracks and --gt (and --name) the same number of times (got %d, %d, %d, %d)",
				len(graphs), len(labels), len(tracks), len(gts))
		}
		for i := 0; i < n; i++ {
			in := uncertainty.SequenceInput{Graph: graphs[i], Labels: labels[i], Tracks: tracks[i], GT: gts[i]}
			if len(names) > 0 {
				in.Name = names[i]
			}
			ins = append(ins, in)
		}
		if len(ins) == 0 {
			return fmt.Errorf("sparsify needs --graph, --labels, --tracks and --gt, or --dataset")
		}
		var seqs []*uncertainty.SequenceCurves
		for i, in := range ins {
			s, err := uncertainty.SparsifyFiles(in, opt)
			if err != nil {
				return err
			}
			fmt.Fprintf(os.Stderr, "sparsify: %d/%d %s (%d trajectories with ground truth)\n", i+1, len(ins), s.Name, s.WithGT)
			seqs = append(seqs, s)
		}
		sum, err := uncertainty.WriteSparsifyOutputs(out, seqs, opt)
		if err != nil {
			return err
		}
		fmt.Printf("%-20s %-11s %9s %9s %9s %9s %s\n", "sequence", "ordering", "AUC-VI", "AUC-RI", "VI@0", "VI@max", "VI falls")
		print := func(s uncertainty.SequenceSummary) {
			for _, c := range s.Curves {
				fmt.Printf("%-20s %-11s %9.4f %9.4f %9.4f %9.4f %v\n", s.Name, c.Name, c.AUCVI, c.AUCRI, c.VIStart, c.VIEnd, c.VIFalls)
			}
		}
		for _, s := range sum.Sequences {
			print(s)
		}
		if sum.Mean != nil {
			print(*sum.Mean)
		}
		fmt.Printf("VI in nats; curves, plots and summary.json → %s\n", out)
		return nil
	},
}

func init() {
	f := sparsifyCmd.Flags()
	f.StringArray("graph", nil, "graph instance file (repeat for several sequences)")
	f.StringArray("labels", nil, "labels file (predicted clusters)")
	f.StringArray("tracks", nil, "Tracks*.dat, one trajectory per node")
	f.StringArray("gt", nil, "ground truth: Def.dat or DAVIS annotation folder")
	f.StringArray("name", nil, "sequence name (default: the Tracks file name)")
	f.String("dataset", "", "list file: one line 'name graph labels tracks gt' per sequence")
	f.String("out", "", "output folder")
	f.Float64("step", 0.05, "removal step (fraction of trajectories)")
	f.Float64("max", 0.9, "largest removed fraction")
	f.Int("seeds", 10, "random orderings averaged for the random baseline")
	f.Float64("beta", 0.5, "cut prior β the costs were built with")
	rootCmd.AddCommand(sparsifyCmd)
}

package main

import (
	"fmt"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/trajectory"
	"github.com/densify/densify/uncertainty"
	"github.com/spf13/cobra"
)

var nbestCmd = &cobra.Command{
	Use:   "nbest --graph G --labels L --n 10 --out DIR",
	Short: "n lowest-energy alternative segmentations around a multicut solution (UAI'21 Sec. 4.2)",
	Long: `nbest generates alternatives to a labelling: for every ordered pair of clusters
(A, B) adjacent through E, the nodes of A that can move to B are sorted by the energy
change γ_B(v); the k smallest (k = 1 … --max-k) move together; if A falls apart its
connected components become separate clusters (every cluster stays connected).
Exact energies, duplicates removed; the input is #1, then the lowest-energy
alternatives. Writes DIR/labels_01.txt …, with --tracks DIR/tracks_01.dat …, and
DIR/nbest.json; with --gt each labelling is scored (FBMS F) and nbest.json holds
best_of_n_f for n = 1 … N.`,
	Args: cobra.NoArgs,
	RunE: func(cmd *cobra.Command, _ []string) error {
		f := cmd.Flags()
		graph, _ := f.GetString("graph")
		labelsPath, _ := f.GetString("labels")
		tracks, _ := f.GetString("tracks")
		gtPath, _ := f.GetString("gt")
		out, _ := f.GetString("out")
		var opt uncertainty.NBestOptions
		opt.N, _ = f.GetInt("n")
		opt.MaxK, _ = f.GetInt("max-k")
		opt.OnePerPair, _ = f.GetBool("one-per-pair")
		if graph == "" || labelsPath == "" || out == "" {
			return fmt.Errorf("nbest needs --graph, --labels and --out")
		}
		if gtPath != "" && tracks == "" {
			return fmt.Errorf("--gt needs --tracks")
		}
		g, labels, err := uncertainty.LoadInstance(graph, labelsPath)
		if err != nil {
			return err
		}
		var ts *trajectory.TrackSet
		if tracks != "" {
			if ts, err = uncertainty.LoadTracks(tracks, g.N); err != nil {
				return err
			}
		}
		var gt *dataset.GroundTruth
		if gtPath != "" {
			if gt, err = dataset.LoadGroundTruth(gtPath); err != nil {
				return err
			}
		}
		alts, err := uncertainty.NBest(g, labels, opt)
		if err != nil {
			return fmt.Errorf("%s + %s: %w", graph, labelsPath, err)
		}
		rep, err := uncertainty.WriteNBest(out, alts, ts, gt)
		if err != nil {
			return err
		}
		fmt.Printf("%4s %14s %8s %6s %s\n", "rank", "energy", "clusters", "moved", "F / best-of-n F")
		for i, a := range rep.Alternatives {
			extra := ""
			if a.F != nil {
				extra = fmt.Sprintf("%.4f / %.4f", *a.F, rep.BestOfN[i])
			}
			fmt.Printf("%4d %14.4f %8d %6d %s\n", a.Rank, a.Energy, a.Clusters, a.Moved, extra)
		}
		fmt.Printf("%d labelings → %s\n", len(alts), out)
		return nil
	},
}

func init() {
	f := nbestCmd.Flags()
	f.String("graph", "", "graph instance file")
	f.String("labels", "", "labels file of the solution")
	f.String("tracks", "", "Tracks*.dat (one trajectory per node): also write labelled Tracks files")
	f.String("gt", "", "ground truth (Def.dat or DAVIS annotation folder): score each labelling, best-of-n F")
	f.String("out", "", "output folder")
	f.Int("n", 10, "number of labelings, the input included")
	f.Int("max-k", 50, "largest number of nodes moved together per cluster pair (0: no bound)")
	f.Bool("one-per-pair", false, "at most one alternative per ordered cluster pair (more diverse alternatives)")
	rootCmd.AddCommand(nbestCmd)
}

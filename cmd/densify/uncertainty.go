package main

import (
	"fmt"
	"math"
	"os"
	"sort"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/internal/progress"
	"github.com/densify/densify/uncertainty"
	"github.com/spf13/cobra"
)

var uncertaintyCmd = &cobra.Command{
	Use:   "uncertainty --graph G.txt --labels L.txt --out U.csv",
	Short: "Per-trajectory uncertainty of a multicut segmentation (Kardoost & Keuper, UAI'21)",
	Long: `uncertainty computes, for every node v of a labelled (lifted) multicut instance,
γ(v) = min over E-adjacent clusters B of the energy increase of moving v from its
cluster A to B (lifted edges count in the sums), and writes the CSV

  node,label,gamma,uncertainty,likelihood_uncertainty,target

with uncertainty u = 1 − σ(γ) = σ(−γ) (0: no move possible, γ = inf;
> 0.5: a move would lower the energy), the likelihood baseline
1 − Π p_join/p_cut over all edges of v, and the best alternative cluster.
The per-cluster mean uncertainty μ_A goes to --clusters (CSV, or JSON by
extension). With --tracks and --frames it draws heat maps of the trajectory
points coloured by uncertainty into --heatmaps.`,
	Args: cobra.NoArgs,
	RunE: func(cmd *cobra.Command, _ []string) error {
		f := cmd.Flags()
		graph, _ := f.GetString("graph")
		labelsPath, _ := f.GetString("labels")
		out, _ := f.GetString("out")
		beta, _ := f.GetFloat64("beta")
		clusters, _ := f.GetString("clusters")
		tracks, _ := f.GetString("tracks")
		frames, _ := f.GetString("frames")
		heat, _ := f.GetString("heatmaps")
		gtPath, _ := f.GetString("gt")
		every, _ := f.GetInt("every")
		all, _ := f.GetBool("all-frames")
		if graph == "" || labelsPath == "" || out == "" {
			return fmt.Errorf("uncertainty needs --graph, --labels and --out")
		}
		if (frames != "" || heat != "") && (tracks == "" || frames == "" || heat == "") {
			return fmt.Errorf("heat maps need --tracks, --frames and --heatmaps together")
		}
		g, labels, err := uncertainty.LoadInstance(graph, labelsPath)
		if err != nil {
			return err
		}
		r, err := uncertainty.Compute(g, labels, beta)
		if err != nil {
			return fmt.Errorf("%s + %s: %w", graph, labelsPath, err)
		}
		// read the optional inputs before writing anything
		var hmFrames []int
		var tsU func() error
		if heat != "" {
			ts, err := uncertainty.LoadTracks(tracks, g.N)
			if err != nil {
				return err
			}
			var gt *dataset.GroundTruth
			if gtPath != "" {
				if gt, err = dataset.LoadGroundTruth(gtPath); err != nil {
					return err
				}
			}
			hmFrames = uncertainty.HeatmapFrames(ts.Frames, gt, every, all)
			tsU = func() error {
				written, err := uncertainty.WriteHeatmaps(frames, heat, ts, r.U, hmFrames, progress.Func(os.Stderr, "heatmaps"))
				if err == nil {
					fmt.Printf("heat maps: %d frames → %s\n", len(written), heat)
				}
				return err
			}
		}
		if err := uncertainty.WriteCSV(out, r); err != nil {
			return err
		}
		if clusters != "" {
			if err := uncertainty.WriteClusters(clusters, r); err != nil {
				return err
			}
		}
		printUncertaintySummary(r)
		if tsU != nil {
			return tsU()
		}
		return nil
	},
}

func printUncertaintySummary(r *uncertainty.Result) {
	n := len(r.U)
	boundary, improving := 0, 0
	mean := 0.0
	for v := range r.U {
		mean += r.U[v]
		if !math.IsInf(r.Gamma[v], 1) {
			boundary++
		}
		if r.U[v] > 0.5 {
			improving++
		}
	}
	if n > 0 {
		mean /= float64(n)
	}
	fmt.Printf("%d nodes, %d clusters: %d can move (γ < inf), %d with u > 0.5 (a move lowers the energy), mean u %.4f\n",
		n, len(r.Clusters), boundary, improving, mean)
	cs := append([]uncertainty.Cluster(nil), r.Clusters...)
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].MeanU > cs[j].MeanU })
	if len(cs) > 5 {
		cs = cs[:5]
	}
	for _, c := range cs {
		fmt.Printf("  cluster %d: %d nodes, μ_A = %.4f\n", c.Label, c.Size, c.MeanU)
	}
}

func init() {
	f := uncertaintyCmd.Flags()
	f.String("graph", "", "graph instance file (from densify segment)")
	f.String("labels", "", "labels file, one cluster id per node")
	f.String("out", "", "output CSV node,label,gamma,uncertainty,likelihood_uncertainty,target")
	f.Float64("beta", 0.5, "cut prior β the costs were built with (for the likelihood baseline)")
	f.String("clusters", "", "optional per-cluster summary (label,size,boundary,μ_A): .csv or .json")
	f.String("tracks", "", "Tracks*.dat of the graph's nodes (heat maps)")
	f.String("frames", "", "frames folder of the sequence (heat maps)")
	f.String("heatmaps", "", "output folder for heat-map PNGs")
	f.String("gt", "", "ground truth (Def.dat or DAVIS annotation folder): draw its labelled frames")
	f.Int("every", 10, "without --gt: draw every N-th frame")
	f.Bool("all-frames", false, "draw every frame")
	rootCmd.AddCommand(uncertaintyCmd)
}

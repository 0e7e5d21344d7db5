package main

import (
	"fmt"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/internal/progress"
	"github.com/densify/densify/uncertainty"
	"github.com/spf13/cobra"
)

type uncertaintyOptions struct {
	IO    *IOStreams
	Files uncertainty.FilesOptions
	GT    string
	Every int
	All   bool
}

func NewCmdUncertainty(f *Factory) *cobra.Command {
	o := &uncertaintyOptions{IO: f.IO}
	cmd := &cobra.Command{
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
		RunE: func(*cobra.Command, []string) error { return runUncertainty(o) },
	}
	cmd.Example = uncertaintyExample
	fl, u := cmd.Flags(), &o.Files
	fl.StringVar(&u.Graph, "graph", "", "graph instance file (from densify segment)")
	fl.StringVar(&u.Labels, "labels", "", "labels file, one cluster id per node")
	fl.StringVar(&u.CSV, "out", "", "output CSV node,label,gamma,uncertainty,likelihood_uncertainty,target")
	fl.Float64Var(&u.Beta, "beta", 0.5, "cut prior β the costs were built with (for the likelihood baseline)")
	fl.StringVar(&u.Clusters, "clusters", "", "optional per-cluster summary (label,size,boundary,μ_A): .csv or .json")
	fl.StringVar(&u.Tracks, "tracks", "", "Tracks*.dat of the graph's nodes (heat maps)")
	fl.StringVar(&u.FramesDir, "frames", "", "frames folder of the sequence (heat maps)")
	fl.StringVar(&u.Heatmaps, "heatmaps", "", "output folder for heat-map PNGs (replaced as a whole: new, empty, or earlier heat maps)")
	fl.Float64Var(&u.Temperature, "temperature", uncertainty.DefaultTemperature, "heat maps colour u_T = σ(−γ/T), the calibrated probability that a trajectory's label is wrong (densify sparsify fits T; 1 = UAI'21's u)")
	fl.StringVar(&o.GT, "gt", "", "ground truth (Def.dat or DAVIS annotation folder): draw its labelled frames")
	fl.IntVar(&o.Every, "every", 10, "without --gt: draw every N-th frame")
	fl.BoolVar(&o.All, "all-frames", false, "draw every frame")
	return cmd
}

func runUncertainty(o *uncertaintyOptions) error {
	u := &o.Files
	if u.Graph == "" || u.Labels == "" || u.CSV == "" {
		return fmt.Errorf("uncertainty needs --graph, --labels and --out")
	}
	if (u.FramesDir != "" || u.Heatmaps != "") && (u.Tracks == "" || u.FramesDir == "" || u.Heatmaps == "") {
		return fmt.Errorf("heat maps need --tracks, --frames and --heatmaps together")
	}
	if u.Heatmaps == "" {
		u.Tracks = "" // the Tracks file only serves the heat maps
	} else {
		var gt *dataset.GroundTruth
		if o.GT != "" {
			var err error
			if gt, err = dataset.LoadGroundTruth(o.GT); err != nil {
				return err
			}
		}
		u.GT, u.HeatmapFrames = gt, func(n int) []int { return uncertainty.HeatmapFrames(n, gt, o.Every, o.All) }
		u.Progress = progress.Func(o.IO.ErrOut, "heatmaps")
	}
	res, err := uncertainty.ComputeFiles(*u)
	if err != nil {
		return err
	}
	res.Summary.Write(o.IO.Out, 5)
	if u.Heatmaps != "" {
		fmt.Fprintf(o.IO.Out, "heat maps: %d frames → %s\n", len(res.Heatmaps), u.Heatmaps)
	}
	return nil
}

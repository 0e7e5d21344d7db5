package main

import (
	"fmt"
	"slices"

	"github.com/densify/densify/multicut"
	"github.com/spf13/cobra"
)

type multicutOptions struct {
	IO           *IOStreams
	Files        multicut.FilesOptions
	Levels       []int
	NoMultilevel bool
	Thorough     bool
	Seed         int64
	changed      func(flag string) bool // set on the command line
}

func NewCmdMulticut(f *Factory) *cobra.Command {
	o := &multicutOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "multicut --graph G.txt --out labels.txt [--solver gaec|klj] [--json FILE]",
		Short: "Solve a (lifted) minimum cost multicut instance with GAEC or KLj",
		Long: `Reads a graph instance file (comment '#'; header 'N M'; M lines 'u v cost lifted'),
solves the minimum cost (lifted) multicut with GAEC or KLj (Keuper, Andres, Brox ICCV'15;
KLj starts from GAEC unless --start gives a feasible labelling), and writes one cluster label
per line (node order). Positive costs prefer joined endpoints. --json writes energy, clusters,
timing and instance size.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			o.changed = c.Flags().Changed
			return runMulticut(o)
		},
	}
	cmd.Example = multicutExample
	fl, m := cmd.Flags(), &o.Files
	fl.StringVar(&m.Graph, "graph", "", "graph instance file (required)")
	fl.StringVar(&m.Solve.Solver, "solver", "klj", "solver: gaec or klj")
	fl.StringVar(&m.Out, "out", "", "labels file to write (required)")
	fl.StringVar(&m.JSON, "json", "", "optional JSON summary file")
	fl.StringVar(&m.Start, "start", "", "klj: start from this labels file instead of GAEC")
	fl.IntVar(&m.Solve.MaxIter, "max-iter", 100, "klj: maximum outer iterations")
	fl.IntVar(&m.Solve.MaxStall, "max-stall", 200, "klj: end a move sequence after this many moves without a new best (-1: never, as Kernighan–Lin)")
	fl.IntVar(&m.Solve.FullSweep, "full-sweep", 1000, "klj: second phase: pairs of clusters with at most this many nodes together run their sequence to the end, as do every split and every pair of two clusters of at least --max-stall nodes each (-1: no second phase)")
	fl.IntSliceVar(&o.Levels, "levels", slices.Clone(multicut.DefaultLevels), "klj: coarsening factors of the multilevel refinement, finest first (each ≥ 2)")
	fl.BoolVar(&o.NoMultilevel, "no-multilevel", false, "klj: node-level search only (no multilevel refinement)")
	fl.IntVar(&m.Solve.VCycles, "v-cycles", 1, "klj: multilevel V-cycles (each after the first roughly doubles KLj's time)")
	fl.IntVar(&m.Solve.GroupMoves, "group-moves", multicut.DefaultGroupMoves, "klj: after the multilevel refinement, move connected groups of at most this many nodes, grown from each node on a cluster boundary into the neighbouring cluster (-1: none)")
	fl.IntVar(&m.Solve.JoinEvict, "join-evict", multicut.DefaultJoinEvict, "klj: when the group moves find nothing, join every cluster of at most this many nodes into a neighbouring cluster and evict up to 4 nodes of the union to other clusters, where that lowers the energy (-1: none)")
	fl.IntVar(&m.Solve.Neighbourhood, "neighbourhood", 0, "klj: re-solve each cluster with its neighbouring clusters when they hold at most this many nodes (0: off)")
	fl.IntVar(&m.Solve.Fusions, "fusions", 0, "klj: fusion moves with local optima of perturbed costs at the end (0: none)")
	fl.Int64Var(&o.Seed, "seed", 1, "klj: seed of the fusion proposals")
	fl.BoolVar(&o.Thorough, "thorough", false, fmt.Sprintf("klj: lower energies at 2–4× the time: --v-cycles 2 --neighbourhood %d --fusions %d unless given", multicut.ThoroughNeighbourhood, multicut.ThoroughFusions))
	return cmd
}

// countFlag is a KLj search setting given on the command line: a count,
// or -1 for unlimited / none.
type countFlag struct {
	name  string
	value int
}

// refuseZeroCounts refuses the first of the KLj search settings that is 0,
// which the solver would read as its default rather than as a count
// (`densify multicut` and `densify decompose`).
func refuseZeroCounts(cmd string, flags []countFlag) error {
	for _, f := range flags {
		if f.value == 0 {
			return fmt.Errorf("%s: --%s 0: want -1 (unlimited / none) or a count ≥ 1", cmd, f.name)
		}
	}
	return nil
}

func runMulticut(o *multicutOptions) error {
	if o.Files.Graph == "" || o.Files.Out == "" {
		return fmt.Errorf("multicut: --graph and --out are required")
	}
	if err := refuseZeroCounts("multicut", []countFlag{{"max-stall", o.Files.Solve.MaxStall}, {"full-sweep", o.Files.Solve.FullSweep},
		{"group-moves", o.Files.Solve.GroupMoves}, {"join-evict", o.Files.Solve.JoinEvict}}); err != nil {
		return err
	}
	for _, f := range o.Levels {
		if f < 2 || f > 1_000_000 {
			return fmt.Errorf("multicut: --levels factor %d is out of range: want [2, 1000000]", f)
		}
	}
	o.Files.Solve.Levels = o.Levels
	if o.NoMultilevel {
		o.Files.Solve.Levels = []int{}
	}
	o.Files.BigLog = func(format string, args ...any) { fmt.Fprintf(o.IO.ErrOut, format+"\n", args...) }
	o.Files.Solve.Seed = uint64(o.Seed)
	if o.Thorough {
		s := &o.Files.Solve
		if !o.changed("v-cycles") {
			s.VCycles = 2
		}
		if !o.changed("neighbourhood") {
			s.Neighbourhood = multicut.ThoroughNeighbourhood
		}
		if !o.changed("fusions") {
			s.Fusions = multicut.ThoroughFusions
		}
	}
	r, err := multicut.SolveFiles(o.Files)
	if err != nil {
		return err
	}
	fmt.Fprintf(o.IO.Out, "multicut %s: %d nodes, %d edges (+%d lifted) → %d clusters, energy %.6g, %.3fs → %s\n",
		r.Solver, r.Nodes, r.Edges, r.LiftedEdges, r.Clusters, r.Energy, r.Seconds, r.Labels)
	return nil
}

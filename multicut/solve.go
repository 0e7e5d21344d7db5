package multicut

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/densify/densify/internal/atomicfile"
)

// SolverVersion numbers the search of Solve: it is raised by every change
// that can give other labels on the same graph and options, so that stored
// results (a pipeline's segment stage) are recomputed. 3: connected group
// moves of up to 32 nodes (DefaultGroupMoves; 16 before); 2: the multilevel
// refinement coarsens by sorted heavy-edge matching (matchFragments); 1:
// by GAEC restricted to the clusters.
const SolverVersion = 3

// SolveOptions selects the solver of Solve.
type SolveOptions struct {
	// Solver is "gaec" (greedy additive edge contraction) or "klj"
	// (Kernighan–Lin with joins, started from Start or from GAEC); "" = klj.
	Solver string
	// Start is KLj's initial labelling (nil: the GAEC solution).
	Start []int
	// MaxIter bounds KLj's outer iterations (0: 100).
	MaxIter int
	// MaxStall, FullSweep, Levels, VCycles, GroupMoves and JoinEvict are
	// KLj's (KLjOptions; zero values: its defaults).
	MaxStall   int
	FullSweep  int
	Levels     []int
	VCycles    int
	GroupMoves int
	JoinEvict  int
	// Neighbourhood, Fusions and Seed are KLj's large-neighbourhood moves
	// (KLjOptions; zero: off).
	Neighbourhood int
	Fusions       int
	Seed          uint64
	// Log, when set, gets one line per solver step (GAEC done, each KLj
	// iteration) with energy, clusters and elapsed time.
	Log func(format string, args ...any)
}

// Solution is the outcome of Solve.
type Solution struct {
	Labels      []int
	Energy      float64 // energy of Labels
	Clusters    int
	StartEnergy float64 // klj: energy of the start labelling
	Iterations  int     // klj: outer iterations run
	Seconds     float64
}

// Solve finds a low-energy (lifted) multicut of g (Keuper, Andres, Brox
// ICCV'15): GAEC, or KLj started from Start or, when Start is nil, from the
// GAEC solution. It is the one GAEC → KLj sequence of densify (segment,
// multicut and the pipeline use it).
func Solve(g *Graph, opt SolveOptions) (*Solution, error) {
	if opt.Solver == "" {
		opt.Solver = "klj"
	}
	if opt.Solver != "gaec" && opt.Solver != "klj" {
		return nil, fmt.Errorf("multicut: unknown solver %q (gaec or klj)", opt.Solver)
	}
	if opt.Start != nil && opt.Solver != "klj" {
		return nil, fmt.Errorf("multicut: a start labelling needs the klj solver")
	}
	logf := opt.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	t0 := time.Now()
	sol := &Solution{}
	start := opt.Start
	if start == nil {
		var err error
		if start, err = GAEC(g); err != nil {
			return nil, err
		}
		logf("multicut: GAEC energy %.6g, %d clusters (%.2fs)", Energy(g, start), NumClusters(start), time.Since(t0).Seconds())
	}
	labels := start
	if opt.Solver == "klj" {
		sol.StartEnergy = Energy(g, start)
		kopt := KLjOptions{Start: start, MaxIter: opt.MaxIter, MaxStall: opt.MaxStall, FullSweep: opt.FullSweep,
			Levels: opt.Levels, VCycles: opt.VCycles, GroupMoves: opt.GroupMoves, JoinEvict: opt.JoinEvict, Neighbourhood: opt.Neighbourhood, Fusions: opt.Fusions, Seed: opt.Seed, Progress: func(p KLjProgress) {
				sol.Iterations = p.Iter
				logf("multicut: KLj iteration %d: energy %.6g (improved by %.4g), %d clusters (%.2fs)", p.Iter, p.Energy, p.Improvement, p.Clusters, time.Since(t0).Seconds())
			}}
		var err error
		if labels, err = KLj(g, kopt); err != nil {
			return nil, err
		}
	}
	sol.Seconds = time.Since(t0).Seconds()
	sol.Labels, sol.Energy, sol.Clusters = labels, Energy(g, labels), NumClusters(labels)
	return sol, nil
}

// FilesOptions is one run of `densify multicut` (SolveFiles).
type FilesOptions struct {
	Graph  string // instance file
	Out    string // labels file
	JSON   string // summary JSON ("" = none)
	Start  string // klj: start labels file ("" = GAEC)
	Solve  SolveOptions
	BigLog func(format string, args ...any) // progress lines for instances of ≥ 50,000 edges
}

// FilesResult is the summary of SolveFiles (its JSON).
type FilesResult struct {
	Graph       string  `json:"graph"`
	Labels      string  `json:"labels"`
	Solver      string  `json:"solver"`
	Nodes       int     `json:"nodes"`
	Edges       int     `json:"edges"`
	LiftedEdges int     `json:"lifted_edges"`
	Energy      float64 `json:"energy"`
	Clusters    int     `json:"clusters"`
	Seconds     float64 `json:"seconds"`
	StartEnergy float64 `json:"start_energy,omitempty"`
	Iterations  int     `json:"iterations,omitempty"`
}

// SolveFiles reads the instance (and a start labelling), solves it (Solve)
// and writes the labels and the optional JSON summary, each atomically, both
// or neither.
func SolveFiles(opt FilesOptions) (*FilesResult, error) {
	if opt.Solve.Solver == "" {
		opt.Solve.Solver = "klj"
	}
	if opt.Solve.Solver != "gaec" && opt.Solve.Solver != "klj" {
		return nil, fmt.Errorf("multicut: unknown --solver %q (gaec or klj)", opt.Solve.Solver)
	}
	if opt.Start != "" && opt.Solve.Solver != "klj" {
		return nil, fmt.Errorf("multicut: --start needs --solver klj")
	}
	g, err := ReadGraph(opt.Graph)
	if err != nil {
		return nil, err
	}
	reg, lifted := g.Counts()
	if len(g.Edges) >= 50000 && opt.BigLog != nil {
		opt.Solve.Log = opt.BigLog
		opt.BigLog("multicut: %d nodes, %d edges, %d lifted edges; solving with %s", g.N, reg, lifted, opt.Solve.Solver)
	}
	if opt.Start != "" {
		if opt.Solve.Start, err = ReadLabels(opt.Start, g.N); err != nil {
			return nil, err
		}
	}
	sol, err := Solve(g, opt.Solve)
	if err != nil {
		return nil, err
	}
	r := &FilesResult{Graph: opt.Graph, Labels: opt.Out, Solver: opt.Solve.Solver, Nodes: g.N, Edges: reg, LiftedEdges: lifted,
		Energy: sol.Energy, Clusters: sol.Clusters, Seconds: sol.Seconds, StartEnergy: sol.StartEnergy, Iterations: sol.Iterations}
	// The summary is encoded before anything is written, so that no labels
	// file is left behind when it cannot be (costs are bounded by MaxCost,
	// so energies are finite).
	var js []byte
	if opt.JSON != "" {
		if js, err = json.MarshalIndent(r, "", "  "); err != nil {
			return nil, fmt.Errorf("multicut: summary for %s: %w", opt.JSON, err)
		}
	}
	if err := WriteLabels(opt.Out, sol.Labels); err != nil {
		return nil, err
	}
	if js != nil {
		if err := atomicfile.WriteBytes(opt.JSON, append(js, '\n')); err != nil {
			os.Remove(opt.Out) // both or neither
			return nil, err
		}
	}
	return r, nil
}

package main

import (
	"encoding/json"
	"fmt"
	"image"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/internal/atomicfile"
	"github.com/densify/densify/internal/progress"
	"github.com/densify/densify/motiongraph"
	"github.com/densify/densify/trajectory"
	"github.com/densify/densify/video"
	"github.com/spf13/cobra"
)

var segmentFlags struct {
	tracks, frames, model, solver, out, flow, name string
	beta                                           float64
	minCluster, spacing                            int
	graph                                          costsGraphFlags
}

var segmentCmd = &cobra.Command{
	Use:   "segment (--tracks T.dat | --frames DIR) --out DIR",
	Short: "Motion segmentation of trajectories: graph with calibrated costs → (lifted) multicut → labelled tracks",
	Long: `segment builds the motion graph of the trajectories (K nearest neighbours per frame, costs
c = log((1−p)/p) + log((1−β)/β) from the cost model), solves the minimum cost (lifted) multicut with
GAEC or KLj and writes, into --out:
  <name>Tracks<frames>.dat   the trajectories labelled with their cluster ids
  graph.txt                  the multicut instance (node i = i-th track)
  labels.txt                 one cluster id per line, node order
  segment.json               energy, clusters, nodes, edges, timings, parameters
With --frames the colour feature is used; --frames without --tracks tracks the frames first.`,
	Args: cobra.NoArgs,
	RunE: runSegment,
}

func init() {
	f := segmentCmd.Flags()
	f.StringVar(&segmentFlags.tracks, "tracks", "", "FBMS Tracks*.dat file")
	f.StringVar(&segmentFlags.frames, "frames", "", "frame folder (colour feature; tracked first when --tracks is absent)")
	f.StringVar(&segmentFlags.model, "model", "", "cost model JSON (default: the embedded model)")
	f.StringVar(&segmentFlags.solver, "solver", "klj", "multicut solver: gaec or klj")
	f.Float64Var(&segmentFlags.beta, "beta", 0.5, "prior cut probability β of the cost (seed Eq. 9)")
	f.IntVar(&segmentFlags.minCluster, "min-cluster", 0, "merge clusters of fewer trajectories into their best E-adjacent cluster (0 = off)")
	f.StringVar(&segmentFlags.out, "out", "", "output folder")
	f.StringVar(&segmentFlags.name, "name", "", "sequence name for the output Tracks file (default: from --tracks or --frames)")
	f.StringVar(&segmentFlags.flow, "flow", string(video.DefaultMethod), "optical flow when tracking (farneback|dis)")
	f.IntVar(&segmentFlags.spacing, "spacing", trajectory.DefaultTrackerOptions().Spacing, "tracker grid spacing when tracking (px)")
	addCostsGraphFlags(segmentCmd, &segmentFlags.graph)
	segmentCmd.MarkFlagRequired("out")
	rootCmd.AddCommand(segmentCmd)
}

type segmentReport struct {
	Tracks       string                  `json:"tracks"`
	Model        string                  `json:"model"`
	Solver       string                  `json:"solver"`
	Beta         float64                 `json:"beta"`
	Graph        motiongraph.GraphParams `json:"graph_params"`
	Nodes        int                     `json:"nodes"`
	Edges        int                     `json:"edges"`
	LiftedEdges  int                     `json:"lifted_edges"`
	Energy       float64                 `json:"energy"`
	SolverEnergy float64                 `json:"solver_energy"`
	Clusters     int                     `json:"clusters"`
	SolverClust  int                     `json:"solver_clusters"`
	MergedSmall  int                     `json:"merged_small_clusters"`
	ClusterSizes []int                   `json:"cluster_sizes"`
	Stats        *motiongraph.GraphStats `json:"graph_stats"`
	GraphSeconds float64                 `json:"graph_seconds"`
	SolveSeconds float64                 `json:"solve_seconds"`
	TrackSeconds float64                 `json:"track_seconds,omitempty"`
	TotalSeconds float64                 `json:"total_seconds"`
	OutputTracks string                  `json:"output_tracks"`
}

func runSegment(cmd *cobra.Command, _ []string) error {
	fl := &segmentFlags
	t0 := time.Now()
	if fl.tracks == "" && fl.frames == "" {
		return fmt.Errorf("segment: give --tracks or --frames")
	}
	if err := motiongraph.CheckBeta(fl.beta); err != nil {
		return err
	}
	opt := motiongraph.DefaultSegmentOptions()
	opt.Graph = fl.graph.params(fl.beta)
	opt.Solver = fl.solver
	opt.MinClusterSize = fl.minCluster
	modelName := "embedded default"
	if fl.model != "" {
		m, err := motiongraph.LoadCostModel(fl.model)
		if err != nil {
			return err
		}
		opt.Model = m
		modelName = fl.model
	}
	var paths []string
	if fl.frames != "" {
		var err error
		if paths, err = dataset.ListFrames(fl.frames); err != nil {
			return err
		}
		if len(paths) == 0 {
			return fmt.Errorf("%s: no frames", fl.frames)
		}
	}
	name := fl.name
	var ts *trajectory.TrackSet
	trackSecs := 0.0
	if fl.tracks != "" {
		var err error
		if ts, err = trajectory.ReadTracks(fl.tracks); err != nil {
			return err
		}
		if name == "" {
			base := filepath.Base(fl.tracks)
			if m := costsTracksRE.FindStringSubmatch(base); m != nil {
				name = m[1]
			} else {
				name = strings.TrimSuffix(base, filepath.Ext(base))
			}
		}
	} else {
		method, err := video.ParseMethod(fl.flow)
		if err != nil {
			return err
		}
		to := trajectory.DefaultTrackerOptions()
		to.Spacing = fl.spacing
		t1 := time.Now()
		if ts, err = video.TrackSequence(paths, to, method, progress.Func(os.Stderr, "track")); err != nil {
			return err
		}
		trackSecs = time.Since(t1).Seconds()
	}
	if name == "" {
		name = filepath.Base(filepath.Clean(fl.frames))
	}
	var imgs []image.Image
	if paths != nil {
		if len(paths) < ts.Frames {
			return fmt.Errorf("%s: %d frames, the tracks have %d", fl.frames, len(paths), ts.Frames)
		}
		var err error
		if imgs, err = costsReadFrames(paths); err != nil {
			return err
		}
	}
	res, err := motiongraph.Segment(ts, imgs, opt)
	if err != nil {
		return err
	}
	outTracks := filepath.Join(fl.out, fmt.Sprintf("%sTracks%d.dat", name, ts.Frames))
	rep := segmentReport{
		Tracks: fl.tracks, Model: modelName, Solver: opt.Solver, Beta: fl.beta, Graph: opt.Graph,
		Nodes: res.Graph.N, Edges: res.Stats.Edges, LiftedEdges: res.Stats.LiftedEdges,
		Energy: res.Energy, SolverEnergy: res.SolverEnergy, Clusters: res.Clusters, SolverClust: res.SolverCluster,
		MergedSmall: res.MergedSmall, ClusterSizes: res.ClusterSizes(), Stats: res.Stats,
		GraphSeconds: res.GraphSeconds, SolveSeconds: res.SolveSeconds, TrackSeconds: trackSecs,
		OutputTracks: outTracks,
	}
	rep.TotalSeconds = time.Since(t0).Seconds()
	// write everything; a failure leaves no partially written file (each write is atomic)
	if err := res.Write(ts, outTracks, filepath.Join(fl.out, "graph.txt"), filepath.Join(fl.out, "labels.txt")); err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(fl.out, "segment.json"), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}); err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "%s: %d tracks, %d edges (+%d lifted), %d clusters (%d merged), energy %.3f; graph %.2fs, solve %.2fs → %s\n",
		name, res.Graph.N, res.Stats.Edges, res.Stats.LiftedEdges, res.Clusters, res.MergedSmall, res.Energy,
		res.GraphSeconds, res.SolveSeconds, outTracks)
	return nil
}

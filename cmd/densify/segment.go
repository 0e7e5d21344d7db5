package main

import (
	"fmt"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/internal/logit"
	"github.com/densify/densify/internal/progress"
	"github.com/densify/densify/motiongraph"
	"github.com/densify/densify/trajectory"
	"github.com/densify/densify/video"
	"github.com/spf13/cobra"
)

type segmentOptions struct {
	IO                                       *IOStreams
	Tracker                                  trajectory.SequenceTracker
	Tracks, Frames, Model, Solver, Out, Flow string
	Name                                     string
	Beta                                     float64
	MinCluster, Spacing                      int
	BackgroundSplit                          float64
	Graph                                    graphFlags
}

func NewCmdSegment(f *Factory) *cobra.Command {
	o := &segmentOptions{IO: f.IO, Tracker: f.Tracker}
	cmd := &cobra.Command{
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
		RunE: func(*cobra.Command, []string) error { return runSegment(o) },
	}
	cmd.Example = segmentExample
	fl := cmd.Flags()
	fl.StringVar(&o.Tracks, "tracks", "", "FBMS Tracks*.dat file")
	fl.StringVar(&o.Frames, "frames", "", "frame folder (colour feature; tracked first when --tracks is absent)")
	fl.StringVar(&o.Model, "model", "", "cost model: a JSON file from fit-costs or an embedded model by name (davis, synthetic; default davis)")
	fl.StringVar(&o.Solver, "solver", "klj", "multicut solver: gaec or klj")
	fl.Float64Var(&o.Beta, "beta", 0.5, "prior cut probability β of the cost (Kardoost & Keuper, UAI 2021, Eq. 9)")
	fl.IntVar(&o.MinCluster, "min-cluster", 0, "merge clusters of fewer trajectories into their best E-adjacent cluster (0 = off)")
	fl.Float64Var(&o.BackgroundSplit, "background-split", motiongraph.DefaultBackgroundSplit, "re-segment background clusters with costs lowered by this logit shift; parts the camera does not explain become clusters (0 = off)")
	fl.StringVar(&o.Out, "out", "", "output folder")
	fl.StringVar(&o.Name, "name", "", "sequence name for the output Tracks file, a name, not a path (default: from --tracks or --frames)")
	fl.StringVar(&o.Flow, "flow", string(video.DefaultMethod), "optical flow when tracking (farneback|dis)")
	fl.IntVar(&o.Spacing, "spacing", trajectory.DefaultTrackerOptions().Spacing, "tracker grid spacing when tracking (px)")
	o.Graph.bind(fl)
	cmd.MarkFlagRequired("out")
	return cmd
}

func runSegment(o *segmentOptions) error {
	if o.Tracks == "" && o.Frames == "" {
		return fmt.Errorf("segment: give --tracks or --frames")
	}
	if err := logit.CheckBeta(o.Beta); err != nil {
		return err
	}
	fo := motiongraph.FilesOptions{Tracks: o.Tracks, FramesDir: o.Frames, Name: o.Name, Out: o.Out,
		Segment: motiongraph.DefaultSegmentOptions(), ModelName: o.Model, Tracker: o.Tracker,
		TrackerOptions: trajectory.DefaultTrackerOptions(), Progress: progress.Func(o.IO.ErrOut, "track")}
	fo.Segment.Graph, fo.Segment.Solver, fo.Segment.MinClusterSize = o.Graph.params(o.Beta), o.Solver, o.MinCluster
	fo.Segment.BackgroundSplit = o.BackgroundSplit
	fo.TrackerOptions.Spacing = o.Spacing
	if o.Model != "" {
		m, err := motiongraph.LoadCostModel(o.Model)
		if err != nil {
			return err
		}
		fo.Segment.Model = m
	}
	if o.Tracks == "" {
		m, err := video.ParseMethod(o.Flow)
		if err != nil {
			return err
		}
		fo.Flow = string(m)
	}
	if o.Frames != "" {
		paths, err := dataset.ListFrames(o.Frames)
		if err != nil {
			return err
		}
		if len(paths) == 0 {
			return fmt.Errorf("%s: no frames", o.Frames)
		}
		fo.Frames = paths
	}
	r, err := motiongraph.SegmentFiles(fo)
	if err != nil {
		return err
	}
	fmt.Fprintf(o.IO.Out, "%s: %d tracks, %d edges (+%d lifted), %d clusters (%d merged), energy %.3f; graph %.2fs, solve %.2fs → %s\n",
		r.Name, r.Nodes, r.Edges, r.LiftedEdges, r.Clusters, r.MergedSmall, r.Energy, r.GraphSeconds, r.SolveSeconds, r.OutputTracks)
	return nil
}

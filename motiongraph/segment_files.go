package motiongraph

import (
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"time"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/internal/atomicfile"
	"github.com/densify/densify/internal/logit"
	"github.com/densify/densify/internal/pathcheck"
	"github.com/densify/densify/trajectory"
)

// FilesOptions is one run of the segmentation stage on files (SegmentFiles).
type FilesOptions struct {
	// Tracks is the Tracks file to segment; "" tracks Frames with Tracker.
	Tracks string
	// Frames are the frame paths of the sequence (colour feature; tracked
	// when Tracks is ""); nil: no colour feature. FramesDir names them in
	// messages and gives the default sequence name.
	Frames    []string
	FramesDir string
	// Name is the sequence name of the labelled output Tracks file ("" = from
	// the Tracks file name, else the frame folder's name).
	Name string
	// Out is the output folder.
	Out string
	// Segment holds the graph, cost model and solver; ModelName names the
	// cost model in the report ("" = "embedded default").
	Segment   SegmentOptions
	ModelName string
	// Tracker, its options, the flow method and progress, for Tracks = "".
	Tracker        trajectory.SequenceTracker
	TrackerOptions trajectory.TrackerOptions
	Flow           string
	Progress       func(done, total int)
}

// SegmentReport is the outcome of SegmentFiles, written as <out>/segment.json.
type SegmentReport struct {
	Tracks      string      `json:"tracks"`
	Model       string      `json:"model"`
	Solver      string      `json:"solver"`
	Beta        float64     `json:"beta"`
	Graph       GraphParams `json:"graph_params"`
	Nodes       int         `json:"nodes"`
	Edges       int         `json:"edges"`
	LiftedEdges int         `json:"lifted_edges"`
	// Energy is the energy of the returned labels on graph.txt (the
	// graph they are a local optimum of, SegmentResult.Graph), MotionEnergy
	// theirs on the motion graph and SolverEnergy the solver's labelling's
	// on the motion graph; DescentMoves the single-node moves that made
	// the labels a local optimum of graph.txt.
	Energy       float64     `json:"energy"`
	MotionEnergy float64     `json:"motion_graph_energy"`
	SolverEnergy float64     `json:"solver_energy"`
	DescentMoves int         `json:"descent_moves"`
	Clusters     int         `json:"clusters"`
	SolverClust  int         `json:"solver_clusters"`
	MergedSmall  int         `json:"merged_small_clusters"`
	ClusterSizes []int       `json:"cluster_sizes"`
	Stats        *GraphStats `json:"graph_stats"`
	GraphSeconds float64     `json:"graph_seconds"`
	SolveSeconds float64     `json:"solve_seconds"`
	TrackSeconds float64     `json:"track_seconds,omitempty"`
	TotalSeconds float64     `json:"total_seconds"`
	OutputTracks string      `json:"output_tracks"`
	Name         string      `json:"name"`
	TrackFrames  int         `json:"track_frames"`
	// SmallShare is the share of trajectories in clusters of fewer than 20.
	SmallShare float64 `json:"small_cluster_share"`
	// Camera is the camera-motion evidence per cluster; Background the
	// clusters it explains (the background of the training labels).
	Camera     []ClusterCamera `json:"camera_clusters"`
	Background []int           `json:"background_clusters"`
	// BackgroundSplit is the logit shift δ of the background
	// re-segmentation (0: off) and BackgroundParts the parts of background
	// clusters it made clusters of their own (SplitBackground).
	BackgroundSplit float64          `json:"background_split"`
	BackgroundParts []BackgroundPart `json:"background_parts"`
	// CameraResiduals names the file (in the same folder) that holds every
	// trajectory's median camera residual (CameraResidualsFile).
	CameraResiduals string `json:"camera_residuals,omitempty"`
}

// SegmentFiles is the segmentation stage of `densify segment` and of the
// pipeline: it reads (or tracks) the trajectories, reads the frames for the
// colour feature, runs Segment and writes into opt.Out
//
//	<name>Tracks<frames>.dat   the trajectories labelled with their cluster ids
//	graph.txt                  the multicut instance (node i = i-th track)
//	labels.txt                 one cluster id per line, node order
//	camera.csv                 every trajectory's median and upper-quartile camera residual
//	segment.json               the SegmentReport
//
// each atomically, after everything was computed; when one cannot be
// written, the others of the call are removed (no partial output). A
// given Name must be a name, not a path (pathcheck.Name).
func SegmentFiles(opt FilesOptions) (*SegmentReport, error) {
	t0 := time.Now()
	if opt.Tracks == "" && opt.Frames == nil {
		return nil, errors.New("segment: give a Tracks file or frames")
	}
	if err := logit.CheckBeta(opt.Segment.Graph.Beta); err != nil {
		return nil, err
	}
	name := opt.Name
	if name != "" {
		// The name is part of an output file name in opt.Out.
		if err := pathcheck.Name("--name", name); err != nil {
			return nil, err
		}
	}
	var ts *trajectory.TrackSet
	trackSecs := 0.0
	if opt.Tracks != "" {
		var err error
		if ts, err = trajectory.ReadTracks(opt.Tracks); err != nil {
			return nil, err
		}
		if name == "" {
			name, _, _ = trajectory.SequenceName(opt.Tracks)
		}
	} else {
		if opt.Tracker == nil {
			return nil, errors.New("segment: no tracker to track the frames")
		}
		t1 := time.Now()
		var err error
		if ts, err = opt.Tracker.TrackSequence(opt.Frames, opt.TrackerOptions, opt.Flow, opt.Progress); err != nil {
			return nil, err
		}
		trackSecs = time.Since(t1).Seconds()
	}
	if name == "" {
		name = filepath.Base(filepath.Clean(opt.FramesDir))
	}
	var imgs []image.Image
	if opt.Frames != nil {
		if len(opt.Frames) < ts.Frames {
			return nil, fmt.Errorf("%s: %d frames, the tracks have %d", opt.FramesDir, len(opt.Frames), ts.Frames)
		}
		// Geometry before reading every frame: tracks of another sequence.
		w, h, err := dataset.ImageSize(opt.Frames[0])
		if err != nil {
			return nil, err
		}
		if opt.Tracks != "" {
			if err := ts.CheckBounds(opt.Tracks, w, h); err != nil {
				return nil, fmt.Errorf("%w (frames in %s)", err, opt.FramesDir)
			}
		}
		imgs = make([]image.Image, ts.Frames)
		for i := range imgs {
			var err error
			if imgs[i], err = dataset.ReadImage(opt.Frames[i]); err != nil {
				return nil, err
			}
		}
	}
	res, err := Segment(ts, imgs, opt.Segment)
	if err != nil {
		return nil, err
	}
	model := opt.ModelName
	if model == "" {
		model = "embedded default"
	}
	outTracks := filepath.Join(opt.Out, trajectory.TracksFileName(name, ts.Frames))
	rep := &SegmentReport{
		Tracks: opt.Tracks, Model: model, Solver: res.SolverName, Beta: opt.Segment.Graph.Beta, Graph: opt.Segment.Graph,
		Nodes: res.Graph.N, Edges: res.Stats.Edges, LiftedEdges: res.Stats.LiftedEdges,
		Energy: res.Energy, MotionEnergy: res.MotionEnergy, SolverEnergy: res.SolverEnergy, DescentMoves: res.DescentMoves, Clusters: res.Clusters, SolverClust: res.SolverCluster,
		MergedSmall: res.MergedSmall, ClusterSizes: res.ClusterSizes(), Stats: res.Stats,
		GraphSeconds: res.GraphSeconds, SolveSeconds: res.SolveSeconds, TrackSeconds: trackSecs,
		OutputTracks: outTracks, Name: name, TrackFrames: ts.Frames,
		SmallShare: res.SmallShare(20), Camera: res.Camera, Background: res.Background,
		BackgroundSplit: opt.Segment.BackgroundSplit, BackgroundParts: res.BackgroundParts,
		CameraResiduals: CameraResidualsFile,
	}
	// The report is encoded before the first file is written, and a failed
	// write removes the files of this call: the outputs are written all
	// together or not at all.
	source := opt.Tracks
	if source == "" {
		source = opt.FramesDir
	}
	if _, err := json.Marshal(rep); err != nil {
		return nil, fmt.Errorf("%s: the segmentation cannot be reported (segment.json): %w", source, err)
	}
	graphPath, labelsPath := filepath.Join(opt.Out, "graph.txt"), filepath.Join(opt.Out, "labels.txt")
	camPath, repPath := filepath.Join(opt.Out, CameraResidualsFile), filepath.Join(opt.Out, "segment.json")
	err = res.Write(ts, outTracks, graphPath, labelsPath)
	if err == nil {
		err = WriteCameraResiduals(camPath, res.CameraResidual)
	}
	if err == nil {
		rep.TotalSeconds = time.Since(t0).Seconds()
		err = atomicfile.WriteJSON(repPath, rep)
	}
	if err != nil {
		for _, p := range []string{outTracks, graphPath, labelsPath, camPath, repPath} {
			os.Remove(p)
		}
		return nil, err
	}
	return rep, nil
}

package video

import (
	"fmt"
	"image"
	"io"
	"math"
	"os"
	"time"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/internal/atomicfile"
	"github.com/densify/densify/internal/progress"
	"github.com/densify/densify/trajectory"
)

// TrackFilesOptions is one run of `densify track` (TrackFiles).
type TrackFilesOptions struct {
	Frames      string // folder of numbered frames
	Out         string // output Tracks file
	Method      Method
	Tracker     trajectory.TrackerOptions
	Vis         string // PNG of frame VisFrame with its track points ("" = none)
	VisFrame    int
	Stats       string // JSON statistics ("" = none)
	Annotations string // DAVIS annotation folder: object coverage in the statistics
	// Flows, if set, is a folder that also receives every pair's forward
	// and backward flow (trajectory.FlowStore), for the temporal fusion of
	// predict (densify predict --flows); it is replaced as a whole.
	Flows string
	Log   io.Writer
}

// TrackFilesResult is the outcome of TrackFiles.
type TrackFilesResult struct {
	Frames          int
	Stats           TrackStats
	Tracker         trajectory.TrackerStats
	Seconds         float64
	FramesPerSecond float64
}

// TrackFiles checks every frame (present, decodable, same size), tracks them
// (TrackSequence's flow and tracker, progress on opt.Log) and writes the
// Tracks file and the optional statistics and visualisation, each
// atomically, all of them or none.
func TrackFiles(opt TrackFilesOptions) (*TrackFilesResult, error) {
	if _, err := ParseMethod(string(opt.Method)); err != nil {
		return nil, err
	}
	if err := opt.Tracker.Validate(); err != nil {
		return nil, err
	}
	paths, err := dataset.ListFrames(opt.Frames)
	if err != nil {
		return nil, err
	}
	if len(paths) < 2 {
		return nil, fmt.Errorf("%s: tracking needs at least 2 frames, found %d", opt.Frames, len(paths))
	}
	if opt.Vis != "" && (opt.VisFrame < 0 || opt.VisFrame >= len(paths)) {
		return nil, fmt.Errorf("--vis-frame %d outside 0…%d", opt.VisFrame, len(paths)-1)
	}
	var gt *dataset.GroundTruth
	if opt.Annotations != "" {
		if gt, err = dataset.ReadDAVISAnnotations(opt.Annotations); err != nil {
			return nil, err
		}
	}
	log := opt.Log
	if log == nil {
		log = io.Discard
	}
	start := time.Now()
	fmt.Fprintf(log, "track: %d frames from %s, flow %s\n", len(paths), opt.Frames, opt.Method)
	frames, err := ReadFrames(paths)
	if err != nil {
		return nil, err
	}
	keep, err := keepFlows(opt.Flows, paths, opt.Method, frames[0].Bounds().Dx(), frames[0].Bounds().Dy())
	if err != nil {
		return nil, err
	}
	ts, st, err := TrackKeeping(frames, opt.Tracker, opt.Method, keep, progress.Func(log, "track"))
	if err != nil {
		if opt.Flows != "" {
			trajectory.RemoveFlowStore(opt.Flows)
		}
		return nil, err
	}
	w, h := frames[0].Bounds().Dx(), frames[0].Bounds().Dy()
	if len(ts.Tracks) == 0 {
		return nil, fmt.Errorf("%s: no trajectory of at least %d frames (textureless frames or inconsistent flow)", opt.Frames, opt.Tracker.MinLength)
	}
	secs := time.Since(start).Seconds()
	res := &TrackFilesResult{Frames: len(paths), Stats: Stats(ts, w, h, opt.Tracker.Spacing, gt), Tracker: st,
		Seconds: secs, FramesPerSecond: float64(len(paths)-1) / secs}
	var vis image.Image
	if opt.Vis != "" {
		img, err := dataset.ReadImage(paths[opt.VisFrame])
		if err != nil {
			return nil, err
		}
		vis = DrawTracks(img, ts, opt.VisFrame)
	}
	// All outputs or none: a failed write removes the files of this call.
	err = trajectory.WriteTracks(opt.Out, ts)
	if err == nil && opt.Stats != "" {
		err = writeTrackStats(opt, res)
	}
	if err == nil && vis != nil {
		err = atomicfile.WritePNG(opt.Vis, vis)
	}
	if err != nil {
		for _, p := range []string{opt.Out, opt.Stats, opt.Vis} {
			if p != "" {
				os.Remove(p)
			}
		}
		return nil, err
	}
	return res, nil
}

func writeTrackStats(opt TrackFilesOptions, r *TrackFilesResult) error {
	s, st := r.Stats, r.Tracker
	var cov any // null without annotations
	if !math.IsNaN(s.ObjectCoverage) {
		cov = s.ObjectCoverage
	}
	rep := map[string]any{"frames_dir": opt.Frames, "flow": opt.Method, "options": opt.Tracker, "tracks": s.Tracks, "frames": s.Frames,
		"mean_length": s.MeanLength, "median_length": s.MedianLength, "density": s.Density, "object_coverage": cov,
		"seeded": st.Seeded, "dropped_short": st.Dropped,
		"stopped": map[string]int{"inconsistent": st.Stopped[trajectory.StopInconsistent], "motion_boundary": st.Stopped[trajectory.StopBoundary], "appearance": st.Stopped[trajectory.StopAppearance],
			"left_image": st.Stopped[trajectory.StopLeftImage], "last_frame": st.Stopped[trajectory.StopLastFrame]},
		"seconds": r.Seconds, "frames_per_second": r.FramesPerSecond}
	return atomicfile.WriteJSON(opt.Stats, rep)
}

// keepFlows makes a flow store at dir for the frames (paths, w×h) and
// method and returns the function that puts a pair's flows into it (nil
// when dir is "").
func keepFlows(dir string, paths []string, method Method, w, h int) (func(t int, fwd, bwd *trajectory.FlowField) error, error) {
	if dir == "" {
		return nil, nil
	}
	m, err := trajectory.NewFlowManifest(paths, DenseFlow{Method: method}.Description(), w, h)
	if err != nil {
		return nil, err
	}
	store, err := trajectory.CreateFlowStore(dir, m)
	if err != nil {
		return nil, err
	}
	return store.PutPair, nil
}

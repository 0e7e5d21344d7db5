package main

import (
	"fmt"

	"github.com/densify/densify/trajectory"
	"github.com/densify/densify/video"
	"github.com/spf13/cobra"
)

type trackOptions struct {
	IO    *IOStreams
	Track video.TrackFilesOptions
	Flow  string
}

func NewCmdTrack(f *Factory) *cobra.Command {
	o := &trackOptions{IO: f.IO, Track: video.TrackFilesOptions{Tracker: trajectory.DefaultTrackerOptions()}}
	cmd := &cobra.Command{
		Use:   "track --frames DIR --out Tracks.dat",
		Short: "Point trajectories from dense optical flow (Brox & Malik ECCV'10), written as an FBMS Tracks file",
		Long: `track computes forward and backward optical flow between consecutive frames, starts points on a
grid where the image has structure (smaller structure-tensor eigenvalue λ_min > threshold·mean λ_min),
propagates them with bilinear sub-pixel flow and stops them at forward/backward inconsistencies
(|w+ŵ|² > 0.01(|w|²+|ŵ|²)+0.5) and motion boundaries (|∇u|²+|∇v|² > 0.01|w|²+0.002), as in
Sundaram, Brox, Keutzer ECCV'10. --appearance τ (off by default) also stops a point whose 5×5 patch
changes from one frame to the next by more than τ times its contrast (Shi & Tomasi CVPR'94), as
points do that the flow carries over another surface. All frames are checked (present, decodable, same size) before any work;
the output is written atomically (all labels 0).`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return runTrack(o) },
	}
	cmd.Example = trackExample
	fl, t := cmd.Flags(), &o.Track
	fl.StringVar(&t.Frames, "frames", "", "folder of numbered frames (jpg/png/ppm)")
	fl.StringVar(&t.Out, "out", "", "output FBMS Tracks file")
	fl.StringVar(&o.Flow, "flow", string(video.DefaultMethod), "optical flow: farneback or dis")
	fl.IntVar(&t.Tracker.Spacing, "spacing", t.Tracker.Spacing, "grid spacing of new points (px)")
	fl.IntVar(&t.Tracker.MinLength, "min-length", t.Tracker.MinLength, "drop trajectories with fewer frames")
	fl.Float64Var(&t.Tracker.StructureThreshold, "threshold", t.Tracker.StructureThreshold, "start points where λ_min > threshold · mean λ_min of the frame")
	fl.Float64Var(&t.Tracker.ConsistencyRel, "consistency-rel", t.Tracker.ConsistencyRel, "forward–backward check: stop a point where |w+ŵ|² > this·(|w|²+|ŵ|²) + --consistency-abs")
	fl.Float64Var(&t.Tracker.ConsistencyAbs, "consistency-abs", t.Tracker.ConsistencyAbs, "forward–backward check: the absolute term (px²)")
	fl.Float64Var(&t.Tracker.BoundaryRel, "boundary-rel", t.Tracker.BoundaryRel, "motion-boundary check: stop a point where |∇u|²+|∇v|² > this·|w|² + --boundary-abs")
	fl.Float64Var(&t.Tracker.BoundaryAbs, "boundary-abs", t.Tracker.BoundaryAbs, "motion-boundary check: the absolute term (negative: no motion-boundary check)")
	fl.Float64Var(&t.Tracker.Appearance, "appearance", t.Tracker.Appearance, "appearance check: stop a point whose 5×5 patch changes by more than this times its contrast from one frame to the next (0: no appearance check)")
	fl.StringVar(&t.Vis, "vis", "", "also write a PNG of one frame with its track points (colour = track length)")
	fl.IntVar(&t.VisFrame, "vis-frame", 0, "frame drawn by --vis (0-based)")
	fl.StringVar(&t.Stats, "stats", "", "also write JSON statistics (tracks, lengths, density, stop reasons)")
	fl.StringVar(&t.Annotations, "annotations", "", "DAVIS annotation folder: adds object coverage to --stats")
	fl.StringVar(&t.Flows, "flows", "", "also keep every pair's forward and backward flow in this folder (replaced as a whole), which predict --flows reads instead of computing them again (about 3.3 MB per flow at 854×480)")
	cmd.MarkFlagRequired("frames")
	cmd.MarkFlagRequired("out")
	return cmd
}

func runTrack(o *trackOptions) error {
	m, err := video.ParseMethod(o.Flow)
	if err != nil {
		return err
	}
	o.Track.Method, o.Track.Log = m, o.IO.ErrOut
	r, err := video.TrackFiles(o.Track)
	if err != nil {
		return err
	}
	s := r.Stats
	fmt.Fprintf(o.IO.ErrOut, "track: %d trajectories (mean length %.1f, density %.3f) in %.1f s (%.2f frames/s) → %s\n",
		s.Tracks, s.MeanLength, s.Density, r.Seconds, r.FramesPerSecond, o.Track.Out)
	return nil
}

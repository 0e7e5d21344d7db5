package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/internal/atomicfile"
	"github.com/densify/densify/internal/progress"
	"github.com/densify/densify/trajectory"
	"github.com/densify/densify/video"
	"github.com/spf13/cobra"
)

var trackFlags struct {
	frames, out, flow, vis, stats, annotations string
	spacing, minLength, visFrame               int
	threshold                                  float64
}

var trackCmd = &cobra.Command{
	Use:   "track --frames DIR --out Tracks.dat",
	Short: "Point trajectories from dense optical flow (Brox & Malik ECCV'10), written as an FBMS Tracks file",
	Long: `track computes forward and backward optical flow between consecutive frames, seeds points on a
grid where the image has structure (smaller structure-tensor eigenvalue λ_min > threshold·mean λ_min),
propagates them with bilinear sub-pixel flow and stops them at forward/backward inconsistencies
(|w+ŵ|² > 0.01(|w|²+|ŵ|²)+0.5) and motion boundaries (|∇u|²+|∇v|² > 0.01|w|²+0.002), as in
Sundaram, Brox, Keutzer ECCV'10. All frames are checked (present, decodable, same size) before any work;
the output is written atomically (all labels 0).`,
	Args: cobra.NoArgs,
	RunE: runTrack,
}

func init() {
	d := trajectory.DefaultTrackerOptions()
	f := trackCmd.Flags()
	f.StringVar(&trackFlags.frames, "frames", "", "folder of numbered frames (jpg/png/ppm)")
	f.StringVar(&trackFlags.out, "out", "", "output FBMS Tracks file")
	f.StringVar(&trackFlags.flow, "flow", string(video.DefaultMethod), "optical flow: farneback or dis")
	f.IntVar(&trackFlags.spacing, "spacing", d.Spacing, "seeding grid spacing (px)")
	f.IntVar(&trackFlags.minLength, "min-length", d.MinLength, "drop trajectories with fewer frames")
	f.Float64Var(&trackFlags.threshold, "threshold", d.StructureThreshold, "seed where λ_min > threshold · mean λ_min of the frame")
	f.StringVar(&trackFlags.vis, "vis", "", "also write a PNG of one frame with its track points (colour = track length)")
	f.IntVar(&trackFlags.visFrame, "vis-frame", 0, "frame drawn by --vis (0-based)")
	f.StringVar(&trackFlags.stats, "stats", "", "also write JSON statistics (tracks, lengths, density, stop reasons)")
	f.StringVar(&trackFlags.annotations, "annotations", "", "DAVIS annotation folder: adds object coverage to --stats")
	trackCmd.MarkFlagRequired("frames")
	trackCmd.MarkFlagRequired("out")
	rootCmd.AddCommand(trackCmd)
}

func runTrack(cmd *cobra.Command, _ []string) error {
	fl := trackFlags
	method, err := video.ParseMethod(fl.flow)
	if err != nil {
		return err
	}
	opt := trajectory.DefaultTrackerOptions()
	opt.Spacing, opt.MinLength, opt.StructureThreshold = fl.spacing, fl.minLength, fl.threshold
	if err := opt.Validate(); err != nil {
		return err
	}
	paths, err := dataset.ListFrames(fl.frames)
	if err != nil {
		return err
	}
	if len(paths) < 2 {
		return fmt.Errorf("%s: tracking needs at least 2 frames, found %d", fl.frames, len(paths))
	}
	if fl.vis != "" && (fl.visFrame < 0 || fl.visFrame >= len(paths)) {
		return fmt.Errorf("--vis-frame %d outside 0…%d", fl.visFrame, len(paths)-1)
	}
	var gt *dataset.GroundTruth
	if fl.annotations != "" {
		if gt, err = dataset.ReadDAVISAnnotations(fl.annotations); err != nil {
			return err
		}
	}
	start := time.Now()
	fmt.Fprintf(os.Stderr, "track: %d frames from %s, flow %s\n", len(paths), fl.frames, method)
	frames, err := video.ReadFrames(paths)
	if err != nil {
		return err
	}
	ts, st, err := video.Track(frames, opt, method, progress.Func(os.Stderr, "track"))
	if err != nil {
		return err
	}
	w, h := frames[0].Bounds().Dx(), frames[0].Bounds().Dy()
	if len(ts.Tracks) == 0 {
		return fmt.Errorf("%s: no trajectory of at least %d frames (textureless frames or inconsistent flow)", fl.frames, opt.MinLength)
	}
	if err := trajectory.WriteTracks(fl.out, ts); err != nil {
		return err
	}
	s := video.Stats(ts, w, h, opt.Spacing, gt)
	secs := time.Since(start).Seconds()
	fmt.Fprintf(os.Stderr, "track: %d trajectories (mean length %.1f, density %.3f) in %.1f s (%.2f frames/s) → %s\n",
		s.Tracks, s.MeanLength, s.Density, secs, float64(len(paths)-1)/secs, fl.out)
	if fl.stats != "" {
		var cov any // null without annotations
		if !math.IsNaN(s.ObjectCoverage) {
			cov = s.ObjectCoverage
		}
		rep := map[string]any{"frames_dir": fl.frames, "flow": method, "options": opt, "tracks": s.Tracks, "frames": s.Frames,
			"mean_length": s.MeanLength, "median_length": s.MedianLength, "density": s.Density, "object_coverage": cov,
			"seeded": st.Seeded, "dropped_short": st.Dropped,
			"stopped": map[string]int{"inconsistent": st.Stopped[trajectory.StopInconsistent], "motion_boundary": st.Stopped[trajectory.StopBoundary],
				"left_image": st.Stopped[trajectory.StopLeftImage], "last_frame": st.Stopped[trajectory.StopLastFrame]},
			"seconds": secs, "frames_per_second": float64(len(paths)-1) / secs}
		if err := atomicfile.Write(fl.stats, func(w io.Writer) error {
			e := json.NewEncoder(w)
			e.SetIndent("", "  ")
			return e.Encode(rep)
		}); err != nil {
			return err
		}
	}
	if fl.vis != "" {
		img, err := dataset.ReadImage(paths[fl.visFrame])
		if err != nil {
			return err
		}
		out := video.DrawTracks(img, ts, fl.visFrame)
		if err := atomicfile.WritePNG(fl.vis, out); err != nil {
			return err
		}
	}
	return nil
}

package trainset

import (
	"fmt"
	"image"
	"path/filepath"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/trajectory"
	"github.com/densify/densify/uncertainty"
)

// PrepareFiles is Prepare on files: the frames folder of a sequence (FBMS or
// DAVIS naming), a labelled Tracks*.dat and the uncertainty CSV of `densify
// uncertainty` (empty path: no uncertainty, so no hard examples). The set is
// written to outDir (replacing an older one only once complete). residual
// and upper are Input.CameraResidual and CameraResidualUpper (nil: none;
// see Options.BackgroundResidual).
func PrepareFiles(framesDir, tracksPath, uncertaintyPath string, residual, upper []float64, outDir string, opt Options) (*Set, error) {
	return prepareFiles(framesDir, tracksPath, uncertaintyPath, residual, upper, nil, outDir, opt)
}

// PrepareOracleFiles is PrepareFiles with the trajectories labelled by the
// ground truth gt instead of their clusters (OracleTracks; the background is
// region 0, no uncertainty, so no hard examples). The manifest records
// Options.Oracle.
func PrepareOracleFiles(framesDir, tracksPath string, gt *dataset.GroundTruth, outDir string, opt Options) (*Set, error) {
	if gt == nil {
		return nil, fmt.Errorf("%s: oracle labels need the ground truth", tracksPath)
	}
	opt.Oracle, opt.Background, opt.BackgroundClusters, opt.CameraBackground = true, -1, []int{0}, nil
	opt.ColourWindow = 0 // the ground truth's labels need no colour check
	return prepareFiles(framesDir, tracksPath, "", nil, nil, gt, outDir, opt)
}

func prepareFiles(framesDir, tracksPath, uncertaintyPath string, residual, upper []float64, oracle *dataset.GroundTruth, outDir string, opt Options) (*Set, error) {
	frames, err := dataset.ListFrames(framesDir)
	if err != nil {
		return nil, err
	}
	ts, err := trajectory.ReadTracks(tracksPath)
	if err != nil {
		return nil, err
	}
	if ts.Frames > len(frames) {
		return nil, fmt.Errorf("%s: tracks cover %d frames but %s has only %d", tracksPath, ts.Frames, framesDir, len(frames))
	}
	w, h, err := dataset.CheckSameSize(frames[:ts.Frames])
	if err != nil {
		return nil, err
	}
	var u []float64
	if uncertaintyPath != "" {
		labels := make([]int, len(ts.Tracks))
		for i, t := range ts.Tracks {
			labels[i] = t.Label
		}
		if u, err = uncertainty.ReadCSVFor(uncertaintyPath, labels); err != nil {
			return nil, err
		}
	}
	if oracle != nil {
		if ts, _, err = OracleTracks(ts, oracle); err != nil {
			return nil, fmt.Errorf("%s: %w", tracksPath, err)
		}
		if !hasBackgroundTrack(ts) {
			return nil, fmt.Errorf("%s: oracle labels: no trajectory lies on the ground truth's background", tracksPath)
		}
	}
	frame := func(f int) (image.Image, error) {
		img, err := dataset.ReadImage(frames[f])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", frames[f], err)
		}
		return img, nil
	}
	set, err := Prepare(Input{Tracks: ts, Uncertainty: u, CameraResidual: residual, CameraResidualUpper: upper, Width: w, Height: h, Frame: frame}, opt)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", tracksPath, err)
	}
	abs := func(p string) string {
		if a, err := filepath.Abs(p); err == nil {
			return a
		}
		return p
	}
	src := map[string]string{"frames": abs(framesDir), "tracks": abs(tracksPath)}
	if uncertaintyPath != "" {
		src["uncertainty"] = abs(uncertaintyPath)
	}
	if oracle != nil {
		src["oracle_ground_truth"] = abs(oracle.Path)
	}
	err = set.Write(outDir, func(f int) string { return abs(frames[f]) }, dataset.ReadImage, src)
	return set, err
}

// hasBackgroundTrack reports whether some trajectory has label 0 (the background).
func hasBackgroundTrack(ts *trajectory.TrackSet) bool {
	for _, t := range ts.Tracks {
		if t.Label == 0 {
			return true
		}
	}
	return false
}

// Summary counts a prepared set: what `densify prepare` prints and the
// pipeline records.
type Summary struct {
	Frames       int   `json:"frames"`
	Width        int   `json:"width"`
	Height       int   `json:"height"`
	Classes      int   `json:"classes"`
	ClassCounts  []int `json:"class_counts"`
	Labelled     int   `json:"labelled_pixels"`
	HardPixels   int   `json:"hard_pixels"`
	HardTracks   int   `json:"hard_trajectories"`
	BorderPoints int   `json:"border_points"`
	FarPoints    int   `json:"far_background_points"`
	// CutPoints: background points of the background cut (Options.CutBackground).
	CutPoints   int `json:"cut_background_points,omitempty"`
	Unexplained int `json:"unexplained_background_trajectories"`
	// Unsupported: foreground points of short trajectories dropped for want
	// of a long trajectory of their segment nearby (Options.SupportRadius).
	Unsupported int `json:"dropped_unsupported_points"`
	// ColourRejected: foreground points dropped for their colour, the
	// points of ColourRejectedTracks trajectories (Options.ColourWindow).
	ColourRejected       int `json:"dropped_colour_points,omitempty"`
	ColourRejectedTracks int `json:"dropped_colour_trajectories,omitempty"`
	// Unsteady: foreground points dropped because their trajectory shakes
	// about its segment's motion, the points of UnsteadyTracks
	// trajectories (Options.Unsteady).
	Unsteady       int `json:"dropped_unsteady_points,omitempty"`
	UnsteadyTracks int `json:"dropped_unsteady_trajectories,omitempty"`
	// HardDropped: points of hard examples among the dropped points
	// (Set.DroppedHard).
	HardDropped int `json:"dropped_hard_points,omitempty"`
	// BeyondPrimary: background points beyond the primary object
	// (Set.BeyondPrimary).
	BeyondPrimary int `json:"primary_background_points,omitempty"`
}

// Summary counts the labelled, hard-example and border pixels of s and its
// hard trajectories.
func (s *Set) Summary() Summary {
	sum := Summary{Frames: len(s.Frames), Width: s.Width, Height: s.Height, Classes: s.Classes, ClassCounts: make([]int, s.Classes),
		Unsupported: s.DroppedUnsupported, ColourRejected: s.DroppedColour, ColourRejectedTracks: s.DroppedColourTracks,
		Unsteady: s.DroppedUnsteady, UnsteadyTracks: s.DroppedUnsteadyTracks, HardDropped: s.DroppedHard, BeyondPrimary: s.BeyondPrimary}
	for _, fr := range s.Frames {
		sum.HardPixels += fr.NHard
		sum.BorderPoints += fr.NBorder
		sum.FarPoints += fr.NFar
		sum.CutPoints += fr.NCut
		for c, n := range fr.Counts {
			sum.Labelled += n
			if c < len(sum.ClassCounts) {
				sum.ClassCounts[c] += n
			}
		}
	}
	for _, seg := range s.Segments {
		sum.Unexplained += seg.Unexplained
		sum.HardTracks += seg.HardTracks
	}
	return sum
}

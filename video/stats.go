package video

import (
	"math"
	"sort"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/trajectory"
)

// TrackStats summarise a TrackSet for reports.
type TrackStats struct {
	Tracks       int     `json:"tracks"`
	Frames       int     `json:"frames"`
	MeanLength   float64 `json:"mean_length"`
	MedianLength int     `json:"median_length"`
	// Density is the mean over frames of the fraction of spacing×spacing
	// grid cells that hold a trajectory point.
	Density float64 `json:"density"`
	// ObjectCoverage (when ground truth is given) is the fraction of
	// (labelled frame, grid cell) pairs holding a pixel of a non-background
	// region (region index ≥ 1) that also hold a trajectory point; NaN
	// without ground truth (hence not in JSON: encode it yourself).
	ObjectCoverage float64 `json:"-"`
}

// occupancy marks, per frame, the grid cells holding a track point.
func occupancy(ts *trajectory.TrackSet, w, h, spacing int) [][]bool {
	gw, gh := (w+spacing-1)/spacing, (h+spacing-1)/spacing
	occ := make([][]bool, ts.Frames)
	for f := range occ {
		occ[f] = make([]bool, gw*gh)
	}
	for _, tk := range ts.Tracks {
		for _, p := range tk.Points {
			x, y := p.Pixel()
			if p.Frame >= 0 && p.Frame < ts.Frames && x >= 0 && y >= 0 && x < w && y < h {
				occ[p.Frame][(y/spacing)*gw+x/spacing] = true
			}
		}
	}
	return occ
}

// Stats computes TrackStats for w×h frames; gt may be nil.
func Stats(ts *trajectory.TrackSet, w, h, spacing int, gt *dataset.GroundTruth) TrackStats {
	s := TrackStats{Tracks: len(ts.Tracks), Frames: ts.Frames, ObjectCoverage: math.NaN()}
	if spacing < 1 || w < 1 || h < 1 {
		return s
	}
	lens := make([]int, 0, len(ts.Tracks))
	tot := 0
	for _, tk := range ts.Tracks {
		lens = append(lens, len(tk.Points))
		tot += len(tk.Points)
	}
	if len(lens) > 0 {
		sort.Ints(lens)
		s.MedianLength = lens[len(lens)/2]
		s.MeanLength = float64(tot) / float64(len(lens))
	}
	occ := occupancy(ts, w, h, spacing)
	for _, cells := range occ {
		n := 0
		for _, c := range cells {
			if c {
				n++
			}
		}
		s.Density += float64(n) / float64(len(cells)) / float64(len(occ))
	}
	if gt != nil {
		s.ObjectCoverage = ObjectCoverage(ts, gt, spacing)
	}
	return s
}

// ObjectCoverage is TrackStats.ObjectCoverage for ground truth gt (frame
// size from its labelled frames).
func ObjectCoverage(ts *trajectory.TrackSet, gt *dataset.GroundTruth, spacing int) float64 {
	if len(gt.Frames) == 0 || spacing < 1 {
		return math.NaN()
	}
	w, h := gt.Frames[0].Width, gt.Frames[0].Height
	gw := (w + spacing - 1) / spacing
	occ := occupancy(ts, w, h, spacing)
	hit, all := 0, 0
	for _, lf := range gt.Frames {
		if lf.Frame < 0 || lf.Frame >= len(occ) || lf.Width != w || lf.Height != h {
			continue
		}
		obj := map[int]bool{}
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				if lf.Region[y*w+x] >= 1 {
					obj[(y/spacing)*gw+x/spacing] = true
				}
			}
		}
		for c := range obj {
			all++
			if occ[lf.Frame][c] {
				hit++
			}
		}
	}
	if all == 0 {
		return math.NaN()
	}
	return float64(hit) / float64(all)
}

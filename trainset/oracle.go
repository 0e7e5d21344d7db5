package trainset

import (
	"fmt"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/trajectory"
)

// OracleTracks returns the trajectories of ts labelled by the ground truth
// instead of the segmentation: every trajectory gets its ground-truth region
// (dataset.TrackRegions: the region holding the majority of its points over
// the labelled frames), region 0 being the background, as ScoreLabels reads
// it. Trajectories the ground truth says nothing about (no point on a
// labelled pixel) are left out; their number is returned.
//
// Prepared with Options.BackgroundClusters = {0}, this is the training set
// a perfect motion segmentation of the same trajectories would give, an
// oracle that separates the two sources of error: the U-Net trained on it
// shows what the densifier makes of correct sparse labels, so the gap to the
// real labels' dense J is the segmentation's share of the error.
func OracleTracks(ts *trajectory.TrackSet, gt *dataset.GroundTruth) (*trajectory.TrackSet, int, error) {
	if gt == nil || len(gt.Frames) == 0 {
		return nil, 0, fmt.Errorf("oracle labels: the ground truth has no labelled frame")
	}
	regions := dataset.TrackRegions(ts, gt.Frames)
	out := &trajectory.TrackSet{Frames: ts.Frames}
	dropped := 0
	for i, t := range ts.Tracks {
		if regions[i] < 0 {
			dropped++
			continue
		}
		t.Label = regions[i]
		out.Tracks = append(out.Tracks, t)
	}
	if len(out.Tracks) == 0 {
		return nil, dropped, fmt.Errorf("oracle labels: none of the %d trajectories has a point on a labelled ground-truth pixel", len(ts.Tracks))
	}
	return out, dropped, nil
}

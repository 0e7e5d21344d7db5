package dataset

import "github.com/densify/densify/trajectory"

// TrackRegions returns the ground-truth region of every trajectory: the
// region (index into GroundTruth.Colors) holding the majority of its points
// over the labelled frames it is alive in, each point at its pixel
// (trajectory.Pixel). Points outside the image or on a pixel of no region
// (−1) do not vote; ties go to the smaller region index. Trajectories with
// no vote get −1 (unlabelled). It serves the cost fit (cut labels of pairs),
// the sparsification analysis and the label-quality statistics alike.
func TrackRegions(ts *trajectory.TrackSet, frames []LabelledFrame) []int {
	out := make([]int, len(ts.Tracks))
	maxR := 0
	for _, lf := range frames {
		for _, r := range lf.Region {
			maxR = max(maxR, r+1)
		}
	}
	votes := make([]int, maxR)
	for i := range ts.Tracks {
		tr := &ts.Tracks[i]
		clear(votes)
		any := false
		for k := range frames {
			lf := &frames[k]
			q, ok := tr.At(lf.Frame)
			if !ok {
				continue
			}
			x, y := q.Pixel()
			if x < 0 || y < 0 || x >= lf.Width || y >= lf.Height {
				continue
			}
			if r := lf.Region[y*lf.Width+x]; r >= 0 {
				votes[r]++
				any = true
			}
		}
		out[i] = -1
		if any {
			best := 0
			for r, v := range votes {
				if v > votes[best] {
					best = r
				}
			}
			out[i] = best
		}
	}
	return out
}

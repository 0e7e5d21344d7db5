package motiongraph

import (
	"math"

	"github.com/densify/densify/dataset"
	"github.com/densify/densify/trajectory"
)

// TrackRegions returns the ground-truth region of every trajectory: the
// majority region over the labelled frames the trajectory is alive in (its
// point rounded to the nearest pixel; pixels outside the image or of unknown
// colour, region −1, do not vote; ties go to the smaller region index).
// Trajectories with no vote get −1 (unlabelled).
func TrackRegions(ts *trajectory.TrackSet, frames []dataset.LabelledFrame) []int {
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
			x, y := int(math.Round(q.X)), int(math.Round(q.Y))
			if x < 0 || y < 0 || x >= lf.Width || y >= lf.Height {
				continue
			}
			r := lf.Region[y*lf.Width+x]
			if r < 0 {
				continue
			}
			votes[r]++
			any = true
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

// LabelPairs turns the pairs of a PairSet into training samples: a pair is
// "cut" when its trajectories have different ground-truth regions; pairs with
// an unlabelled end (region −1) are skipped. Lifted pairs are included only
// when withLifted is true.
func LabelPairs(ps *PairSet, regions []int, seq string, withLifted bool) []PairSample {
	var out []PairSample
	for i := range ps.Len() {
		if ps.Lifted[i] && !withLifted {
			continue
		}
		ru, rv := regions[ps.U[i]], regions[ps.V[i]]
		if ru < 0 || rv < 0 {
			continue
		}
		f := append([]float64(nil), ps.Features(i)...)
		out = append(out, PairSample{Features: f, Cut: ru != rv, Lifted: ps.Lifted[i], Seq: seq})
	}
	return out
}

package trajectory

import (
	"fmt"
	"math"
)

// CheckBounds checks that every point of ts lies on frames of w×h pixels:
// its nearest pixel, (int(x+0.5), int(y+0.5)) as MoSegEval rounds, must be
// inside, i.e. −0.5 ≤ x < w − 0.5 and −0.5 ≤ y < h − 0.5 (the tracker's
// points lie in [0, w−1]×[0, h−1]). A point outside means tracks of another
// sequence or resolution, which every consumer (graph colour features,
// training labels, heat maps, evaluation) would otherwise misread or
// silently drop. name (the Tracks file; may be empty) prefixes the error,
// which names the first offending track and frame.
func (ts *TrackSet) CheckBounds(name string, w, h int) error {
	prefix := ""
	if name != "" {
		prefix = name + ": "
	}
	if w <= 0 || h <= 0 {
		return fmt.Errorf("%sframe size %dx%d is not positive", prefix, w, h)
	}
	xMax, yMax := float64(w)-0.5, float64(h)-0.5
	for i := range ts.Tracks {
		for _, p := range ts.Tracks[i].Points {
			if !(p.X >= -0.5 && p.X < xMax && p.Y >= -0.5 && p.Y < yMax) || math.IsNaN(p.X+p.Y) {
				return fmt.Errorf("%strack %d, frame %d: point (%g, %g) lies outside the %dx%d frames (tracks of another sequence or resolution?)",
					prefix, i, p.Frame, p.X, p.Y, w, h)
			}
		}
	}
	return nil
}
